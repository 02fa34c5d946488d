/**
 * The runtime environment spec (reference §2.2): the zod schema every stored spec passes, and
 * its TypeScript type. Every object is strict, so a misspelt field is an error, not a silent
 * default. A spec may be partial: what it leaves out comes from its `extends` parents.
 * @module
 */
import { z } from 'zod';
import { typeName } from '../describe-value.js';
import { dockerDaemonScheduler } from './dind-scheduler.js';
import { runtimeScheduler } from './engine-scheduler.js';
import { httpUrl, proxy } from './scheduler-common.js';

const NAME = /^[A-Za-z0-9]([A-Za-z0-9._@:/-]*[A-Za-z0-9])?$/;

/** `system/default/k8s`, `prod-cluster/ci`: letters, digits and `._@:/-`. */
export const runtimeName = z
  .string()
  .max(253)
  .regex(NAME, {
    error: (issue) =>
      `must be a runtime name (letters, digits, ".", "_", "@", ":", "/" and "-"), got ${typeName(issue.input)}`,
  });

export const runtimeSpecSchema = z
  .strictObject({
    version: z.literal(1).optional().describe('Spec format version; Sluice reads version 1'),
    metadata: z
      .strictObject({
        name: runtimeName.describe('Unique name, e.g. <kubeContext>/<namespace>'),
        agent: z
          .boolean()
          .optional()
          .describe('True when a runner agent applies the pods; false for system specs'),
      })
      .describe('Identity of the runtime environment'),
    description: z.string().optional().describe('What the runtime is for, shown to people'),
    extends: z
      .array(runtimeName)
      .optional()
      .describe('Parents merged under this spec, in order, later parents winning'),
    runtimeScheduler: runtimeScheduler.optional(),
    dockerDaemonScheduler: dockerDaemonScheduler.optional(),
    proxy: proxy.optional(),
    controlPlaneUrl: httpUrl
      .optional()
      .describe('URL the engine and agent pods use to reach the control plane'),
  })
  .superRefine((spec, ctx) => {
    const engine = spec.runtimeScheduler?.type;
    const daemon = spec.dockerDaemonScheduler?.type;
    if (engine === undefined || daemon === undefined) return;
    if ((engine === 'LocalDocker') === (daemon === 'LocalDocker')) return;
    ctx.addIssue({
      code: 'custom',
      path: ['dockerDaemonScheduler', 'type'],
      input: daemon,
      message: `Docker daemon type "${daemon}" cannot serve engine type "${engine}"; LocalDocker goes with LocalDocker`,
    });
  })
  .describe('A runtime environment: how the engine and Docker daemon of each build are run');

/** A validated spec, as stored and as `resolveRuntimeSpec` returns it. */
export type RuntimeSpec = z.output<typeof runtimeSpecSchema>;
/** What a spec file may contain before normalising (numbers where text is kept, comma lists). */
export type RuntimeSpecInput = z.input<typeof runtimeSpecSchema>;
export type RuntimeScheduler = NonNullable<RuntimeSpec['runtimeScheduler']>;
export type DockerDaemonScheduler = NonNullable<RuntimeSpec['dockerDaemonScheduler']>;
