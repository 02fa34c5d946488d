/**
 * `@sluice/db`: the one owner of the database. `openDatabase` gives a Kysely instance on one
 * `pg.Pool` (PGlite in process, or PostgreSQL), migrated, with errors translated to Sluice
 * errors; `withTransaction` and `notify`/`subscribe` cover transactions and long-poll wake-ups.
 * Test harness: `@sluice/db/testing`.
 * @module
 */
export { openDatabase } from './open-database.js';
export type {
  Database,
  DatabaseKind,
  DbLogger,
  NotificationHandler,
  OpenDatabaseOptions,
  PoolStats,
  Unsubscribe,
} from './database.js';
export { withTransaction } from './transaction.js';
export type { WithTransactionOptions } from './transaction.js';
export { notify } from './notifications.js';
export type { NotifyOptions } from './notifications.js';
export { translateDbError, violatedConstraint } from './db-errors.js';
export { jsonb } from './jsonb.js';
export { LOCK_FILE } from './data-dir-lock.js';
export { MIGRATIONS, migrateToLatest, migrationFingerprint } from './migrations/migrate.js';
export type { MigrateResult } from './migrations/migrate.js';
export type { SqlMigration } from './migrations/sql-migration.js';
export {
  BUILD_CONTROL_KINDS,
  BUILD_STATUSES,
  TASK_STATUSES,
  TOKEN_KINDS,
  TRIGGER_KINDS,
} from './schema.js';
export type { SignInFlowData, SignInFlowsTable } from './sign-in-schema.js';
export type {
  AccountRow,
  AccountsTable,
  AgentRow,
  AgentsTable,
  ApiTokenRow,
  ApiTokensTable,
  AuditEventRow,
  SessionRow,
  AuditEventsTable,
  AuditOutcome,
  BuildControlKind,
  BuildControlRow,
  BuildControlTable,
  BuildLogChunkRow,
  BuildLogChunksTable,
  BuildRow,
  BuildStatus,
  BuildStepRow,
  BuildStepsTable,
  BuildsTable,
  CommitStatusRow,
  CommitStatusesTable,
  GitIntegrationRow,
  ClusterRow,
  GitIntegrationsTable,
  Jsonb,
  JsonbInput,
  JsonbWithDefault,
  JsonObject,
  JsonPrimitive,
  JsonValue,
  NullableTimestamp,
  PipelineRow,
  PipelinesTable,
  PipelineVariableRow,
  PipelineVariablesTable,
  PkiRow,
  PkiTable,
  ProjectRow,
  ProjectsTable,
  RegistriesTable,
  RegistryRow,
  RuntimeEnvironmentRow,
  RuntimeEnvironmentsTable,
  Schema,
  SettingRow,
  SettingsTable,
  StepNeed,
  StepTypeRow,
  StepTypesTable,
  StoredLogLine,
  TaskRow,
  TaskStatus,
  TasksTable,
  Timestamp,
  TimestampWithDefault,
  TokenKind,
  TriggerKind,
  TriggerRow,
  WebhookDeliveryRow,
  TriggersTable,
  UserRole,
  UserRow,
  UsersTable,
  UserTokenScope,
} from './schema.js';
// The query builder's own pieces, so services write queries through this package only.
export { sql } from 'kysely';
export type { Kysely, Transaction } from 'kysely';
export type { Executor } from './database.js';
