/**
 * For clusters without working DNS (the test cluster has no CoreDNS; broken cluster DNS is a
 * common cause of stuck builds): before an engine pod is created, wait for its dind pod's IP
 * and give the engine pod a `hostAliases` entry for the dind host name it dials, so the
 * engine's TLS check of that name still holds. Off unless the runtime is configured with it
 * (`--dind-host-alias`); with DNS, the engine resolves the name through the headless Service.
 * @module
 */
import { classifyKubeError } from '@sluice/kube';
import type { KubeClient, KubeManifest } from '@sluice/kube';
import { sleep } from '@sluice/process';
import { TaskFailure } from '../../runtime-backend.js';

const FIRST_POLL_MS = 100;
const LAST_POLL_MS = 200;

interface EngineContainer {
  env?: { name: string; value?: string }[];
}

/** The dind pod an engine pod belongs with, and the host name it dials, or undefined. */
function dindOfEnginePod(manifest: KubeManifest): { pod: string; host: string } | undefined {
  if (manifest.kind !== 'Pod') return undefined;
  const spec = manifest.spec as { containers?: EngineContainer[] } | undefined;
  const env = spec?.containers?.[0]?.env ?? [];
  const value = (name: string) => env.find((e) => e.name === name)?.value;
  const pod = value('SLUICE_DIND_POD');
  const host = /^tcp:\/\/([^:/]+)/.exec(value('DOCKER_HOST') ?? '')?.[1];
  return pod === undefined || host === undefined ? undefined : { pod, host };
}

/**
 * The manifest with the alias added, once the dind pod has an IP. Polled every 100 ms at first
 * (the IP comes with the pod's sandbox, about a second after creation, and every poll interval
 * of delay is the build's), then less often, up to every 200 ms (one small read), for a pod that
 * waits longer.
 */
export async function withDindHostAlias(
  kube: KubeClient,
  manifest: KubeManifest,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<KubeManifest> {
  const dind = dindOfEnginePod(manifest);
  if (dind === undefined) return manifest;
  const namespace = manifest.metadata.namespace;
  const deadline = Date.now() + options.timeoutMs;
  for (let interval = FIRST_POLL_MS; ; interval = Math.min(interval * 1.25, LAST_POLL_MS)) {
    let ip: string | undefined;
    try {
      ip = await kube.podAddress({ namespace, name: dind.pod }, { signal: options.signal });
    } catch (err) {
      const { outcome, reason } = classifyKubeError(err, 'read');
      throw new TaskFailure(`Reading dind pod ${dind.pod}: ${reason}`, {
        retriable: outcome !== 'fail',
        cause: err,
      });
    }
    if (ip !== undefined) {
      const spec = manifest.spec as Record<string, unknown>;
      const aliases = (spec.hostAliases as unknown[] | undefined) ?? [];
      return {
        ...manifest,
        spec: { ...spec, hostAliases: [...aliases, { ip, hostnames: [dind.host] }] },
      };
    }
    if (Date.now() > deadline || options.signal.aborted)
      throw new TaskFailure(
        `dind pod ${namespace}/${dind.pod} has no IP after ${Math.round(options.timeoutMs / 1000)} s (not scheduled?); the engine pod waits for it`,
        { retriable: true },
      );
    await sleep(interval, options.signal);
  }
}
