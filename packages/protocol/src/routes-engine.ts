/**
 * Routes of `/api/engine/v1`: what one build's engine calls with its engine token (its build,
 * events, log chunks, heartbeat, control messages).
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import { Empty } from './schemas/common.js';
import {
  ControlMessage,
  EngineBuild,
  EngineDefinitionAccepted,
  PostEngineDefinition,
  PollControl,
  PostEngineEvents,
  PostLogChunk,
} from './schemas/engine.js';
import { BODY_LIMITS } from './schemas/limits.js';

export const engineRoutes = {
  engineBuild: route({
    method: 'GET',
    path: '/api/engine/v1/build',
    scope: 'engine',
    tag: 'engine',
    summary: "The engine's build: pipeline, variables, secrets",
    response: EngineBuild,
  }),
  engineDefinition: route({
    method: 'POST',
    path: '/api/engine/v1/definition',
    scope: 'engine',
    tag: 'engine',
    summary:
      "The definition read from the repository: checked as `sluice validate` checks it (422 with every problem's line:column), recorded on the build with its commit, and its steps planned",
    body: PostEngineDefinition,
    bodyLimit: BODY_LIMITS.pipeline,
    response: EngineDefinitionAccepted,
  }),
  engineEvents: route({
    method: 'POST',
    path: '/api/engine/v1/events',
    scope: 'engine',
    tag: 'engine',
    summary: 'Step and build state changes',
    body: PostEngineEvents,
    bodyLimit: BODY_LIMITS.engineReport,
    status: 204,
  }),
  engineLog: route({
    method: 'POST',
    path: '/api/engine/v1/log',
    scope: 'engine',
    tag: 'engine',
    summary:
      'A log chunk, stored in order: 204 once it and every earlier chunk are stored (a resend is ignored); 409 SLUICE_LOG_SEQUENCE_GAP with details.expectedSeq after a gap',
    body: PostLogChunk,
    bodyLimit: BODY_LIMITS.engineReport,
    status: 204,
  }),
  engineHeartbeat: route({
    method: 'POST',
    path: '/api/engine/v1/heartbeat',
    scope: 'engine',
    tag: 'engine',
    summary: 'The engine is alive',
    body: Empty,
    status: 204,
  }),
  engineControl: route({
    method: 'GET',
    path: '/api/engine/v1/control',
    scope: 'engine',
    tag: 'engine',
    summary: 'Long-poll for control messages (cancel, approve, deny) after a sequence number',
    query: PollControl,
    response: z.object({ messages: z.array(ControlMessage) }),
  }),
};
