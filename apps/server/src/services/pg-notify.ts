/**
 * Wake-ups for long-polls: a change is announced with `pg_notify` inside the transaction that
 * makes it (so it is delivered only after commit, and to every server process sharing the
 * database), and waiters in this process are woken by key. A wake-up is a hint: waiters re-read
 * the database, and always time out. A reader takes the key's `generation` before it reads and
 * passes it to `wait`: a wake-up that arrived in between then returns at once instead of being
 * lost (a task would otherwise wait for the next re-check). A listener (`listen`) hears every key
 * of a channel: the scheduler's passes are driven that way (`scheduling-wakeups.ts`).
 * @module
 */
import { notify } from '@sluice/db';
import type { Database, Executor } from '@sluice/db';

export const CHANNELS = {
  tasks: 'sluice_tasks',
  logs: 'sluice_logs',
  control: 'sluice_control',
  builds: 'sluice_builds',
  /** A build's place under the concurrency limits changed (`<accountId> <write id>`). */
  schedule: 'sluice_schedule',
  /** An account's registered step types changed (`<accountId>`): each server parses them then. */
  stepTypes: 'sluice_step_types',
} as const;
export type Channel = (typeof CHANNELS)[keyof typeof CHANNELS];

export class Signals {
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #unsubscribes: (() => Promise<void>)[] = [];
  readonly #listeners = new Map<Channel, Set<(key: string) => void>>();
  /** Last wake-up per key, bounded: a forgotten key only causes one extra re-read. */
  readonly #generations = new Map<string, number>();
  #counter = 0;

  private constructor() {}

  static async create(database: Database): Promise<Signals> {
    const signals = new Signals();
    for (const channel of Object.values(CHANNELS)) {
      signals.#unsubscribes.push(
        await database.subscribe(channel, (key) => signals.#wake(channel, key)),
      );
    }
    return signals;
  }

  /** Announces `key` on `channel` when `executor`'s transaction commits. */
  async publish(executor: Executor, channel: Channel, key: string): Promise<void> {
    await notify(executor, channel, { payload: key });
  }

  /** Changes whenever `key` is woken; take it before reading, pass it to `wait`. */
  generation(channel: Channel, key: string): number {
    return this.#generations.get(`${channel}:${key}`) ?? 0;
  }

  /**
   * Resolves on a wake-up for `key`, after `timeoutMs`, or when `signal` aborts; at once when
   * `since` (a `generation`) is already out of date.
   */
  wait(
    channel: Channel,
    key: string,
    timeoutMs: number,
    options: { signal?: AbortSignal; since?: number } = {},
  ): Promise<void> {
    const slot = `${channel}:${key}`;
    if (options.since !== undefined && (this.#generations.get(slot) ?? 0) !== options.since)
      return Promise.resolve();
    const { signal } = options;
    return new Promise((resolve) => {
      const set = this.#waiters.get(slot) ?? new Set();
      this.#waiters.set(slot, set);
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0) this.#waiters.delete(slot);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal?.addEventListener('abort', done, { once: true });
      set.add(done);
    });
  }

  /** Calls `listener` with every key woken on `channel`, before its waiters; returns the undo. */
  listen(channel: Channel, listener: (key: string) => void): () => void {
    const set = this.#listeners.get(channel) ?? new Set();
    this.#listeners.set(channel, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  #wake(channel: Channel, key: string): void {
    for (const listener of [...(this.#listeners.get(channel) ?? [])]) listener(key);
    const slot = `${channel}:${key}`;
    this.#generations.delete(slot);
    this.#generations.set(slot, ++this.#counter);
    if (this.#generations.size > 10_000)
      this.#generations.delete(this.#generations.keys().next().value ?? slot);
    for (const done of [...(this.#waiters.get(slot) ?? [])]) done();
  }

  async close(): Promise<void> {
    for (const unsubscribe of this.#unsubscribes) await unsubscribe();
    for (const set of this.#waiters.values()) for (const done of [...set]) done();
  }
}
