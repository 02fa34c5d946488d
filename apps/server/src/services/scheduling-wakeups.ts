/**
 * Scheduling driven by the writes themselves. The build store announces, in the transaction of
 * every write that changes an account's places under its limits (a new pending build, a build
 * that ended), a wake-up on `sluice_schedule` keyed `<accountId> <write id>`. Every server
 * process sharing the database hears it after the commit and runs a pass for the account
 * (passes are coalesced per account, and one advisory lock per account keeps them apart), so a
 * new writer cannot forget to schedule. A request that answers with what the pass did (a new
 * build is `elected` in its answer) waits for the pass its own wake-up started (`settled`).
 * @module
 */
import { randomUUID } from 'node:crypto';
import { withTransaction } from '@sluice/db';
import type { Executor, Schema, Transaction } from '@sluice/db';
import type { Logger } from '@sluice/log';
import { CHANNELS } from './pg-notify.js';
import type { Signals } from './pg-notify.js';

/** How long `settled` waits to hear a wake-up before it runs the pass itself (a lost listener). */
const HEARD_WITHIN_MS = 2_000;
/** Passes kept for a `settled` that has not come yet; older ones are forgotten (never waited). */
const KEPT_PASSES = 1_000;

export class SchedulingWakeups {
  readonly #signals: Signals;
  readonly #log: Logger;
  #pass: (accountId: string) => Promise<void> = () => Promise.resolve();
  /** The pass each wake-up started, by its key, until `settled` takes it. */
  readonly #passes = new Map<string, Promise<void>>();
  /** This transaction's wake-up per account: one per account however many writes. */
  readonly #announced = new WeakMap<object, Map<string, string>>();

  constructor(signals: Signals, log: Logger) {
    this.#signals = signals;
    this.#log = log;
  }

  /** Runs `pass(accountId)` for every wake-up heard from now on; returns the undo. */
  drive(pass: (accountId: string) => Promise<void>): () => void {
    this.#pass = pass;
    return this.#signals.listen(CHANNELS.schedule, (key) => this.#heard(key));
  }

  /** Announces a pass for the account when `executor`'s transaction commits; its key. */
  async announce(executor: Executor, accountId: string): Promise<string> {
    const keys = this.#announced.get(executor) ?? new Map<string, string>();
    this.#announced.set(executor, keys);
    const known = keys.get(accountId);
    if (known !== undefined) return known;
    const key = wakeUpKey(accountId);
    keys.set(accountId, key);
    await this.#signals.publish(executor, CHANNELS.schedule, key);
    return key;
  }

  /**
   * The wake-up for a write made in one statement of its own (no transaction to announce in):
   * the statement selects `pg_notify(channel, key)`; `settled([key])` after it.
   */
  statementWakeUp(accountId: string): { channel: string; key: string } {
    return { channel: CHANNELS.schedule, key: wakeUpKey(accountId) };
  }

  /** The keys announced in `executor`'s transaction so far. */
  announced(executor: Executor): string[] {
    return [...(this.#announced.get(executor)?.values() ?? [])];
  }

  /**
   * Runs `fn` in a transaction of `executor`, then waits for the passes its announced wake-ups
   * started. With `translateErrors`, database errors come out as Sluice errors.
   */
  async transaction<T>(
    executor: Executor,
    fn: (trx: Transaction<Schema>) => Promise<T>,
    options: { translateErrors?: boolean } = {},
  ): Promise<T> {
    let keys: string[] = [];
    const body = async (trx: Transaction<Schema>) => {
      const value = await fn(trx);
      keys = this.announced(trx);
      return value;
    };
    const result = options.translateErrors
      ? await withTransaction(executor, body)
      : await executor.transaction().execute(body);
    await this.settled(keys);
    return result;
  }

  /** Resolves when the passes the committed wake-ups `keys` started have run. */
  async settled(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      await this.#signals.wait(CHANNELS.schedule, key, HEARD_WITHIN_MS, { since: 0 });
      const pass = this.#passes.get(key);
      this.#passes.delete(key);
      await (pass ?? this.#pass(accountOf(key)));
    }
  }

  #heard(key: string): void {
    const pass = this.#pass(accountOf(key));
    pass.catch((err: unknown) => this.#log.warn('scheduling pass failed', { error: String(err) }));
    this.#passes.set(key, pass);
    if (this.#passes.size > KEPT_PASSES) this.#passes.delete(this.#passes.keys().next().value!);
  }
}

function wakeUpKey(accountId: string): string {
  return `${accountId} ${randomUUID()}`;
}

function accountOf(key: string): string {
  return key.slice(0, key.lastIndexOf(' '));
}
