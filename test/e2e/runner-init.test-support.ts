/**
 * What the `sluice runner init|upgrade|attach|delete` kube tests share: a control plane the
 * cluster's pods reach (on the pod network's gateway), the flags of a test install (this
 * cluster, images already on the node, small pods, no registry), and ways to read what an
 * install left. runner-init-plan.kube.test.ts plans and refuses; runner-init.kube.test.ts
 * installs, upgrades, attaches and deletes.
 * @module
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { KubeClient, KubeResources } from '@sluice/kube';
import { createNamespace } from '@sluice/kube/testing';
import type { SluiceClient } from '@sluice/protocol';
import { makeTempDir } from '@sluice/testkit';
import type { KubernetesCluster, TempDir } from '@sluice/testkit';
import { seededDataDir } from './cli-harness.js';
import {
  ADMIN_TOKEN,
  prepareBuildCluster,
  startControlPlane,
  TEST_STORAGE_CLASS,
} from './cluster-fixture.js';
import type { ControlPlane } from './cluster-fixture.js';

export const RUNTIME = 'cluster/init';
export const AGENT = 'init-agent';
const INSTALL_KINDS = ['Deployment', 'Secret', 'ServiceAccount', 'Role', 'RoleBinding'];

export interface InitContext {
  cluster: KubernetesCluster;
  temp: TempDir;
  plane: ControlPlane;
  admin: SluiceClient;
  kube: KubeResources;
  /** The control plane as pods reach it. */
  controlPlaneUrl: string;
  /** A partial runtime spec: images on the node, small pods. */
  specFile: string;
}

/** The control plane, the file's StorageClass and `namespaces` made; the test install's spec. */
export async function setUpInit(
  cluster: KubernetesCluster,
  prefix: string,
  namespaces: string[],
): Promise<InitContext> {
  const temp = await makeTempDir(prefix);
  await prepareBuildCluster(cluster.kubeConfig);
  const gateway = (cluster.podSubnet ?? '').replace(/\.0\/24$/, '.1');
  const plane = await startControlPlane({
    database: { dataDir: await seededDataDir(join(temp.path, 'data')) },
    logPath: join(temp.path, 'server.log'),
  });
  const kube = new KubeResources(
    KubeClient.create({ source: { type: 'kubeconfig', path: cluster.kubeconfigPath } }),
  );
  for (const namespace of namespaces) await createNamespace(cluster, namespace);
  // What only this test cluster needs: the images on the node, small pods. No registry: the
  // runtime's images are the defaults init derives (sluice/engine:1, sluice/dind:1), and the
  // engine carries the step image onto each new volume.
  const specFile = join(temp.path, 'runtime-spec.yaml');
  writeFileSync(
    specFile,
    JSON.stringify({
      runtimeScheduler: {
        imagePullPolicy: 'Never',
        resources: { requests: { cpu: '50m', memory: '64Mi' } },
        terminationGracePeriodSeconds: 10,
      },
      dockerDaemonScheduler: {
        imagePullPolicy: 'Never',
        defaultDindResources: { requests: { cpu: '100m', memory: '128Mi' } },
        terminationGracePeriodSeconds: 10,
        pvcs: { dind: { volumeSize: '1Gi' } },
      },
    }),
  );
  return {
    cluster,
    temp,
    plane,
    admin: plane.admin,
    kube,
    controlPlaneUrl: `http://${gateway}:${plane.port}`,
    specFile,
  };
}

export async function tearDownInit(ctx: InitContext | undefined): Promise<void> {
  await ctx?.plane.stop();
  await ctx?.temp.cleanup();
}

/** The flags every run shares: this cluster, this control plane, what the test cluster needs. */
export function baseArgs(ctx: InitContext, namespace: string): string[] {
  return [
    '--kubeconfig',
    ctx.cluster.kubeconfigPath,
    '--namespace',
    namespace,
    '--agent-name',
    AGENT,
    '--set-value',
    'runtime.dindHostAlias=true',
    '--set-value',
    'agent.image.pullPolicy=Never',
    '--runtime-spec',
    ctx.specFile,
    '--test-image',
    'sluice/busybox:1',
  ];
}

/** Answers for what the wizard asks, as flags. */
export function answerArgs(ctx: InitContext): string[] {
  return [
    '--runtime',
    RUNTIME,
    '--control-plane-url',
    ctx.controlPlaneUrl,
    '--storage-class',
    TEST_STORAGE_CLASS,
    '--build-node-selector',
    'kubernetes.io/os=linux',
    '--build-toleration',
    'sluice.io/builds=true:NoSchedule',
    '--no-set-default',
    '--test-pipeline',
  ];
}

/** The CLI's environment: this control plane, no proxy. */
export function initEnv(ctx: InitContext): NodeJS.ProcessEnv {
  return {
    SLUICE_SERVER: ctx.plane.url,
    SLUICE_TOKEN: ADMIN_TOKEN,
    SLUICE_CONFIG: join(ctx.temp.path, 'cfg'),
    HTTPS_PROXY: '',
    HTTP_PROXY: '',
  };
}

/** The files of a `--dry-run` directory, by name. */
export function manifests(dir: string): Map<string, string> {
  return new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

/** Every object of the install kinds in a namespace, as `Kind/name`. */
export async function objectsIn(ctx: InitContext, namespace: string): Promise<string[]> {
  const found: string[] = [];
  for (const kind of INSTALL_KINDS)
    for (const o of await ctx.kube.list({ kind, namespace }))
      if (!(kind === 'Secret' && o['type'] === 'kubernetes.io/service-account-token'))
        found.push(`${kind}/${o.metadata.name}`);
  return found.sort();
}

/** The admin kubeconfig with a second context, "other", standing for another cluster. */
export function twoContextKubeconfig(ctx: InitContext): { path: string; home: string } {
  const config = parseYaml(readFileSync(ctx.cluster.kubeconfigPath, 'utf8')) as {
    contexts: { name: string; context: Record<string, unknown> }[];
    'current-context': string;
  };
  const [home] = config.contexts;
  assert.ok(home !== undefined);
  config.contexts.push({ name: 'other', context: { ...home.context } });
  const path = join(ctx.temp.path, 'two-contexts.kubeconfig');
  writeFileSync(path, JSON.stringify(config));
  return { path, home: home.name };
}
