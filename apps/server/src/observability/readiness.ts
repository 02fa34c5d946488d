/**
 * Readiness for `/readyz`: the server is ready when its database answers a trivial query within
 * `timeoutMs`, and not while it shuts down. The answer names the reason and the error code,
 * never driver text (which can hold host names and addresses); the cause is logged once when
 * the database goes away, and its return once. Checks that overlap share one query, so a
 * probe storm against a hanging database holds one pool slot, not one per probe.
 * @module
 */
import { describeError, isSluiceError } from '@sluice/errors';
import { sql } from '@sluice/db';
import type { Database } from '@sluice/db';
import type { Logger } from '@sluice/log';
import type { Readiness } from '@sluice/protocol';
import { withTimeout } from './with-timeout.js';

export interface ReadinessOptions {
  database: Database;
  log: Logger;
  /** True once the server has begun to close. */
  stopping(): boolean;
  /** How long the check query may take; default 2000. */
  timeoutMs?: number;
}

export interface ReadinessCheck {
  check(): Promise<Readiness>;
}

export function createReadiness(options: ReadinessOptions): ReadinessCheck {
  const { database, log } = options;
  const timeoutMs = options.timeoutMs ?? 2000;
  let lastOk = true;
  let inFlight: Promise<Readiness> | undefined;

  const probe = async (): Promise<Readiness> => {
    const kind = database.kind;
    const started = performance.now();
    try {
      await withTimeout(sql`select 1`.execute(database.db), timeoutMs, 'to select 1');
      const latencyMs = Math.round((performance.now() - started) * 10) / 10;
      if (!lastOk) log.info('database answers again: ready');
      lastOk = true;
      return {
        ready: true,
        reason: `The database (${kind}) answers`,
        database: { kind, ok: true, latencyMs },
      };
    } catch (err) {
      if (lastOk) log.warn('database does not answer: not ready', { reason: describeError(err) });
      lastOk = false;
      const code = isSluiceError(err) ? err.code : 'SLUICE_DB_UNAVAILABLE';
      return {
        ready: false,
        reason: `The database (${kind}) does not answer (${code}); the server log has the cause`,
        database: { kind, ok: false, code },
      };
    }
  };
  return {
    async check() {
      if (options.stopping())
        return {
          ready: false,
          reason: 'The server is shutting down',
          database: { kind: database.kind, ok: false },
        };
      inFlight ??= probe().finally(() => (inFlight = undefined));
      return inFlight;
    },
  };
}
