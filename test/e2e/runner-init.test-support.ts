/**
 * What the `sluice runner init|upgrade|attach|delete` kube tests share: a control plane the
 * cluster's pods reach (on the pod network's gateway), the flags of a test install (this
 * cluster, images already on the node, small pods, no registry), and ways to read what an
 * install left. runner-init-plan.kube.test.ts plans and refuses; runner-init.kube.test.ts
 * installs, upgrades, attaches and deletes.
 * @module
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { KubeClient, KubeResources } from '@sluice/kube';
import type { ResourceRef } from '@sluice/kube';
import { renderRuntimeInstall } from '@sluice/runtime-spec';
import type { InstallObject } from '@sluice/runtime-spec';
import { createNamespace } from '@sluice/kube/testing';
import type { SluiceClient } from '@sluice/protocol';
import { makeTempDir } from '@sluice/testkit';
import type { KubernetesCluster, TempDir } from '@sluice/testkit';
import { runSluice, SLUICE_BIN } from './cli-harness.js';
import {
  ADMIN_TOKEN,
  buildObjects,
  objectCount,
  prepareBuildCluster,
  startControlPlane,
  TEST_STORAGE_CLASS,
  waitForProbe,
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
    logPath: join(temp.path, 'server.log'),
  });
  const kube = new KubeResources(
    KubeClient.create({ source: { type: 'kubeconfig', path: cluster.kubeconfigPath }, env: {} }),
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

/**
 * Runs `runner init ARGS` at a terminal (tmux), where it asks its questions, and answers each:
 * waits for the question's words on the screen, then sends the keys. Resolves to the whole
 * screen, lines joined, once init has exited 0.
 */
export async function runWizard(
  ctx: InitContext,
  args: string[],
  answers: [question: string, keys: string[]][],
): Promise<string> {
  const session = `sluice-wizard-${process.pid}`;
  const env = Object.entries(initEnv(ctx))
    .map(([k, v]) => `${k}='${v}'`)
    .join(' ');
  const command = `${env} NO_COLOR=1 ${process.execPath} ${SLUICE_BIN} runner init ${args.join(' ')}; echo "exit=$?"; sleep 600`;
  const tmux = (...words: string[]) => spawnSync('tmux', words, { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-t', session, '-S', '-200').stdout;
  assert.equal(
    tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '50', command).status,
    0,
  );
  try {
    for (const [question, keys] of answers) {
      await waitForProbe(
        `the wizard to ask "${question}"`,
        () => Promise.resolve(screen().includes(question)),
        30_000,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\nscreen:\n${screen()}`);
      });
      tmux('send-keys', '-t', session, ...keys);
    }
    await waitForProbe(
      'the wizard to end',
      () => Promise.resolve(screen().includes('exit=')),
      60_000,
    );
    assert.match(screen(), /exit=0/, screen());
    return tmux('capture-pane', '-p', '-J', '-t', session, '-S', '-200').stdout;
  } finally {
    tmux('kill-session', '-t', session);
  }
}

/**
 * Another install of the same (default) release name in a namespace of its own, with warm volumes
 * (cluster-scoped objects and a namespace of its own): its objects as the runtime chart renders
 * them, without the workloads, which are not what delete chooses by.
 */
export async function applyNeighbourInstall(
  ctx: InitContext,
  namespace: string,
): Promise<ResourceRef[]> {
  const objects = renderRuntimeInstall({
    release: 'sluice',
    namespace: namespace,
    values: {
      controlPlane: { url: ctx.controlPlaneUrl },
      runtime: { name: 'cluster/neighbour', namespace: namespace, createNamespace: true },
      agent: { token: 'neighbour' },
      volumes: { enabled: true },
    },
  }).filter((o) => o.kind !== 'Deployment' && o.kind !== 'DaemonSet');
  // Its own namespace, as init makes it (the chart leaves that to `helm --create-namespace`).
  const labels = objects[0]?.metadata.labels ?? {};
  const own: InstallObject = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace, labels },
  };
  const ordered = [own, ...objects];
  for (const object of ordered) await ctx.kube.apply(object);
  return ordered.map((o) => ({
    kind: o.kind,
    name: o.metadata.name,
    namespace: o.metadata.namespace,
  }));
}

/** The warm pool's pods in `namespace`: their names, whether Ready, and their PriorityClass. */
export async function warmPoolPods(
  ctx: InitContext,
  namespace: string,
): Promise<{ name: string; ready: boolean; priorityClass: string }[]> {
  const pods = await ctx.kube.list({
    kind: 'Pod',
    namespace,
    labelSelector: 'sluice.io/warm-pool',
  });
  return pods.map((pod) => {
    const status = pod['status'] as { conditions?: { type: string; status: string }[] } | undefined;
    return {
      name: pod.metadata.name,
      ready: (status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      priorityClass: (pod['spec'] as { priorityClassName?: string }).priorityClassName ?? '',
    };
  });
}

/** Runs the install's test pipeline on `runtime`: it succeeds, and its objects in `namespace` go. */
export async function runTestPipeline(
  ctx: InitContext,
  runtime: string,
  namespace: string,
): Promise<void> {
  const build = await runSluice(['run-pipeline', `runners/${AGENT}-test`, '--runtime', runtime], {
    env: initEnv(ctx),
  });
  assert.equal(build.code, 0, `${build.stdout}\n${build.stderr}`);
  assert.match(build.stdout, new RegExp(`Sluice runner on ${RUNTIME} works`));
  const id = /Build (bld_\w+)/.exec(build.stderr)?.[1] ?? '';
  await waitForProbe(
    `build ${id}'s objects deleted from ${namespace}`,
    async () => objectCount(await buildObjects(ctx.cluster.kubeConfig, namespace, id)) === 0,
  );
}
