/**
 * Structural schema of a Kubernetes `Affinity`: node affinity and pod (anti-)affinity, with
 * the operators and weight range the API server accepts.
 * @module
 */
import { z } from 'zod';
import { labelKey, labelMap } from './kube-names.js';

const nodeRequirement = z
  .strictObject({
    key: z.string().min(1).describe('Node label or field key'),
    operator: z
      .enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'])
      .describe('How the key relates to values'),
    values: z.array(z.string()).optional().describe('Values for In, NotIn, Gt and Lt'),
  })
  .describe('A node selector requirement');

const nodeSelectorTerm = z
  .strictObject({
    matchExpressions: z.array(nodeRequirement).optional().describe('Requirements on labels'),
    matchFields: z.array(nodeRequirement).optional().describe('Requirements on fields'),
  })
  .describe('A node selector term; its requirements are ANDed');

const weight = z.int().min(1).max(100).describe('Preference weight, 1 to 100');

const nodeAffinity = z
  .strictObject({
    requiredDuringSchedulingIgnoredDuringExecution: z
      .strictObject({
        nodeSelectorTerms: z.array(nodeSelectorTerm).min(1).describe('Terms, ORed'),
      })
      .optional()
      .describe('Nodes the pod may run on'),
    preferredDuringSchedulingIgnoredDuringExecution: z
      .array(
        z.strictObject({
          weight,
          preference: nodeSelectorTerm,
        }),
      )
      .optional()
      .describe('Nodes the pod prefers'),
  })
  .describe('Node affinity');

const labelSelector = z
  .strictObject({
    matchLabels: labelMap.optional().describe('Labels that must all match'),
    matchExpressions: z
      .array(
        z.strictObject({
          key: labelKey.describe('Label key'),
          operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']).describe('Operator'),
          values: z.array(z.string()).optional().describe('Values for In and NotIn'),
        }),
      )
      .optional()
      .describe('Label requirements, ANDed'),
  })
  .describe('A label selector');

const podAffinityTerm = z
  .strictObject({
    labelSelector: labelSelector.optional(),
    namespaceSelector: labelSelector.optional().describe('Namespaces the selector applies to'),
    namespaces: z.array(z.string()).optional().describe('Namespaces the selector applies to'),
    topologyKey: z.string().min(1).describe('Node label that defines "the same place"'),
  })
  .describe('Pods to be near (or away from) in a topology domain');

const podAffinity = (what: string) =>
  z
    .strictObject({
      requiredDuringSchedulingIgnoredDuringExecution: z
        .array(podAffinityTerm)
        .optional()
        .describe(`Terms the pod must satisfy (${what})`),
      preferredDuringSchedulingIgnoredDuringExecution: z
        .array(z.strictObject({ weight, podAffinityTerm }))
        .optional()
        .describe(`Terms the pod prefers to satisfy (${what})`),
    })
    .describe(what);

export const affinity = z
  .strictObject({
    nodeAffinity: nodeAffinity.optional(),
    podAffinity: podAffinity('pod affinity').optional(),
    podAntiAffinity: podAffinity('pod anti-affinity').optional(),
  })
  .describe('Kubernetes affinity of the pod');
