/**
 * `sluice provisioner`: the volume provisioner of one runtime's StorageClass
 * (`apps/provisioner`), as `charts/sluice-runtime` deploys it. Every variable of
 * `provisionerEnv` is a flag too; an invalid configuration lists every problem before anything
 * starts. Runs until SIGINT/SIGTERM, then gives up its lease so a standby takes over at once.
 * @module
 */
import { provisionerEnv, variableMeta } from '@sluice/config';
import { KubeClient, KubeResources } from '@sluice/kube';
import { createLogger } from '@sluice/log';
import { parseProvisionerConfig, VolumeProvisioner } from '@sluice/provisioner';
import type { ProvisionerFlags } from '@sluice/provisioner';
import type { Terminal } from '../ui/terminal.js';
import { optionKey } from './provisioner-options.js';
import { waitForStopSignal } from './stop-signal.js';

type Name = keyof typeof provisionerEnv;

export async function provisionerCommand(
  term: Terminal,
  opts: Record<string, string | undefined>,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const flags: ProvisionerFlags = {};
  for (const [name, schema] of Object.entries(provisionerEnv) as [
    Name,
    (typeof provisionerEnv)[Name],
  ][]) {
    const flag = variableMeta(schema).flag;
    const value = flag === undefined ? undefined : opts[optionKey(flag)];
    if (value !== undefined) flags[name] = value;
  }
  const config = parseProvisionerConfig(flags, env);
  const log = createLogger({ level: 'info' });
  const resources = new KubeResources(KubeClient.create({ source: config.source, env }));
  const provisioner = new VolumeProvisioner({
    resources,
    log,
    provisionerName: config.provisionerName,
    storageClass: config.storageClass,
    namespace: config.namespace,
    volumeParentDir: config.volumeParentDir,
    identity: config.identity,
    resyncMs: config.resyncMs,
    leaseDurationMs: config.leaseDurationMs,
  });
  const stop = new AbortController();
  log.info('volume provisioner started', {
    storageClass: config.storageClass,
    namespace: config.namespace,
    identity: config.identity,
  });
  const running = provisioner.run(stop.signal);
  const signal = await waitForStopSignal(running);
  stop.abort();
  await running;
  term.err(`Provisioner stopped (${signal})`);
  return 0;
}
