/**
 * Audit retention (docs/access.md): events older than `SLUICE_AUDIT_RETENTION_DAYS` (a year by
 * default) are deleted in the background, a small batch per statement so no pass holds a long
 * lock or a large transaction; sessions past their absolute limit go in the same pass. Several
 * servers may run passes at once: each batch deletes what is still there.
 * @module
 */
import { SERVER_DEFAULTS } from '@sluice/config';
import { startPassLoop } from '../pass-loop.js';
import type { PassLoop, PassLoopOptions } from '../pass-loop.js';
import type { ServerContext } from '../server-context.js';
import type { SessionStore } from './session-store.js';

const DAY_MS = 86_400_000;

export interface AuditRetentionResult {
  events: number;
  sessions: number;
}

export class AuditRetention {
  readonly #ctx: ServerContext;
  readonly #sessions: SessionStore;
  readonly #batch: number;

  constructor(ctx: ServerContext, sessions: SessionStore, options: { batch?: number } = {}) {
    this.#ctx = ctx;
    this.#sessions = sessions;
    this.#batch = options.batch ?? 500;
  }

  get days(): number {
    return this.#ctx.config.auditRetentionDays ?? SERVER_DEFAULTS.auditRetentionDays;
  }

  /** One pass: batches until none is left older than the retention, or `signal` aborts. */
  async run(options: { signal?: AbortSignal } = {}): Promise<AuditRetentionResult> {
    const before = new Date(this.#ctx.clock() - this.days * DAY_MS);
    const result: AuditRetentionResult = { events: 0, sessions: 0 };
    for (;;) {
      const deleted = await this.#deleteBatch(before);
      result.events += deleted;
      if (deleted < this.#batch || options.signal?.aborted === true) break;
    }
    for (;;) {
      const deleted = await this.#sessions.prune(this.#batch);
      result.sessions += deleted;
      if (deleted < this.#batch || options.signal?.aborted === true) break;
    }
    if (result.events > 0)
      this.#ctx.log.info('audit events past retention deleted', {
        events: result.events,
        days: this.days,
      });
    return result;
  }

  async #deleteBatch(before: Date): Promise<number> {
    const result = await this.#ctx.database.db
      .deleteFrom('audit_events')
      .where('id', 'in', (eb) =>
        eb.selectFrom('audit_events').select('id').where('at', '<', before).limit(this.#batch),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** A pass now and every `intervalMs`; `stop` ends the pass under way after its batch. */
export function startAuditRetentionLoop(
  retention: AuditRetention,
  options: PassLoopOptions,
): PassLoop {
  const stopping = new AbortController();
  const pass = () => retention.run({ signal: stopping.signal });
  const loop = startPassLoop(pass, 'deleting audit events past their retention failed', options);
  return {
    async stop() {
      stopping.abort();
      await loop.stop();
    },
  };
}
