/**
 * Runtime environments, agents, and the tasks agents execute (agent protocol).
 * @module
 */
import { z } from 'zod';
import { BuildStatus } from './builds.js';
import { Id, Name, RuntimeName, Timestamp } from './common.js';
import { AgentHealth } from './agent-health.js';
import { boundedObject, LIMITS } from './limits.js';

/** The spec is validated by @sluice/runtime-spec; here it is an object. */
export const RuntimeSpecBody = boundedObject({
  string: LIMITS.runtimeSpecString,
  json: LIMITS.runtimeSpecJson,
}).describe(
  `Runtime environment spec (see docs): strings at most ${LIMITS.runtimeSpecString} characters, at most ${LIMITS.runtimeSpecJson} characters as JSON`,
);

export const RuntimeEnvironment = z.object({
  name: RuntimeName,
  version: z.number().int(),
  description: z.string().nullable(),
  spec: RuntimeSpecBody,
  isDefault: z.boolean(),
  createdAt: Timestamp,
  createdBy: z.string().nullable(),
});
export type RuntimeEnvironment = z.infer<typeof RuntimeEnvironment>;

export const CreateRuntimeEnvironment = z.object({
  name: RuntimeName,
  description: z.string().max(1000).optional(),
  spec: RuntimeSpecBody,
});

export const PatchRuntimeEnvironment = z.object({
  patch: RuntimeSpecBody.describe('RFC 7386 merge patch applied to the latest version'),
  description: z.string().max(1000).optional(),
});

export const Agent = z.object({
  id: Id,
  name: Name,
  runtimes: z.array(RuntimeName),
  online: z.boolean().describe('A heartbeat arrived recently'),
  health: AgentHealth.nullable(),
  version: z.string().nullable(),
  lastHeartbeatAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type Agent = z.infer<typeof Agent>;

export const CreateAgent = z.object({ name: Name, runtimes: z.array(RuntimeName).min(1) });
/** The whole new list of runtimes an agent serves; its token stays the same. */
export const UpdateAgent = z.object({ runtimes: z.array(RuntimeName).min(1) });
export const CreatedAgent = z.object({ agent: Agent, token: z.string().describe('Shown once') });

/**
 * Kubernetes tasks: `Create*` carry a complete manifest as their spec (namespace included);
 * `Delete*` carry `{ name, namespace }`. `CreateService` ensures the namespace's headless dind
 * Service (never deleted by a build). `CreateClusterCredentials` (a `ClusterCredentialsTask`) has the agent mint
 * service-account tokens for the build's clusters behind the firewall into a Secret. Local
 * tasks: `RunEngine` `{ buildId, engineToken,
 * serverUrl }` starts an engine process, `StopEngine` `{ buildId }` stops it.
 */
export const TaskType = z.enum([
  'CreateService',
  'CreatePvc',
  'CreateSecret',
  'CreateConfigMap',
  'CreatePod',
  'CreateClusterCredentials',
  'DeletePod',
  'DeleteConfigMap',
  'DeleteSecret',
  'DeletePvc',
  'RunEngine',
  'StopEngine',
]);
export type TaskType = z.infer<typeof TaskType>;

export const Task = z.object({
  id: Id,
  type: TaskType,
  buildId: Id.nullable(),
  runtime: RuntimeName,
  position: z.number().int().describe('Order within the build: apply ascending'),
  statusRevision: z.number().int().describe('Report statusRevision + 1'),
  attempt: z.number().int(),
  spec: z.record(z.string(), z.unknown()).describe('Manifest or parameters, by type'),
  createdAt: Timestamp,
});
export type Task = z.infer<typeof Task>;

export const PollTasks = z.object({
  wait: z.coerce
    .number()
    .int()
    .min(0)
    .max(60)
    .default(30)
    .describe('Seconds to hold the request open when no task is ready'),
  max: z.coerce.number().int().min(1).max(200).default(50),
});

export const TaskStatusReport = z.object({
  status: z.enum(['Success', 'Error']),
  statusRevision: z.number().int(),
  isRetriable: z.boolean().default(false),
  reason: z.string().max(4000).optional(),
  occurredAt: Timestamp.optional(),
});

export const AgentHeartbeat = z.object({
  health: AgentHealth,
  version: z
    .string()
    .max(LIMITS.agentVersion)
    .optional()
    .describe(`The agent's version, at most ${LIMITS.agentVersion} characters`),
});

/** A runtime the agent serves, as the agent needs it: where its builds' objects live. */
export const AgentRuntime = z.object({
  name: RuntimeName,
  kind: z.enum(['kubernetes', 'local']),
  namespace: z
    .string()
    .nullable()
    .describe("The namespace of the runtime's build objects (kubernetes), else null"),
});
export type AgentRuntime = z.infer<typeof AgentRuntime>;

export const BuildStatesQuery = z.object({
  buildIds: z.array(z.string().min(1).max(200)).max(500),
});

export const BuildState = z.object({
  buildId: z.string(),
  status: z
    .union([BuildStatus, z.literal('unknown')])
    .describe("`unknown`: no such build in the agent's account"),
  finished: z.boolean().describe('Finished or unknown: its objects may be deleted'),
  draining: z
    .boolean()
    .describe(
      "The build was dispatched to this agent, whose runtimes no longer include the build's: the agent finishes it (its objects are kept until it ends) and gets no new builds of that runtime",
    ),
});
export type BuildState = z.infer<typeof BuildState>;

/**
 * A build pod that failed for a reason of the cluster's, not the pipeline's, as the agent's pod
 * monitor saw it: the pod's own reason (`Unschedulable`, `ErrImagePull`, `OOMKilled`, `Evicted`…)
 * and message. The control plane retries the build on new pods or ends it `error`.
 */
export const InfrastructureErrorReport = z.object({
  pod: z.string().min(1).max(253).describe('Name of the pod that failed'),
  reason: z
    .string()
    .min(1)
    .max(128)
    .describe("The pod's or container's reason, as Kubernetes gives it"),
  message: z.string().max(4096).describe("Kubernetes' message, or the agent's own account"),
});
export type InfrastructureErrorReport = z.infer<typeof InfrastructureErrorReport>;

export const InfrastructureErrorAnswer = z.object({
  action: z
    .enum(['retried', 'failed', 'ignored'])
    .describe(
      '`retried`: new pods are queued; `failed`: the build ended `error`; `ignored`: the build had finished or the pod is not one of its current pods',
    ),
  attempt: z.int().describe('The attempt the build is on now, from 1'),
});
export type InfrastructureErrorAnswer = z.infer<typeof InfrastructureErrorAnswer>;
