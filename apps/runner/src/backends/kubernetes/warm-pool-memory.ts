/**
 * What the agent keeps in memory between a build's take and its handover, so that the build's
 * next tasks do not ask the API server for what the agent itself just wrote: the pod it took
 * (with the claim's label being written meanwhile), and the values of the Secrets it made (the
 * build's, from its task; a pool pod's hand-over key, as the pod was made). Nothing here is
 * needed: after a restart, or once the handover is done, the API server is read as before.
 * @module
 */
import { BUILD_LABELS, labelValue } from '@sluice/labels';
import type { WarmPoolPod } from './warm-pool-api.js';

/** Secrets whose values are kept, the oldest let go first. */
const MAX_SECRETS = 512;

/** A pod a build took: as this agent took it, and its claim's label being written. */
export interface TakenPod {
  pod: WarmPoolPod;
  labelled: Promise<void>;
}

export class HandoverMemory {
  /** Pods this agent took, by build, until their handover. */
  readonly taken = new Map<string, TakenPod>();
  readonly #secrets = new Map<string, Record<string, string>>();

  /** Notes what a Secret manifest holds (`stringData` over `data`); other kinds are ignored. */
  noteSecret(manifest: Record<string, unknown>, namespace: string): void {
    if (manifest['kind'] !== 'Secret') return;
    const metadata = (manifest['metadata'] ?? {}) as { name?: unknown; namespace?: unknown };
    if (typeof metadata.name !== 'string') return;
    const values = secretValues(manifest);
    if (values === undefined) return;
    const where = typeof metadata.namespace === 'string' ? metadata.namespace : namespace;
    this.noteValues(where, metadata.name, values);
  }

  noteValues(namespace: string, name: string, values: Record<string, string>): void {
    const key = `${namespace}/${name}`;
    this.#secrets.delete(key);
    this.#secrets.set(key, values);
    for (const oldest of this.#secrets.keys()) {
      if (this.#secrets.size <= MAX_SECRETS) break;
      this.#secrets.delete(oldest);
    }
  }

  /** Lets a Secret's values go (the Secret is deleted: its build ended, or its pool pod went). */
  forgetSecret(namespace: string, name: string): void {
    this.#secrets.delete(`${namespace}/${name}`);
  }

  /** The values noted for a Secret, if any. */
  secret(namespace: string, name: string): Record<string, string> | undefined {
    return this.#secrets.get(`${namespace}/${name}`);
  }
}

/** A Secret manifest's values (`stringData` over `data`), or undefined when it has none. */
export function secretValues(
  manifest: Record<string, unknown>,
): Record<string, string> | undefined {
  const values: Record<string, string> = {};
  const data = manifest['data'];
  if (data !== null && typeof data === 'object')
    for (const [key, value] of Object.entries(data))
      if (typeof value === 'string') values[key] = Buffer.from(value, 'base64').toString('utf8');
  const strings = manifest['stringData'];
  if (strings !== null && typeof strings === 'object')
    for (const [key, value] of Object.entries(strings))
      if (typeof value === 'string') values[key] = value;
  return Object.keys(values).length === 0 ? undefined : values;
}

/** Whether `pod` is taken by the build (`label`/`states`: the pool's state label and values). */
export function holds(
  pod: WarmPoolPod,
  buildId: string,
  state: { label: string; taken: string },
): boolean {
  const labels = pod.metadata.labels ?? {};
  return (
    labels[state.label] === state.taken && labels[BUILD_LABELS.buildId] === labelValue(buildId)
  );
}
