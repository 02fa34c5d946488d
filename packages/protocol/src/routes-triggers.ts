/**
 * Routes of build triggers: managing a pipeline's git and cron triggers (`/api/v1`, user
 * tokens), and the public webhook endpoint git hosts post to. The webhook endpoint takes no
 * bearer token: the provider's signature or token, checked against the trigger's secret, is the
 * authentication.
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import { Id } from './schemas/common.js';
import { CreateTrigger, Trigger, WebhookPayload, WebhookResult } from './schemas/triggers.js';
import { BODY_LIMITS } from './schemas/limits.js';

const V1 = '/api/v1';
const PipelineParams = z.object({ pipelineId: Id });
const TriggerParams = z.object({ triggerId: Id });

export const triggerRoutes = {
  listTriggers: route({
    method: 'GET',
    path: `${V1}/pipelines/:pipelineId/triggers`,
    scope: 'viewer',
    tag: 'triggers',
    summary: "A pipeline's git and cron triggers (never their secrets)",
    params: PipelineParams,
    response: z.object({ items: z.array(Trigger) }),
  }),
  createTrigger: route({
    method: 'POST',
    path: `${V1}/pipelines/:pipelineId/triggers`,
    scope: 'member',
    tag: 'triggers',
    summary: 'Add a git or cron trigger; 422 names the bad column of a cron expression or regex',
    params: PipelineParams,
    body: CreateTrigger,
    bodyLimit: BODY_LIMITS.variables,
    response: Trigger,
    status: 201,
  }),
  deleteTrigger: route({
    method: 'DELETE',
    path: `${V1}/triggers/:triggerId`,
    scope: 'member',
    tag: 'triggers',
    summary: 'Delete a trigger',
    params: TriggerParams,
    status: 204,
  }),
  receiveWebhook: route({
    method: 'POST',
    path: '/api/webhooks/:triggerId',
    scope: 'public',
    tag: 'triggers',
    summary:
      "A git host's webhook delivery, verified with the trigger's secret: 202 when it starts a build, 200 for a ping, an ignored event, or a duplicate (a delivery id seen within 24 hours)",
    params: TriggerParams,
    body: WebhookPayload,
    bodyLimit: BODY_LIMITS.webhook,
    response: WebhookResult,
    status: 202,
  }),
};
