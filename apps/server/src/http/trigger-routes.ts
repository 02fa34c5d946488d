/**
 * Trigger routes: managing a pipeline's triggers (`/api/v1`, user tokens) and the public
 * `POST /api/webhooks/:triggerId` that git hosts post to. The webhook route lives in its own
 * Fastify scope whose only content-type parser keeps the body as raw bytes, whatever the type
 * (JSON, or GitHub's `application/x-www-form-urlencoded` with `payload=`): the signature covers
 * the exact bytes, so nothing may parse and re-serialise them first. No bearer token is read
 * there; the provider's signature or token is the authentication.
 *
 * What arrives there is unauthenticated until its body is read, so it is bounded before: the
 * trigger is looked up from the path first (an unknown one is answered 404 at once and the
 * connection closed, its body never read); a body is read only up to GitHub's documented
 * maximum (25 MB: `BODY_LIMITS.webhook`, 413 beyond, from the announced length alone) and within
 * the request body deadline (408); and the bodies being read share `WEBHOOK_BODIES_AT_ONCE`
 * bytes, each taking its announced length (a chunked one the limit) until it is answered: one
 * that does not fit is answered 503 `SLUICE_WEBHOOK_BUSY` before it is read, so memory stays
 * bounded whatever arrives.
 * @module
 */
import { UnavailableError } from '@sluice/errors';
import type { TriggerRow } from '@sluice/db';
import { routes } from '@sluice/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import type { Services } from '../services/services.js';
import type { WebhookService } from '../services/triggers/webhook-service.js';
import { registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';
import { BodyBudget } from './body-budget.js';
import { formatBytes, hasBody } from './request-body.js';
import { assertStorableText } from './request-text.js';

/** Webhook body bytes read at once, whatever arrives: two deliveries at GitHub's maximum. */
export const WEBHOOK_BODIES_AT_ONCE = 64 * 1024 * 1024;

export function registerTriggerRoutes(
  app: FastifyInstance,
  s: Pick<Services, 'triggers' | 'webhooks'>,
  auth: Authenticate,
): void {
  registerRoute(app, routes.listTriggers, auth, async ({ principal, params }) => ({
    items: await s.triggers.list(principal.accountId, params.pipelineId),
  }));
  registerRoute(app, routes.createTrigger, auth, ({ principal, params, body }) =>
    s.triggers.create(principal.accountId, params.pipelineId, body),
  );
  registerRoute(
    app,
    routes.deleteTrigger,
    auth,
    async ({ principal, params }) =>
      void (await s.triggers.delete(principal.accountId, params.triggerId)),
  );
  void app.register((scope, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, next) =>
      next(null, body),
    );
    registerWebhookRoute(scope, s.webhooks);
    done();
  });
}

function registerWebhookRoute(scope: FastifyInstance, webhooks: WebhookService): void {
  const route = routes.receiveWebhook;
  const triggers = new WeakMap<FastifyRequest, TriggerRow>();
  const budget = new BodyBudget(WEBHOOK_BODIES_AT_ONCE);
  scope.route({
    method: route.method,
    url: route.path,
    bodyLimit: route.bodyLimit,
    // Before the body: an unknown trigger is refused without reading a byte of it.
    onRequest: async (request, reply) => {
      // Not parsed with the route's schema: any unknown id, however odd, is the same 404.
      const { triggerId } = request.params as { triggerId: string };
      try {
        // The text check of every route, early: an id PostgreSQL cannot hold is not looked up.
        assertStorableText({ params: request.params });
        triggers.set(request, await webhooks.trigger(triggerId));
      } catch (err) {
        closeUnread(request, reply);
        throw err;
      }
    },
    preParsing: withinBudget(budget, route.bodyLimit),
    handler: async (request, reply) => {
      const trigger = triggers.get(request);
      if (trigger === undefined) throw new Error('The webhook route ran without its trigger');
      const result = await webhooks.receive({
        trigger,
        headers: request.headers,
        rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      });
      return reply.status(result.outcome === 'build-created' ? 202 : 200).send(result);
    },
  });
}

/**
 * A `preParsing` hook: the body takes its announced length of `budget` (a chunked one `limit`)
 * until the request is answered, or is answered 503 at once when that is not free. A length over
 * `limit` is left to Fastify's 413.
 */
function withinBudget(budget: BodyBudget, limit: number): preParsingHookHandler {
  return (request, reply, payload, done) => {
    const announced = Number(request.headers['content-length'] ?? Number.NaN);
    const bytes = Number.isNaN(announced) ? (hasBody(request) ? limit : 0) : announced;
    if (bytes === 0 || bytes > limit) {
      done(null, payload);
      return;
    }
    if (!budget.take(bytes)) {
      closeUnread(request, reply);
      void reply.header('retry-after', '10');
      done(
        new UnavailableError(
          'SLUICE_WEBHOOK_BUSY',
          `Webhook bodies of ${formatBytes(budget.taken)} are being read; ${formatBytes(bytes)} more would pass the ${formatBytes(budget.total)} read at once`,
          { hint: 'Deliver it again in a few seconds (GitHub: Redeliver)' },
        ),
      );
      return;
    }
    reply.raw.once('close', () => budget.give(bytes));
    done(null, payload);
  };
}

/** Answered before its body was read: the connection is closed rather than the rest read. */
function closeUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (hasBody(request)) void reply.header('connection', 'close');
}
