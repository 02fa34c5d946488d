/**
 * `sluice provisioner`: the volume provisioner of one runtime's StorageClass, and
 * `sluice volume-agent`: its agent on each node (`apps/provisioner`), as `charts/sluice-runtime`
 * deploys them. Every variable of their schemas is a flag too; an invalid configuration lists
 * every problem before anything starts. Both run until SIGINT/SIGTERM; the provisioner then
 * gives up its lease so a standby takes over at once.
 * @module
 */
import { provisionerEnv, volumeAgentEnv } from '@sluice/config';
import { KubeClient, KubeResources } from '@sluice/kube';
import { createLogger } from '@sluice/log';
import {
  NodeAgent,
  parseProvisionerConfig,
  parseVolumeAgentConfig,
  serveVolumeMetrics,
  VolumeMetrics,
  VolumeProvisioner,
} from '@sluice/provisioner';
import type { Terminal } from '../ui/terminal.js';
import { flagsByVariable } from './provisioner-options.js';
import { waitForStopSignal } from './stop-signal.js';

type Options = Record<string, string | undefined>;

export async function provisionerCommand(
  term: Terminal,
  opts: Options,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const config = parseProvisionerConfig(flagsByVariable(provisionerEnv, opts), env);
  const log = createLogger({ level: 'info' });
  const provisioner = new VolumeProvisioner({
    resources: new KubeResources(KubeClient.create({ source: config.source, env })),
    log,
    provisionerName: config.provisionerName,
    storageClass: config.storageClass,
    namespace: config.namespace,
    identity: config.identity,
    resyncMs: config.resyncMs,
    leaseDurationMs: config.leaseDurationMs,
    retentionDays: config.retentionDays,
    delegateStorageClass: config.delegateStorageClass,
  });
  log.info('volume provisioner started', {
    storageClass: config.storageClass,
    delegate: config.delegateStorageClass || 'none (local volumes)',
    namespace: config.namespace,
    identity: config.identity,
  });
  return runUntilStopped(term, 'Provisioner', (signal) => provisioner.run(signal));
}

export async function volumeAgentCommand(
  term: Terminal,
  opts: Options,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const config = parseVolumeAgentConfig(flagsByVariable(volumeAgentEnv, opts), env);
  const log = createLogger({ level: 'info' });
  const agent = new NodeAgent({
    resources: new KubeResources(KubeClient.create({ source: config.source, env })),
    log,
    nodeName: config.nodeName,
    provisionerName: config.provisionerName,
    storageClass: config.storageClass,
    volumeParentDir: config.volumeParentDir,
    spares: config.spares,
    diskThreshold: config.diskThreshold,
    inodeThreshold: config.inodeThreshold,
    intervalMs: config.intervalMs,
  });
  const metrics = new VolumeMetrics(config.nodeName);
  const http =
    config.metricsPort < 0
      ? undefined
      : await serveVolumeMetrics(metrics, {
          port: config.metricsPort,
          // Three missed passes make the agent unhealthy.
          staleAfterMs: 3 * config.intervalMs + 60_000,
        });
  log.info('volume agent started', {
    node: config.nodeName,
    dir: config.volumeParentDir,
    metrics: http === undefined ? 'off' : `${http.url}/metrics`,
  });
  try {
    return await runUntilStopped(term, 'Volume agent', (signal) =>
      agent.run(signal, {
        passed: (report) => metrics.observe(report),
        failed: () => metrics.failed(),
      }),
    );
  } finally {
    await http?.close();
  }
}

async function runUntilStopped(
  term: Terminal,
  what: string,
  run: (signal: AbortSignal) => Promise<void>,
): Promise<number> {
  const stop = new AbortController();
  const running = run(stop.signal);
  const signal = await waitForStopSignal(running);
  stop.abort();
  await running;
  term.err(`${what} stopped (${signal})`);
  return 0;
}
