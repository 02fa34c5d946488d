/**
 * The agent's side of handing a build to a pool pod's engine: the build's engine variables,
 * resolved from its engine pod's manifest and the Secrets it names, in one POST to the pod's
 * handover port with the pod's own key (from its Secret) as a bearer token, so that nothing else
 * on the pod network can give a waiting engine a build. The port speaks TLS with a certificate
 * made for that pod alone (`handoverCertificate`, when the agent makes the pod), signed by a CA
 * whose key is thrown away once it has signed: the agent trusts only that CA for that pod, so
 * nothing else on the pod network can read the build's variables or pose as the pod. The
 * engine answers 204 and runs the build; the pod is then annotated, so a task applied again
 * does not hand it over twice.
 * @module
 */
import { request } from 'node:https';
import { createCertificateAuthority, issueServerCertificate } from '@sluice/pki';
import type { KubeClient } from '@sluice/kube';
import type { Logger } from '@sluice/log';
import { secretValues } from './warm-pool-memory.js';
import { handoverEnv, HANDOVER_PORT, POOL_SECRET_KEYS } from './warm-pool-shape.js';

/** Set on a taken pod once its engine has its build. */
const HANDED_OVER_ANNOTATION = 'sluice.io/warm-pool-handed-over';

/** What the handover reads of the pool pod. */
export interface HandoverPod {
  metadata: { name: string; annotations?: Record<string, string> };
  status?: { podIP?: string };
}

/** Whether the pod's engine already took its build. */
export function handedOver(pod: HandoverPod): boolean {
  return pod.metadata.annotations?.[HANDED_OVER_ANNOTATION] === 'true';
}

/** @throws Error when the pod has no address or key, or its engine does not take the build. */
export async function handOverBuild(
  kube: KubeClient,
  options: {
    namespace: string;
    logger: Logger;
    pod: HandoverPod;
    enginePod: Record<string, unknown>;
    /** A Secret's values as the agent made it, if it knows them: not read again. */
    known?: (name: string) => Record<string, string> | undefined;
  },
  signal?: AbortSignal,
): Promise<void> {
  const { namespace, pod, enginePod } = options;
  const name = pod.metadata.name;
  const address = pod.status?.podIP;
  if (address === undefined) throw new Error(`Pool pod ${name} has no address`);
  // Read side by side (those the agent made are known): they stand between the take and the
  // build's start.
  const names = [...new Set([name, ...secretRefs(enginePod)])];
  const secrets = new Map(
    await Promise.all(
      names.map(
        async (secret) =>
          [
            secret,
            options.known?.(secret) ?? (await secretData(kube, namespace, secret, signal)),
          ] as const,
      ),
    ),
  );
  const own = secrets.get(name);
  const key = own?.[POOL_SECRET_KEYS.handoverKey];
  if (key === undefined) throw new Error(`Pool pod ${name} has no handover key`);
  const ca = own?.[POOL_SECRET_KEYS.tlsCa];
  if (ca === undefined) throw new Error(`Pool pod ${name} has no handover certificate`);
  const { env, unresolved } = handoverEnv(enginePod, name, (s, k) => secrets.get(s)?.[k]);
  if (unresolved.length > 0)
    options.logger.warn('engine variables not handed to a pool pod', {
      pod: name,
      variables: unresolved,
    });
  await postHandover({ address, port: HANDOVER_PORT, key, ca, name }, env, signal);
  await kube.request(
    'patch',
    { kind: 'Pod', namespace, name },
    {
      method: 'PATCH',
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`,
      body: JSON.stringify({ metadata: { annotations: { [HANDED_OVER_ANNOTATION]: 'true' } } }),
      contentType: 'application/merge-patch+json',
    },
    { signal },
  );
}

/** The Secrets an engine pod's variables name. */
function secretRefs(enginePod: Record<string, unknown>): string[] {
  const spec = (enginePod['spec'] ?? {}) as { containers?: { env?: { valueFrom?: unknown }[] }[] };
  return (spec.containers?.[0]?.env ?? []).flatMap((entry) => {
    const name = (entry.valueFrom as { secretKeyRef?: { name?: string } } | undefined)?.secretKeyRef
      ?.name;
    return name === undefined ? [] : [name];
  });
}

async function secretData(
  kube: KubeClient,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<Record<string, string>> {
  const secret = await kube.request<{ data?: Record<string, string> }>(
    'read',
    { kind: 'Secret', namespace, name },
    {
      method: 'GET',
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`,
    },
    { signal },
  );
  return secretValues({ data: secret?.data }) ?? {};
}

/** A pod that does not answer in this time is given up on: the build is retried elsewhere. */
const HANDOVER_TIMEOUT_MS = 10_000;

/** Long enough for any pool pod's life: an idle pool keeps its minimum for as long as it runs. */
const CERTIFICATE_DAYS = 3650;

/**
 * A pool pod's handover TLS: a server certificate for the pod's name, signed by a CA made for
 * it alone, whose key is not kept. The agent trusts `caPem` for that pod's handover only.
 */
export async function handoverCertificate(
  pod: string,
): Promise<{ caPem: string; certPem: string; keyPem: string }> {
  const ca = await createCertificateAuthority({
    commonName: `sluice warm pool ${pod}`.slice(0, 64),
    validityDays: CERTIFICATE_DAYS,
  });
  const server = await issueServerCertificate(ca, {
    commonName: pod.slice(0, 64),
    dnsNames: [pod],
    validityDays: CERTIFICATE_DAYS,
  });
  return { caPem: ca.certPem, certPem: server.certPem, keyPem: server.keyPem };
}

interface HandoverTarget {
  address: string;
  port: number;
  key: string;
  /** The CA of the pod's certificate, and the pod's name, which the certificate names. */
  ca: string;
  name: string;
}

/** @throws Error naming the pod's answer (or its silence) when the engine did not take it. */
function postHandover(
  target: HandoverTarget,
  env: Record<string, string>,
  signal?: AbortSignal,
): Promise<void> {
  const body = JSON.stringify({ type: 'build', env });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.address,
        port: target.port,
        method: 'POST',
        path: '/handover',
        ca: target.ca,
        servername: target.name,
        headers: {
          authorization: `Bearer ${target.key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        timeout: HANDOVER_TIMEOUT_MS,
        ...(signal === undefined ? {} : { signal }),
      },
      (res) => {
        res.resume();
        if (res.statusCode === 204) resolve();
        else
          reject(
            new Error(
              `The pool pod's engine at ${target.address}:${target.port} answered HTTP ${String(res.statusCode)}`,
            ),
          );
      },
    );
    req.on('timeout', () =>
      req.destroy(
        new Error(
          `The pool pod's engine at ${target.address}:${target.port} did not answer in ${HANDOVER_TIMEOUT_MS / 1000} s`,
        ),
      ),
    );
    req.on('error', reject);
    req.end(body);
  });
}
