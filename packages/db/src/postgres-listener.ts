/**
 * LISTEN on PostgreSQL through one dedicated `pg.Client`, outside the pool: a connection that
 * waits for notifications must not sit in the pool's working set. It connects on the first
 * subscription and, if the connection drops, reconnects with backoff and re-issues LISTEN.
 * Notifications sent while it is down are lost; subscribers treat wake-ups as hints.
 * @module
 */
import pg from 'pg';
import { UnavailableError } from '@sluice/errors';
import { backoffDelay } from '@sluice/process';
import { toDbError } from './db-errors.js';
import type { DbLogger, NotificationHandler, Unsubscribe } from './database.js';
import { ChannelRegistry } from './notifications.js';

const MAX_BACKOFF_MS = 30_000;

export class PostgresListener {
  readonly #url: string;
  readonly #logger: DbLogger | undefined;
  readonly #registry: ChannelRegistry;
  #client: Promise<pg.Client> | undefined;
  /** The connected client, to tell its events from those of a client already replaced. */
  #connected: pg.Client | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  /** Reconnects failed in a row: the next waits backoffDelay of it (0.5 s, doubling). */
  #failures = 0;
  #closed = false;

  constructor(url: string, logger: DbLogger | undefined) {
    this.#url = url;
    this.#logger = logger;
    this.#registry = new ChannelRegistry(
      {
        listen: async (channel) =>
          void (await (await this.#connect()).query(`LISTEN "${channel}"`)),
        unlisten: async (channel) => {
          const client = await this.#client?.catch(() => undefined);
          await client?.query(`UNLISTEN "${channel}"`).catch(() => undefined);
        },
      },
      logger,
    );
  }

  subscribe(channel: string, handler: NotificationHandler): Promise<Unsubscribe> {
    return this.#registry.add(channel, handler);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    this.#registry.clear();
    const client = await this.#client?.catch(() => undefined);
    this.#client = undefined;
    this.#connected = undefined;
    await client?.end().catch(() => undefined);
  }

  #connect(): Promise<pg.Client> {
    this.#client ??= this.#open().catch((err: unknown) => {
      this.#client = undefined;
      throw toDbError(err);
    });
    return this.#client;
  }

  async #open(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.#url });
    client.on('notification', (message) => {
      this.#registry.dispatch(message.channel, message.payload ?? '');
    });
    // Without an 'error' listener a dropped connection would crash the process.
    client.on('error', (err) => this.#lost(client, err));
    client.on('end', () => this.#lost(client, undefined));
    await client.connect();
    if (this.#closed) {
      await client.end();
      throw new UnavailableError('SLUICE_DB_UNAVAILABLE', 'Database is closed');
    }
    this.#connected = client;
    return client;
  }

  #lost(client: pg.Client, err: Error | undefined): void {
    if (this.#closed || this.#connected !== client) return;
    this.#connected = undefined;
    this.#client = undefined;
    client.end().catch(() => undefined);
    this.#logger?.warn('notification listener disconnected', { error: err?.message });
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retryTimer !== undefined) return;
    if (this.#registry.listening().length === 0) return;
    this.#failures += 1;
    this.#retryTimer = setTimeout(
      () => {
        this.#retryTimer = undefined;
        void this.#relisten();
      },
      backoffDelay(this.#failures, { baseMs: 500, maxMs: MAX_BACKOFF_MS }),
    );
    this.#retryTimer.unref();
  }

  async #relisten(): Promise<void> {
    const channels = this.#registry.listening();
    try {
      const client = await this.#connect();
      for (const channel of channels) await client.query(`LISTEN "${channel}"`);
      this.#failures = 0;
      this.#logger?.info('notification listener reconnected', { channels });
    } catch (err) {
      this.#logger?.warn('notification listener reconnect failed', { error: String(err) });
      this.#scheduleReconnect();
    }
  }
}
