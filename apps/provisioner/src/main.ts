/**
 * The provisioner's processes (composed by the CLI: `@sluice/provisioner/main`): `sluice
 * provisioner`, the volume provisioner of one runtime's StorageClass, and `sluice volume-agent`,
 * its agent on each node, as `charts/sluice-runtime` deploys them. Every variable of their
 * schemas is a flag too (the CLI passes the flags given under their variables' names); an
 * invalid configuration lists every problem before anything starts. Both run until
 * SIGINT/SIGTERM; the provisioner then gives up its lease so a standby takes over at once.
 * @module
 */
import { KubeClient, KubeResources } from '@sluice/kube';
import { createLogger } from '@sluice/log';
import { waitForStopSignal } from '@sluice/process';
import { NodeAgent } from './node-agent.js';
import { parseProvisionerConfig, parseVolumeAgentConfig } from './config.js';
import { serveVolumeMetrics, VolumeMetrics } from './volume-metrics.js';
import { VolumeProvisioner } from './volume-provisioner.js';

export interface ProvisionerMainOptions {
  /** Where the process says it stopped: the CLI's terminal. */
  output: { err(text: string): void };
  /** The flags given, under their variables' names (they win over the environment). */
  flags: Record<string, string>;
}

/** Runs the volume provisioner until SIGINT or SIGTERM; the exit code. */
export async function provisionerMain(options: ProvisionerMainOptions): Promise<number> {
  const env = process.env;
  const config = parseProvisionerConfig(options.flags, env);
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
  return runUntilStopped(options.output, 'Provisioner', (signal) => provisioner.run(signal));
}

/** Runs the volume agent of one node until SIGINT or SIGTERM; the exit code. */
export async function volumeAgentMain(options: ProvisionerMainOptions): Promise<number> {
  const env = process.env;
  const config = parseVolumeAgentConfig(options.flags, env);
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
    return await runUntilStopped(options.output, 'Volume agent', (signal) =>
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
  output: ProvisionerMainOptions['output'],
  what: string,
  run: (signal: AbortSignal) => Promise<void>,
): Promise<number> {
  const stop = new AbortController();
  const running = run(stop.signal);
  const signal = await waitForStopSignal(process.env, running);
  stop.abort();
  await running;
  output.err(`${what} stopped (${signal})`);
  return 0;
}
