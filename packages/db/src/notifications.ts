/**
 * Wake-ups for long-polls: `notify` sends a PostgreSQL NOTIFY through any executor (inside a
 * transaction it is delivered only if and when that transaction commits), and
 * `ChannelRegistry` keeps the handlers that `Database.subscribe` registers, issuing LISTEN for a
 * channel's first handler and UNLISTEN after its last, one at a time.
 * @module
 */
import { sql } from 'kysely';
import { InternalError } from '@sluice/errors';
import type { DbLogger, Executor, NotificationHandler, Unsubscribe } from './database.js';

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

export interface NotifyOptions {
  /** Up to about 8000 bytes; PostgreSQL rejects longer payloads. */
  payload?: string;
}

/**
 * Sends NOTIFY on `channel`. Pass the transaction (`trx`) to tie the wake-up to its commit:
 * listeners hear nothing if it rolls back, and nothing before the rows they will read exist.
 */
export async function notify(
  executor: Executor,
  channel: string,
  options: NotifyOptions = {},
): Promise<void> {
  checkChannel(channel);
  await sql`select pg_notify(${channel}, ${options.payload ?? ''})`.execute(executor);
}

/** Channel names are chosen by our code, so a bad one is our bug. */
export function checkChannel(channel: string): string {
  if (!CHANNEL.test(channel)) {
    throw new InternalError(
      'SLUICE_DB_CHANNEL_INVALID',
      `Notification channel ${JSON.stringify(channel)} must match [a-z_][a-z0-9_]* (at most 63 characters)`,
    );
  }
  return channel;
}

export interface ChannelOps {
  listen(channel: string): Promise<void>;
  unlisten(channel: string): Promise<void>;
}

export class ChannelRegistry {
  readonly #handlers = new Map<string, Set<NotificationHandler>>();
  readonly #listening = new Set<string>();
  readonly #ops: ChannelOps;
  readonly #logger: DbLogger | undefined;
  #queue: Promise<void> = Promise.resolve();

  constructor(ops: ChannelOps, logger: DbLogger | undefined) {
    this.#ops = ops;
    this.#logger = logger;
  }

  async add(channel: string, handler: NotificationHandler): Promise<Unsubscribe> {
    checkChannel(channel);
    const set = this.#handlers.get(channel) ?? new Set();
    this.#handlers.set(channel, set);
    // A wrapper per call, so subscribing one function twice gives two subscriptions.
    const entry: NotificationHandler = (payload) => handler(payload);
    set.add(entry);
    try {
      await this.#sync(channel);
    } catch (err) {
      set.delete(entry);
      throw err;
    }
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      set.delete(entry);
      await this.#sync(channel);
    };
  }

  dispatch(channel: string, payload: string): void {
    for (const handler of [...(this.#handlers.get(channel) ?? [])]) {
      try {
        handler(payload);
      } catch (err) {
        this.#logger?.warn('notification handler failed', { channel, error: String(err) });
      }
    }
  }

  /** Channels currently LISTENed, to re-issue after a reconnect. */
  listening(): string[] {
    return [...this.#listening];
  }

  clear(): void {
    this.#handlers.clear();
    this.#listening.clear();
  }

  /** Makes LISTEN state match the handlers; queued so LISTEN and UNLISTEN never interleave. */
  #sync(channel: string): Promise<void> {
    const run = async (): Promise<void> => {
      const wanted = (this.#handlers.get(channel)?.size ?? 0) > 0;
      if (wanted && !this.#listening.has(channel)) {
        await this.#ops.listen(channel);
        this.#listening.add(channel);
      } else if (!wanted && this.#listening.has(channel)) {
        this.#listening.delete(channel);
        this.#handlers.delete(channel);
        await this.#ops.unlisten(channel);
      }
    };
    const next = this.#queue.then(run);
    this.#queue = next.catch(() => undefined);
    return next;
  }
}
