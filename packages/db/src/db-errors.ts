/**
 * Database errors translated at the edge: whatever `pg` or PGlite throws becomes a Sluice error
 * before it leaves this package, so nothing above sees a driver error. The Kysely instance of
 * `openDatabase` already translates every query; `translateDbError` is exported for callers
 * that catch around raw driver use.
 * @module
 */
import { ConflictError, InternalError, isSluiceError, UnavailableError } from '@sluice/errors';
import type { SluiceError } from '@sluice/errors';

/** The fields a PostgreSQL error (pg's DatabaseError, PGlite's) carries; all optional. */
interface PgErrorFields {
  code?: unknown;
  constraint?: unknown;
  table?: unknown;
  detail?: unknown;
  message?: unknown;
}

/** Node socket errors meaning the server cannot be reached right now. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** SQLSTATEs meaning the server is going away, starting or full: retrying later may help. */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '53100']);

const CONNECTION_MESSAGES =
  /Connection terminated|connection timeout|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end/i;

/**
 * Maps a driver error to a Sluice error; a Sluice error (or a non-database error, such as
 * one thrown by the caller's own code inside a transaction) is returned unchanged.
 *
 * - `23505` unique violation → `ConflictError('SLUICE_DB_CONFLICT')` naming the constraint
 * - `23503` foreign key violation → `ConflictError('SLUICE_DB_REFERENCE')`
 * - socket failures, class `08`, shutdown states → `UnavailableError('SLUICE_DB_UNAVAILABLE')`
 * - any other SQLSTATE → `InternalError('SLUICE_DB_QUERY_FAILED')`: our query is wrong
 */
export function translateDbError(err: unknown): unknown {
  if (isSluiceError(err) || typeof err !== 'object' || err === null) return err;
  const fields = err as PgErrorFields;
  const code = typeof fields.code === 'string' ? fields.code : undefined;
  if (code === undefined) {
    return isConnectionMessage(fields.message) ? unavailable(err, undefined) : err;
  }
  if (code === '23505') return uniqueViolation(err, fields);
  if (code === '23503') return referenceViolation(err, fields);
  if (SOCKET_CODES.has(code) || code.startsWith('08') || UNAVAILABLE_STATES.has(code)) {
    return unavailable(err, code);
  }
  if (/^[0-9A-Z]{5}$/.test(code)) {
    return new InternalError('SLUICE_DB_QUERY_FAILED', `Database query failed: ${messageOf(err)}`, {
      cause: err,
      details: { sqlState: code, table: stringOr(fields.table) },
    });
  }
  return err;
}

/** `translateDbError` for a `catch` that must throw an `Error`. */
export function toDbError(err: unknown): Error {
  const translated = translateDbError(err);
  return translated instanceof Error ? translated : new Error(String(translated));
}

function uniqueViolation(err: object, fields: PgErrorFields): SluiceError {
  const constraint = stringOr(fields.constraint) ?? 'a unique constraint';
  const detail = stringOr(fields.detail);
  return new ConflictError(
    'SLUICE_DB_CONFLICT',
    `Already exists: ${constraint}${detail === undefined ? '' : ` (${detail})`}`,
    { cause: err, details: { constraint, table: stringOr(fields.table), detail } },
  );
}

function referenceViolation(err: object, fields: PgErrorFields): SluiceError {
  const constraint = stringOr(fields.constraint) ?? 'a foreign key';
  const detail = stringOr(fields.detail);
  return new ConflictError(
    'SLUICE_DB_REFERENCE',
    `Row is referenced or refers to a missing row: ${constraint}${detail === undefined ? '' : ` (${detail})`}`,
    { cause: err, details: { constraint, table: stringOr(fields.table), detail } },
  );
}

function unavailable(err: object, code: string | undefined): SluiceError {
  return new UnavailableError(
    'SLUICE_DB_UNAVAILABLE',
    `Database is unavailable: ${messageOf(err)}`,
    {
      cause: err,
      details: code === undefined ? undefined : { code },
      hint: 'check that PostgreSQL is running and that DATABASE_URL points at it',
    },
  );
}

function isConnectionMessage(message: unknown): boolean {
  return typeof message === 'string' && CONNECTION_MESSAGES.test(message);
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function messageOf(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return messageOf(err.errors[0]);
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
