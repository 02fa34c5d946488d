/**
 * Pods the Kubernetes tests run on a test node: a dind pod (privileged, tini as PID 1,
 * /var/lib/docker on an emptyDir, the Docker API on :1300 over mutual TLS with a server
 * certificate issued at start for the pod's IP) and an engine-image pod that calls it, plus the
 * TLS material they share and a wait for a pod's phase. Shaped like the pods the runner will
 * render for a build (DESIGN.md: one engine pod and one dind pod per build).
 * @module
 */
import { mkdir, readFile } from 'node:fs/promises';
import type { CoreV1Api, V1Pod, V1Secret } from '@kubernetes/client-node';
import { sleep } from '@sluice/process';
import { KUBE_UNAVAILABLE, stepFailed } from './kube-errors.js';
import { createCa, issueCert } from './openssl-certs.js';

export const DIND_PORT = 1300;
/** The TLS directory inside a client pod made by `clientPod` with a `clientSecretName`. */
export const CLIENT_TLS_DIR = '/etc/sluice/dind-client';

export interface DindTls {
  /** For the dind pod: the CA that issues the daemon's certificate (ca.crt, ca.key). */
  caSecret: V1Secret;
  /** For clients: the CA and a client certificate it signed (ca.crt, client.crt, client.key). */
  clientSecret: V1Secret;
}

/** A fresh CA and client certificate under `dir`, as the two Secrets (named `<name>-ca`, `<name>-client`). */
export async function createDindTls(dir: string, name: string): Promise<DindTls> {
  await mkdir(dir, { recursive: true });
  const ca = await createCa(dir, 'dind-ca', `${name} dind CA`);
  const client = await issueCert(dir, 'client', {
    ca,
    commonName: `${name}-engine`,
    usage: 'client',
  });
  const read = (path: string): Promise<string> => readFile(path, 'utf8');
  const secret = (secretName: string, data: Record<string, string>): V1Secret => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secretName },
    type: 'Opaque',
    stringData: data,
  });
  return {
    caSecret: secret(`${name}-ca`, { 'ca.crt': await read(ca.cert), 'ca.key': await read(ca.key) }),
    clientSecret: secret(`${name}-client`, {
      'ca.crt': await read(ca.cert),
      'client.crt': await read(client.cert),
      'client.key': await read(client.key),
    }),
  };
}

export interface DindPodOptions {
  image: string;
  caSecretName: string;
}

export function dindPod(name: string, options: DindPodOptions): V1Pod {
  const probe = { tcpSocket: { port: DIND_PORT } };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { 'app.kubernetes.io/name': 'sluice-dind' } },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: 'dind',
          image: options.image,
          imagePullPolicy: 'Never',
          // Without it dockerd dies creating its NAT chain.
          securityContext: { privileged: true },
          env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
          ports: [{ name: 'docker', containerPort: DIND_PORT }],
          // Every second while dockerd starts, then every 10 s: a 1 s probe costs 5 % of a core.
          startupProbe: { ...probe, periodSeconds: 1, failureThreshold: 60 },
          readinessProbe: { ...probe, periodSeconds: 10 },
          volumeMounts: [
            // On the container's own overlay filesystem dockerd falls back to the slow vfs driver.
            { name: 'docker', mountPath: '/var/lib/docker' },
            { name: 'ca', mountPath: '/etc/sluice/dind-ca', readOnly: true },
          ],
        },
      ],
      volumes: [
        { name: 'docker', emptyDir: {} },
        { name: 'ca', secret: { secretName: options.caSecretName, defaultMode: 0o400 } },
      ],
    },
  };
}

export interface ClientPodOptions {
  image: string;
  command: string[];
  clientSecretName?: string;
  env?: Record<string, string>;
}

/** A run-to-completion pod; with `clientSecretName`, the dind client TLS files are in CLIENT_TLS_DIR. */
export function clientPod(name: string, options: ClientPodOptions): V1Pod {
  const secret = options.clientSecretName;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'main',
          image: options.image,
          imagePullPolicy: 'Never',
          command: options.command,
          env: Object.entries(options.env ?? {}).map(([key, value]) => ({ name: key, value })),
          volumeMounts:
            secret === undefined
              ? []
              : [{ name: 'tls', mountPath: CLIENT_TLS_DIR, readOnly: true }],
        },
      ],
      volumes: secret === undefined ? [] : [{ name: 'tls', secret: { secretName: secret } }],
    },
  };
}

export interface WaitForPodOptions {
  /** Phases that end the wait, e.g. ['Running'] or ['Succeeded', 'Failed']. */
  phases: readonly string[];
  /** Also require the Ready condition (probes passing). */
  ready?: boolean;
  timeoutMs?: number;
}

/** Polls the pod until it is in one of `phases`; returns it. */
export async function waitForPod(
  core: CoreV1Api,
  namespace: string,
  name: string,
  options: WaitForPodOptions,
): Promise<V1Pod> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last: V1Pod | undefined;
  while (Date.now() < deadline) {
    last = await core.readNamespacedPod({ name, namespace });
    const phase = last.status?.phase ?? '';
    const ready =
      last.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    if (options.phases.includes(phase) && (options.ready !== true || ready)) return last;
    if (phase === 'Failed' && !options.phases.includes('Failed')) break;
    await sleep(200);
  }
  throw stepFailed(
    KUBE_UNAVAILABLE,
    `Waiting for pod ${namespace}/${name}`,
    `reach ${options.phases.join(' or ')}${options.ready ? ' and Ready' : ''}`,
    {
      output: JSON.stringify(last?.status ?? {}, null, 2),
      hint: 'read the kubelet and containerd logs of the cluster (cluster.logPath("kubelet"))',
    },
  );
}
