/**
 * Routes of `/api/agent/v1`: what a runner agent calls with its agent token (tasks of its own
 * runtimes, heartbeat, build states, pod failures, dind certificates).
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import { Id, RuntimeName } from './schemas/common.js';
import {
  AgentHeartbeat,
  AgentRuntime,
  BuildState,
  BuildStatesQuery,
  InfrastructureErrorAnswer,
  InfrastructureErrorReport,
  PollTasks,
  Task,
  TaskStatusReport,
} from './schemas/agents.js';
import { BuildCache } from './schemas/builds.js';
import { TlsBundle } from './schemas/engine.js';
import { BODY_LIMITS } from './schemas/limits.js';

export const agentRoutes = {
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
    bodyLimit: BODY_LIMITS.agentStatus,
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
      "The states of builds whose objects the agent holds, so it deletes those of finished or unknown builds; a build dispatched to the agent whose runtime was taken from the agent since is `draining` (kept until it ends); a build neither on one of the agent's runtimes nor dispatched to it is `unknown`",
    body: BuildStatesQuery,
    bodyLimit: BODY_LIMITS.agentStatus,
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
  agentBuildCache: route({
    method: 'PUT',
    path: '/api/agent/v1/builds/:buildId/cache',
    scope: 'agent',
    tag: 'agent',
    summary:
      "The build's cache record: the volume its Docker daemon got and whether it was warm, read off the build's claim once bound; a later report replaces it",
    params: z.object({ buildId: Id }),
    body: BuildCache,
    status: 204,
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
