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
/**
 * Taken pods kept until their handover, the oldest let go first: a build whose next task never
 * came to this agent (another took it, or the build was cancelled) leaves one behind.
 */
const MAX_TAKEN = 256;
/** Builds whose skipped objects are kept at most (a few KiB each), the oldest let go first. */
const MAX_KEPT_BUILDS = 1_000;

/** A pod a build took: as this agent took it, and its claim's label being written. */
export interface TakenPod {
  pod: WarmPoolPod;
  labelled: Promise<void>;
}

export class HandoverMemory {
  /** Pods this agent took, by build, until their handover. */
  readonly #taken = new Map<string, TakenPod>();
  readonly #secrets = new Map<string, Record<string, string>>();

  noteTaken(buildId: string, taken: TakenPod): void {
    setNewest(this.#taken, buildId, taken, MAX_TAKEN);
  }

  /** The pod the build took, as this agent took it, until its handover. */
  taken(buildId: string): TakenPod | undefined {
    return this.#taken.get(buildId);
  }

  /** The build's pod was handed its build, or let go: the API server says what it holds. */
  forgetTaken(buildId: string): void {
    this.#taken.delete(buildId);
  }

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
    setNewest(this.#secrets, `${namespace}/${name}`, values, MAX_SECRETS);
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

/**
 * The objects builds on pool pods did not make (their claim, their dind pod), by build, in
 * order: made after all when a build's pool pod fails it before its handover.
 */
export class SkippedObjects {
  readonly #kept = new Map<string, Record<string, unknown>[]>();

  /** Keeps one of a build's objects, once (by kind and name). */
  keep(buildId: string, manifest: Record<string, unknown>): void {
    const kept = this.#kept.get(buildId) ?? [];
    const name = (manifest['metadata'] as { name?: string } | undefined)?.name;
    const same = (m: Record<string, unknown>) =>
      m['kind'] === manifest['kind'] && (m['metadata'] as { name?: string }).name === name;
    if (kept.some(same)) return;
    // Builds whose end the agent never saw (another agent took it): the oldest are let go.
    setNewest(this.#kept, buildId, [...kept, manifest], MAX_KEPT_BUILDS);
  }

  /** The build's kept objects, of `kind` only when it is given. */
  of(buildId: string, kind?: string): Record<string, unknown>[] {
    const kept = this.#kept.get(buildId) ?? [];
    return kept.filter((manifest) => kind === undefined || manifest['kind'] === kind);
  }

  forget(buildId: string): void {
    this.#kept.delete(buildId);
  }
}

/** Sets `key` as the newest entry of `map`, letting the oldest go beyond `max`. */
function setNewest<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= max) break;
    map.delete(oldest);
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
