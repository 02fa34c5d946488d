/**
 * Fields the engine pod (`runtimeScheduler`) and the dind pod (`dockerDaemonScheduler`) share:
 * where the pod runs (`cluster`, affinity, tolerations, scheduler) and how it is labelled, plus
 * the URL and proxy field shapes used at the top level.
 * @module
 */
import { z } from 'zod';
import type { RefinementCtx } from 'zod';
import { typeName } from '../describe-value.js';
import { affinity } from './kube-affinity.js';
import { dnsConfig, dnsPolicy, toleration } from './kube-core.js';
import { annotationMap, labelMap, namespaceName, objectName } from './kube-names.js';

export const cluster = z
  .strictObject({
    namespace: namespaceName.optional().describe('Namespace the pod is created in'),
    serviceAccount: objectName.optional().describe('Service account the pod runs as'),
    inCluster: z
      .boolean()
      .optional()
      .describe('The agent reaches the cluster it runs in with its own service account'),
    nodeSelector: labelMap.optional().describe('Node labels the pod must land on'),
    kubeContext: z
      .string()
      .min(1)
      .optional()
      .describe('Context of the agent kubeconfig, when the agent runs outside the cluster'),
  })
  .superRefine((c, ctx) => {
    if (c.inCluster !== true || c.kubeContext === undefined) return;
    const message = `"kubeContext" ${JSON.stringify(c.kubeContext)} cannot be used with "inCluster: true"; keep one`;
    ctx.addIssue({ code: 'custom', path: ['kubeContext'], input: c.kubeContext, message });
  })
  .describe('The Kubernetes cluster and namespace the pod runs in');

/** Placement and metadata fields of a pod, spread into both scheduler objects. */
export const podFields = {
  cluster: cluster.optional(),
  affinity: affinity.optional(),
  tolerations: z.array(toleration).optional().describe('Taints the pod tolerates'),
  annotations: annotationMap.optional().describe('Annotations added to the pod'),
  labels: labelMap.optional().describe('Labels added to the pod'),
  schedulerName: z.string().min(1).optional().describe('Kubernetes scheduler to place the pod'),
  terminationGracePeriodSeconds: z
    .int()
    .min(0)
    .optional()
    .describe('Seconds between SIGTERM and SIGKILL when the pod is deleted'),
  dnsPolicy: dnsPolicy.optional(),
  dnsConfig: dnsConfig.optional(),
};

/** Kubernetes rejects `dnsPolicy: None` without nameservers; say so before it does. */
export function checkDns(
  pod: { dnsPolicy?: string | undefined; dnsConfig?: { nameservers?: string[] | undefined } },
  ctx: RefinementCtx,
): void {
  if (pod.dnsPolicy !== 'None' || (pod.dnsConfig?.nameservers?.length ?? 0) > 0) return;
  ctx.addIssue({
    code: 'custom',
    path: ['dnsPolicy'],
    input: pod.dnsPolicy,
    message: '"dnsPolicy" "None" needs at least one nameserver in "dnsConfig.nameservers"',
  });
}

/** An http:// or https:// URL. */
export const httpUrl = z.url({
  protocol: /^https?$/,
  error: (issue) => `must be an http:// or https:// URL, got ${typeName(issue.input)}`,
});

/** `a,b` or `[a, b]`, kept as a list. */
const hostList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (typeof v === 'string' ? v.split(',') : v).map((h) => h.trim()))
  .transform((hosts) => hosts.filter((h) => h !== ''));

export const proxy = z
  .strictObject({
    httpProxy: httpUrl.optional().describe('Proxy for http:// requests (HTTP_PROXY)'),
    httpsProxy: httpUrl.optional().describe('Proxy for https:// requests (HTTPS_PROXY)'),
    noProxy: hostList
      .optional()
      .describe('Hosts, domains and CIDRs reached directly (NO_PROXY); a list or comma text'),
  })
  .describe(
    'Outbound proxy, set as HTTP_PROXY, HTTPS_PROXY and NO_PROXY on the engine, dind and steps',
  );
