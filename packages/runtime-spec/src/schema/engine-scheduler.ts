/**
 * `runtimeScheduler`: how the engine pod of a build is made (reference §2.2, §2.3), or, with
 * `type: LocalDocker`, how the embedded local runtime starts the engine process.
 * @module
 */
import { z } from 'zod';
import { typeName } from '../describe-value.js';
import { envVar, envVarMap, imagePullPolicy, resources } from './kube-core.js';
import { sizeQuantity } from './kube-quantity.js';
import { checkDns, podFields } from './scheduler-common.js';

const seconds = (what: string) => z.int().min(0).optional().describe(`${what} (seconds)`);

/** The limits the control plane enforces on a build, named as Codefresh names them. */
export const workflowLimits = z
  .strictObject({
    MAXIMUM_ALLOWED_TIME_BEFORE_PRE_STEPS_SUCCESS: seconds(
      'Time a build may take to reach its first step',
    ),
    MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION: seconds('Age at which a build is stopped'),
    MAXIMUM_ELECTED_STATE_AGE_ALLOWED: seconds(
      'Time a build may wait for its engine to start once handed to the runtime',
    ),
    MAXIMUM_POST_STEPS_GRACE_PERIOD_MINUTES: z
      .int()
      .min(0)
      .optional()
      .describe('Time the post-steps (hooks, clean-up) may take (minutes)'),
    MAXIMUM_RETRY_ATTEMPTS_ALLOWED: z
      .int()
      .min(0)
      .optional()
      .describe('Times a build whose engine was lost is restarted'),
    MAXIMUM_TERMINATING_STATE_AGE_ALLOWED: seconds('Time a build may spend terminating'),
    MAXIMUM_TERMINATING_STATE_AGE_ALLOWED_WITHOUT_UPDATE: seconds(
      'Time a terminating build may go without reporting',
    ),
    TIME_ENGINE_INACTIVE_UNTIL_TERMINATION: seconds(
      'Time without an engine health report before the build is stopped',
    ),
    TIME_ENGINE_INACTIVE_UNTIL_UNHEALTHY: seconds(
      'Time without an engine health report before the build is marked unhealthy',
    ),
    TIME_INACTIVE_UNTIL_TERMINATION: seconds('Time without log output before the build is stopped'),
  })
  .describe('Limits on a build, enforced by the control plane');

export type WorkflowLimits = z.output<typeof workflowLimits>;

const dockerHost = z
  .string()
  .regex(/^(unix|tcp|ssh|npipe):\/\/.+/, {
    error: (issue) =>
      `must be a Docker address such as unix:///var/run/docker.sock or tcp://host:2376, got ${typeName(issue.input)}`,
  })
  .describe('Docker engine the local runtime runs builds on; default DOCKER_HOST or the socket');

export const runtimeScheduler = z
  .strictObject({
    type: z
      .enum(['KubernetesPod', 'LocalDocker'])
      .optional()
      .describe('KubernetesPod: one engine pod per build; LocalDocker: the embedded runtime'),
    dockerHost: dockerHost.optional(),
    image: z.string().min(1).optional().describe('Engine image'),
    imagePullPolicy: imagePullPolicy.optional(),
    command: z.array(z.string()).min(1).optional().describe('Engine container command'),
    envVars: envVarMap.optional().describe('Environment of the engine'),
    userEnvVars: z
      .array(envVar)
      .optional()
      .describe('Environment given to every pipeline step, in Kubernetes EnvVar syntax'),
    workflowLimits: workflowLimits.optional(),
    buildLogLimit: sizeQuantity
      .optional()
      .describe(
        "Size of a build's log (bytes of line text, e.g. 64Mi; 0: no limit) past which the engine sends no more lines, says so once and the steps go on; the server's SLUICE_BUILD_LOG_LIMIT_BYTES (64 MiB) when unset",
      ),
    infrastructureRetries: z
      .int()
      .min(0)
      .max(5)
      .optional()
      .describe(
        'Times a build whose pod failed for an infrastructure reason (Unschedulable, ErrImagePull, OOMKilled, Evicted…) before its engine started is retried on new pods; default 1',
      ),
    resources: resources.optional().describe('Engine container resources'),
    ...podFields,
  })
  .superRefine((engine, ctx) => {
    checkDns(engine, ctx);
    if (engine.dockerHost === undefined || engine.type !== 'KubernetesPod') return;
    ctx.addIssue({
      code: 'custom',
      path: ['dockerHost'],
      input: engine.dockerHost,
      message: `"dockerHost" ${JSON.stringify(engine.dockerHost)} applies only to type "LocalDocker", not "KubernetesPod"`,
    });
  })
  .describe('The engine: one pod per build, or the local engine process');
