/**
 * Structural schemas of the small Kubernetes objects a runtime spec carries (EnvVar,
 * Toleration, ResourceRequirements, PodDNSConfig), with the cross-field rules the API server
 * would otherwise reject a pod for: only one source per env var, no value with `Exists`,
 * requests no larger than limits.
 * @module
 */
import { z } from 'zod';
import { envName, objectName } from './kube-names.js';
import { exactlyOne } from './exactly-one.js';
import { quantityValue, resourceQuantity } from './kube-quantity.js';

export const imagePullPolicy = z
  .enum(['Always', 'IfNotPresent', 'Never'])
  .describe('When the kubelet pulls the image');

export const dnsPolicy = z
  .enum(['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'])
  .describe('Pod DNS policy; "None" needs dnsConfig');

export const dnsConfig = z
  .strictObject({
    nameservers: z.array(z.string()).max(3).optional().describe('DNS server IP addresses'),
    searches: z.array(z.string()).max(32).optional().describe('DNS search domains'),
    options: z
      .array(
        z.strictObject({
          name: z.string().min(1).describe('Resolver option name, e.g. ndots'),
          value: z.string().optional().describe('Resolver option value'),
        }),
      )
      .optional()
      .describe('Resolver options'),
  })
  .describe('Pod DNS settings merged with those from dnsPolicy');

const keySelector = (what: string) =>
  z
    .strictObject({
      name: objectName.describe(`Name of the ${what}`),
      key: z.string().min(1).describe(`Key inside the ${what}`),
      optional: z.boolean().optional().describe(`Whether the ${what} or its key may be missing`),
    })
    .describe(`A key of a ${what} in the pod's namespace`);

const envSource = z
  .strictObject({
    secretKeyRef: keySelector('Secret').optional(),
    configMapKeyRef: keySelector('ConfigMap').optional(),
    fieldRef: z
      .strictObject({
        fieldPath: z.string().min(1).describe('Pod field, e.g. metadata.name'),
        apiVersion: z.string().optional().describe('Schema version of fieldPath, default v1'),
      })
      .optional()
      .describe('A field of the pod'),
    resourceFieldRef: z
      .strictObject({
        resource: z.string().min(1).describe('Resource, e.g. limits.memory'),
        containerName: z.string().optional().describe('Container whose resource is read'),
        divisor: resourceQuantity.optional().describe('Unit of the value, default 1'),
      })
      .optional()
      .describe('A resource request or limit of a container'),
  })
  .check(exactlyOne('name', ['secretKeyRef', 'configMapKeyRef', 'fieldRef', 'resourceFieldRef']))
  .describe('Where the value comes from');

export const envVar = z
  .strictObject({
    name: envName.describe('Variable name'),
    value: z.string().optional().describe('Literal value'),
    valueFrom: envSource.optional(),
  })
  .superRefine((env, ctx) => {
    if (env.value === undefined || env.valueFrom === undefined) return;
    ctx.addIssue({
      code: 'custom',
      path: ['valueFrom'],
      input: env,
      message: `Environment variable "${env.name}" has both "value" and "valueFrom"; keep one`,
    });
  })
  .describe('An environment variable in Kubernetes EnvVar syntax');

/** `KEY: value` maps; numbers and booleans are kept as the text they stand for. */
export const envVarMap = z
  .record(envName, z.union([z.string(), z.number(), z.boolean()]).transform(String))
  .describe('Environment variables by name');

export const toleration = z
  .strictObject({
    key: z.string().optional().describe('Taint key; empty with Exists tolerates every taint'),
    operator: z.enum(['Exists', 'Equal']).optional().describe('Default Equal'),
    value: z.string().optional().describe('Taint value to match with Equal'),
    effect: z
      .enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute'])
      .optional()
      .describe('Taint effect to match; empty matches all'),
    tolerationSeconds: z
      .int()
      .optional()
      .describe('How long a NoExecute taint is tolerated before eviction'),
  })
  .superRefine((t, ctx) => {
    if (t.operator === 'Exists' && t.value !== undefined && t.value !== '') {
      const message = `Toleration with operator "Exists" must not have a value, got "${t.value}"`;
      ctx.addIssue({ code: 'custom', path: ['value'], input: t.value, message });
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      const message = `"tolerationSeconds" needs effect "NoExecute", got ${t.effect === undefined ? 'no effect' : `"${t.effect}"`}`;
      ctx.addIssue({ code: 'custom', path: ['tolerationSeconds'], input: t, message });
    }
  })
  .describe('A Kubernetes toleration');

const quantityMap = z.record(z.string().min(1), resourceQuantity);

export const resources = z
  .strictObject({
    requests: quantityMap.optional().describe('Reserved amounts, e.g. cpu: 400m, memory: 800Mi'),
    limits: quantityMap.optional().describe('Maximum amounts, e.g. cpu: 2500m, memory: 4Gi'),
  })
  .superRefine((r, ctx) => {
    for (const [name, requested] of Object.entries(r.requests ?? {})) {
      const limit = r.limits?.[name];
      if (limit === undefined) continue;
      if ((quantityValue(requested) ?? 0) <= (quantityValue(limit) ?? Infinity)) continue;
      ctx.addIssue({
        code: 'custom',
        path: ['requests', name],
        input: requested,
        message: `Request ${requested} of "${name}" is more than its limit ${limit}`,
      });
    }
  })
  .describe('Compute resources: requests and limits as Kubernetes quantities');
