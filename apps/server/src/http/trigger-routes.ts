/**
 * Trigger routes: managing a pipeline's triggers (`/api/v1`, user tokens) and the public
 * `POST /api/webhooks/:triggerId` that git hosts post to. The webhook route lives in its own
 * Fastify scope whose only content-type parser keeps the body as raw bytes, whatever the type
 * (JSON, or GitHub's `application/x-www-form-urlencoded` with `payload=`): the signature covers
 * the exact bytes, so nothing may parse and re-serialise them first. No bearer token is read
 * there; the provider's signature or token is the authentication.
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import type { WebhookService } from '../services/triggers/webhook-service.js';
import { registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';

/** GitHub caps deliveries at 25 MB; the rest of the API stays at the server's limit. */
const WEBHOOK_BODY_LIMIT = 25 * 1024 * 1024;

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
  scope.route({
    method: route.method,
    url: route.path,
    bodyLimit: WEBHOOK_BODY_LIMIT,
    handler: async (request, reply) => {
      // Not parsed with the route's schema: any unknown id, however odd, is the same 404.
      const { triggerId } = request.params as { triggerId: string };
      const result = await webhooks.receive({
        triggerId,
        headers: request.headers,
        rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      });
      return reply.status(result.outcome === 'build-created' ? 202 : 200).send(result);
    },
  });
}
