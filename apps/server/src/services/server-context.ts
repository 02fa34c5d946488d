/**
 * What every service is built from: the database, the clock, ids, the logger, the key for
 * secrets at rest and the wake-up signals. One per server process, made in `createServer`.
 * @module
 */
import type { KeyObject } from 'node:crypto';
import type { Database } from '@sluice/db';
import type { Logger } from '@sluice/log';
import type { ServerConfig } from '../config.js';
import type { IdGenerator } from '../ids.js';
import type { ServerMetrics } from '../observability/server-metrics.js';
import type { Signals } from './pg-notify.js';

export interface ServerContext {
  config: Readonly<ServerConfig>;
  database: Database;
  clock: () => number;
  ids: IdGenerator;
  log: Logger;
  secretKey: KeyObject;
  signals: Signals;
  /** Counts what happens (builds dispatched, ...) for `/metrics`. */
  metrics: ServerMetrics;
}

export function isoTime(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
