/**
 * The one place where errors become HTTP responses: category → status, body
 * `{ error: { code, message, details, hint } }`. Our own bugs are logged with their stack and
 * answered without internals.
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { ErrorCategory } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

const STATUS: Record<ErrorCategory, number> = {
  input: 400,
  authentication: 401,
  'not-allowed': 403,
  'not-found': 404,
  conflict: 409,
  unavailable: 503,
  internal: 500,
};

function statusFor(err: unknown): number {
  if (isSluiceError(err)) {
    // A pipeline or runtime spec that parses but does not validate is "unprocessable".
    if (err.category === 'input' && err.details?.unprocessable === true) return 422;
    return STATUS[err.category];
  }
  const status = (err as Partial<FastifyError>).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : 500;
}

export function createErrorHandler(log: Logger) {
  return (err: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    const status = statusFor(err);
    if (isSluiceError(err)) {
      const { unprocessable: _, ...details } = err.details ?? {};
      void reply.status(status).send({
        error: {
          code: err.code,
          message: err.message,
          details: Object.keys(details).length ? details : undefined,
          hint: err.hint,
        },
      });
      return;
    }
    if (status < 500) {
      const message = err instanceof Error ? err.message : 'Bad request';
      void reply.status(status).send({ error: { code: 'SLUICE_HTTP_BAD_REQUEST', message } });
      return;
    }
    log.error('request failed with an internal error', {
      reqId: request.id,
      method: request.method,
      url: request.routeOptions.url,
      error: err instanceof Error ? err.stack : String(err),
    });
    void reply.status(500).send({
      error: {
        code: 'SLUICE_INTERNAL',
        message: 'The server hit an internal error; it has been logged',
      },
    });
  };
}
