/**
 * The one place where errors become HTTP responses: category → status, body
 * `{ error: { code, message, details, hint, requestId } }`. Every 5xx is logged with the
 * request id, its code and its stack; its body carries the request id and the stable code only
 * (`SLUICE_INTERNAL` for our own bugs), never the message or details, which for a database
 * error hold the SQLSTATE and the driver's text. A conflict the database found (a unique or
 * foreign key violation no service worded itself) answers with the words `@sluice/db` gave it and
 * never its details: they hold the constraint's and the table's names and PostgreSQL's text.
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { ErrorCategory } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { translateBodyError } from './request-body.js';

/** Carries the request id on every response, so a report can be matched with the log. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** The HTTP status of each error category. */
export const STATUS: Record<ErrorCategory, number> = {
  input: 400,
  authentication: 401,
  'not-allowed': 403,
  'not-found': 404,
  conflict: 409,
  unavailable: 503,
  internal: 500,
};

/** Errors whose details are the database's own (constraint, table, detail): never sent. */
const DATABASE_CODES = new Set(['SLUICE_DB_CONFLICT', 'SLUICE_DB_REFERENCE']);

function statusFor(err: unknown): number {
  if (isSluiceError(err)) {
    // A pipeline or runtime spec that parses but does not validate is "unprocessable".
    if (err.category === 'input' && err.details?.unprocessable === true) return 422;
    // A document over its size limit is refused before it is read.
    if (err.category === 'input' && err.details?.tooLarge === true) return 413;
    // A body that did not arrive within its deadline.
    if (err.category === 'input' && err.details?.timedOut === true) return 408;
    return STATUS[err.category];
  }
  const status = (err as Partial<FastifyError>).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : 500;
}

export function createErrorHandler(log: Logger) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    const err = translateBodyError(error, request);
    const status = statusFor(err);
    void reply.header(REQUEST_ID_HEADER, request.id);
    if (status >= 500) {
      serverError(log, err, { status, request, reply });
      return;
    }
    if (isSluiceError(err)) {
      const {
        unprocessable: _,
        tooLarge: __,
        timedOut: ___,
        ...details
      } = DATABASE_CODES.has(err.code) ? {} : (err.details ?? {});
      void reply.status(status).send({
        error: {
          code: err.code,
          message: err.message,
          details: Object.keys(details).length ? details : undefined,
          hint: err.hint,
          requestId: request.id,
        },
      });
      return;
    }
    const message = err instanceof Error ? err.message : 'Bad request';
    void reply.status(status).send({
      error: { code: 'SLUICE_HTTP_BAD_REQUEST', message, requestId: request.id },
    });
  };
}

interface ServerErrorContext {
  status: number;
  request: FastifyRequest;
  reply: FastifyReply;
}

function serverError(log: Logger, err: unknown, ctx: ServerErrorContext): void {
  const { status, request, reply } = ctx;
  const unavailable = status === 503 && isSluiceError(err);
  const fields = {
    reqId: request.id,
    method: request.method,
    url: request.routeOptions.url ?? request.url.split('?')[0],
    status,
    code: isSluiceError(err) ? err.code : undefined,
    details: isSluiceError(err) ? err.details : undefined,
    error: err instanceof Error ? err.stack : String(err),
    cause: causeOf(err),
  };
  // A dependency that is down is degraded but handled (the client retries); anything else is
  // our bug, and someone must look at it.
  if (unavailable) log.warn('request failed: a dependency is unavailable', fields);
  else log.error('request failed with an internal error', fields);
  void reply.status(status).send({
    error: unavailable
      ? {
          code: err.code,
          message: 'A service the server needs is unavailable; retry later',
          requestId: request.id,
        }
      : {
          code: 'SLUICE_INTERNAL',
          message: 'The server hit an internal error; it has been logged with the request id',
          requestId: request.id,
        },
  });
}

function causeOf(err: unknown): string | undefined {
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause === undefined) return undefined;
  if (cause instanceof Error) return cause.stack ?? cause.message;
  return typeof cause === 'string' ? cause : JSON.stringify(cause);
}
