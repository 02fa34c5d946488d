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
 * - `23505` unique violation → `ConflictError('SLUICE_DB_CONFLICT')` saying what exists, in the
 *   API's words (`TABLE_WORDS`); the constraint only in `details`, which HTTP never sends
 * - `23503` foreign key violation → `ConflictError('SLUICE_DB_REFERENCE')`, worded the same way
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

/**
 * What each table holds, in the API's words, and what tells its rows apart: a conflict is
 * reported in these words, never with the constraint's or the table's name.
 */
const TABLE_WORDS: Record<string, { noun: string; plural: string; key: string }> = {
  accounts: { noun: 'account', plural: 'accounts', key: 'name' },
  users: { noun: 'user', plural: 'users', key: 'name' },
  api_tokens: { noun: 'token', plural: 'tokens', key: 'value' },
  projects: { noun: 'project', plural: 'projects', key: 'name' },
  pipelines: { noun: 'pipeline', plural: 'pipelines', key: 'name in its project' },
  pipeline_variables: { noun: 'variable', plural: 'variables', key: 'name' },
  triggers: { noun: 'trigger', plural: 'triggers', key: 'id' },
  webhook_deliveries: { noun: 'webhook delivery', plural: 'webhook deliveries', key: 'id' },
  builds: { noun: 'build', plural: 'builds', key: 'number in its pipeline' },
  build_steps: { noun: 'build step', plural: 'build steps', key: 'name' },
  build_log_chunks: { noun: 'log chunk', plural: 'log chunks', key: 'sequence number' },
  build_control: { noun: 'build control message', plural: 'control messages', key: 'number' },
  commit_statuses: { noun: 'commit status', plural: 'commit statuses', key: 'build' },
  runtime_environments: {
    noun: 'runtime environment version',
    plural: 'runtime environments',
    key: 'name and version',
  },
  agents: { noun: 'agent', plural: 'agents', key: 'name' },
  tasks: { noun: 'task', plural: 'tasks', key: 'id' },
  registries: { noun: 'registry', plural: 'registries', key: 'name' },
  git_integrations: { noun: 'git integration', plural: 'git integrations', key: 'name' },
  step_types: { noun: 'step type version', plural: 'step types', key: 'name and version' },
  clusters: { noun: 'cluster', plural: 'clusters', key: 'name' },
  settings: { noun: 'setting', plural: 'settings', key: 'key' },
  pki: { noun: 'certificate', plural: 'certificates', key: 'id' },
};

/** Partial unique indexes whose conflict is not about a name. */
const INDEX_WORDS: Record<string, string> = {
  registries_one_default_idx: 'The account already has a default registry',
  git_integrations_one_default_idx: 'The account already has a default git integration',
};

/** "An agent", "A user": by sound, which for these nouns is their first letter but `u`. */
function article(noun: string): string {
  return /^[aeio]/.test(noun) ? 'An' : 'A';
}

function wordsOf(table: string | undefined) {
  return table === undefined ? undefined : TABLE_WORDS[table];
}

/** The table a PostgreSQL message or detail names after `marker` (`... table "pipelines"`). */
function tableNamed(text: string | undefined, marker: RegExp): string | undefined {
  return text === undefined ? undefined : marker.exec(text)?.[1];
}

/**
 * The constraint, the table and PostgreSQL's detail stay in `details` for the logs and for a
 * service that words the conflict itself; the HTTP error handler never sends them.
 */
function uniqueViolation(err: object, fields: PgErrorFields): SluiceError {
  const constraint = stringOr(fields.constraint);
  const table = stringOr(fields.table);
  const words = wordsOf(table);
  const message =
    (constraint === undefined ? undefined : INDEX_WORDS[constraint]) ??
    (words === undefined
      ? 'An object with the same name already exists'
      : `${article(words.noun)} ${words.noun} with the same ${words.key} already exists`);
  return new ConflictError('SLUICE_DB_CONFLICT', message, {
    cause: err,
    details: { constraint, table, detail: stringOr(fields.detail) },
  });
}

/**
 * A foreign key refused a change: a delete of a row others still refer to ("update or delete
 * on table "pipelines" ... on table "builds""), or a row naming one that does not exist.
 */
function referenceViolation(err: object, fields: PgErrorFields): SluiceError {
  const constraint = stringOr(fields.constraint);
  const table = stringOr(fields.table);
  const detail = stringOr(fields.detail);
  const message = messageOf(err);
  const details = { constraint, table, detail };
  const deleted = tableNamed(message, /update or delete on table "([^"]+)"/);
  if (deleted !== undefined) {
    const target = wordsOf(deleted)?.noun ?? 'object';
    const holders = wordsOf(table)?.plural ?? 'other objects';
    return new ConflictError(
      'SLUICE_DB_REFERENCE',
      `The ${target} cannot be deleted while ${holders} refer to it`,
      { cause: err, details, hint: `Delete its ${holders} first` },
    );
  }
  const missing = wordsOf(tableNamed(detail, /is not present in table "([^"]+)"/))?.noun;
  return new ConflictError(
    'SLUICE_DB_REFERENCE',
    missing === undefined
      ? 'The object this refers to does not exist (any more)'
      : `The ${missing} this refers to does not exist (any more)`,
    { cause: err, details },
  );
}

/** The constraint and table a `SLUICE_DB_CONFLICT` or `SLUICE_DB_REFERENCE` error is about. */
export function violatedConstraint(
  err: unknown,
): { code: string; constraint?: string; table?: string } | undefined {
  if (!isSluiceError(err)) return undefined;
  if (err.code !== 'SLUICE_DB_CONFLICT' && err.code !== 'SLUICE_DB_REFERENCE') return undefined;
  const text = (key: string) => {
    const value = err.details?.[key];
    return typeof value === 'string' ? value : undefined;
  };
  return { code: err.code, constraint: text('constraint'), table: text('table') };
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
