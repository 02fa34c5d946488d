/**
 * Routes of `/api/agent/v1` (runner agents, agent tokens) and `/api/engine/v1` (one build's
 * engine, engine tokens).
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import { Empty, Id } from './schemas/common.js';
import {
  AgentHeartbeat,
  AgentRuntime,
  BuildState,
  BuildStatesQuery,
  InfrastructureErrorAnswer,
  InfrastructureErrorReport,
  PollTasks,
  RuntimeName,
  Task,
  TaskStatusReport,
} from './schemas/agents.js';
import {
  ControlMessage,
  EngineBuild,
  PollControl,
  PostEngineEvents,
  PostLogChunk,
  TlsBundle,
} from './schemas/engine.js';

const agent = {
  pollTasks: route({
    method: 'GET',
    path: '/api/agent/v1/tasks',
    scope: 'agent',
    tag: 'agent',
    summary:
      "Long-poll: returns the moment a task exists for one of the agent's runtimes, or [] after `wait` seconds",
    query: PollTasks,
    response: z.object({ tasks: z.array(Task) }),
  }),
  reportTaskStatus: route({
    method: 'POST',
    path: '/api/agent/v1/tasks/:taskId/status',
    scope: 'agent',
    tag: 'agent',
    summary: "Report a task's outcome with the next status revision",
    params: z.object({ taskId: Id }),
    body: TaskStatusReport,
    status: 204,
  }),
  agentHeartbeat: route({
    method: 'PUT',
    path: '/api/agent/v1/status',
    scope: 'agent',
    tag: 'agent',
    summary: "Heartbeat with the runtimes' health",
    body: AgentHeartbeat,
    status: 204,
  }),
  agentRuntimes: route({
    method: 'GET',
    path: '/api/agent/v1/runtimes',
    scope: 'agent',
    tag: 'agent',
    summary: "The agent's runtimes: kind and the namespace of their build objects",
    response: z.object({ runtimes: z.array(AgentRuntime) }),
  }),
  agentBuildStates: route({
    method: 'POST',
    path: '/api/agent/v1/builds/states',
    scope: 'agent',
    tag: 'agent',
    summary:
      "The states of builds whose objects the agent holds, so it deletes those of finished or unknown builds; a build not dispatched to one of the agent's runtimes is `unknown`",
    body: BuildStatesQuery,
    response: z.object({ builds: z.array(BuildState) }),
  }),
  agentInfrastructureError: route({
    method: 'POST',
    path: '/api/agent/v1/builds/:buildId/infrastructure-error',
    scope: 'agent',
    tag: 'agent',
    summary:
      "One of a build's pods failed for an infrastructure reason: the build is retried on new pods while its runtime allows (before its engine started), else it ends `error` with the pod's reason",
    params: z.object({ buildId: Id }),
    body: InfrastructureErrorReport,
    response: InfrastructureErrorAnswer,
  }),
  dindCertificate: route({
    method: 'GET',
    path: '/api/agent/v1/runtimes/:name/dind-certificate',
    scope: 'agent',
    tag: 'agent',
    summary:
      "The dind server certificate of one of the agent's runtimes, issued by the internal CA",
    params: z.object({ name: RuntimeName }),
    response: TlsBundle,
  }),
};

const engine = {
  engineBuild: route({
    method: 'GET',
    path: '/api/engine/v1/build',
    scope: 'engine',
    tag: 'engine',
    summary: "The engine's build: pipeline, variables, secrets",
    response: EngineBuild,
  }),
  engineEvents: route({
    method: 'POST',
    path: '/api/engine/v1/events',
    scope: 'engine',
    tag: 'engine',
    summary: 'Step and build state changes',
    body: PostEngineEvents,
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

export const runnerRoutes = { ...agent, ...engine };
