/**
 * The control plane's tables as Kysely sees them, matching the migrations in `migrations/`.
 * `Generated`/`WithDefault` columns may be left out of inserts; timestamps read as `Date`;
 * jsonb columns read as their JSON type and are written through `jsonb(value)`, because `pg`
 * would send a bare JavaScript array as a PostgreSQL array literal, not as JSON.
 * @module
 */
import type { ColumnType, Generated, RawBuilder, Selectable } from 'kysely';
import type { SignInFlowsTable } from './sign-in-schema.js';

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** What a jsonb column accepts on insert and update: build it with `jsonb(value)`. */
export type JsonbInput<T> = RawBuilder<T>;
export type Jsonb<T> = ColumnType<T, JsonbInput<T>, JsonbInput<T>>;
export type JsonbWithDefault<T> = ColumnType<T, JsonbInput<T> | undefined, JsonbInput<T>>;

export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** `timestamptz not null default now()`. */
export type TimestampWithDefault = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;

export const TOKEN_KINDS = ['user', 'agent', 'engine'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];
export const USER_ROLES = ['viewer', 'member', 'admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];
export const USER_TOKEN_SCOPES = ['read', 'run', 'admin'] as const;
export type UserTokenScope = (typeof USER_TOKEN_SCOPES)[number];
export const AUDIT_OUTCOMES = ['succeeded', 'denied', 'failed'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];
export const TRIGGER_KINDS = ['git', 'cron'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];
export const BUILD_STATUSES = [
  'pending',
  'elected',
  'running',
  'success',
  'failure',
  'terminated',
  'error',
  'pending-approval',
] as const;
export type BuildStatus = (typeof BUILD_STATUSES)[number];
export const BUILD_CONTROL_KINDS = ['cancel', 'approve', 'deny'] as const;
export type BuildControlKind = (typeof BUILD_CONTROL_KINDS)[number];
export const TASK_STATUSES = ['queued', 'leased', 'done', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** One line of a build's output as stored in `build_log_chunks.lines`. */
export interface StoredLogLine {
  step: string;
  stream: string;
  line: string;
  /** ISO 8601 time the line was read. */
  at: string;
}

export interface AccountsTable {
  id: string;
  name: string;
  default_runtime: string | null;
  max_concurrent_builds: number | null;
  created_at: TimestampWithDefault;
}

export interface UsersTable {
  id: string;
  account_id: string;
  name: string;
  /** Migration 015: `viewer` unless an insert names one. */
  role: Generated<UserRole>;
  /** The projects (by name) a member or viewer may use; null: every project (017). */
  projects: ColumnType<
    string[] | null,
    JsonbInput<string[]> | null | undefined,
    JsonbInput<string[]> | null
  >;
  /** The scrypt hash of the user's password (`scrypt$N$r$p$salt$hash`); null: none (017). */
  password: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: TimestampWithDefault;
  /** A single sign-on user's provider and subject there (018); null for others. */
  oidc_issuer: string | null;
  oidc_subject: string | null;
}

/** A browser's sign-in (017): the cookie's value is never stored, only its SHA-256. */
export interface SessionsTable {
  id: string;
  id_hash: string;
  account_id: string;
  user_id: string;
  created_at: TimestampWithDefault;
  last_seen_at: TimestampWithDefault;
  expires_at: Date;
  ip: string | null;
  user_agent: string | null;
}

/** A browser's sign-in (017): the cookie's value is never stored, only its SHA-256. */
export interface SessionsTable {
  id: string;
  id_hash: string;
  account_id: string;
  user_id: string;
  created_at: TimestampWithDefault;
  last_seen_at: TimestampWithDefault;
  expires_at: Date;
  ip: string | null;
  user_agent: string | null;
}

export interface ApiTokensTable {
  id: string;
  account_id: string;
  kind: TokenKind;
  /** A user id, an agent id or (for engine tokens) a build id. */
  subject_id: string;
  name: string;
  /** sha256 of the token, hex. */
  token_hash: string;
  token_prefix: string;
  created_at: TimestampWithDefault;
  last_used_at: NullableTimestamp;
  expires_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  /** A user token's scope (017): the most of its user's rights it carries; null for others. */
  scope: ColumnType<
    UserTokenScope | null,
    UserTokenScope | null | undefined,
    UserTokenScope | null
  >;
}

/** Who did what (017): one row per change, refusal or token event; never a secret. */
export interface AuditEventsTable {
  id: string;
  account_id: string;
  at: TimestampWithDefault;
  actor_user_id: string | null;
  /** The user's name then: the history stays readable after the user is gone. */
  actor_name: string | null;
  token_id: string | null;
  action: string;
  target: string;
  source: string | null;
  outcome: AuditOutcome;
  status: number | null;
  details: JsonbWithDefault<Record<string, string | string[] | null>>;
}

export interface ProjectsTable {
  id: string;
  account_id: string;
  name: string;
  created_at: TimestampWithDefault;
}

export interface PipelinesTable {
  id: string;
  account_id: string;
  project_id: string;
  name: string;
  yaml: string;
  runtime_environment: string | null;
  max_concurrent_builds: number | null;
  /** The number of its newest build (migration 005_build_throughput); a new build takes the next. */
  last_build_number: Generated<number>;
  /** Where its definition lives when not in `yaml`: `SpecTemplate` of the protocol (011). */
  spec_template: ColumnType<
    JsonObject | null,
    JsonbInput<JsonObject> | null | undefined,
    JsonbInput<JsonObject> | null
  >;
  /** How long its finished builds are kept: `{ days?, builds? }`; null: the server's default (014). */
  retention: ColumnType<
    JsonObject | null,
    JsonbInput<JsonObject> | null | undefined,
    JsonbInput<JsonObject> | null
  >;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

export interface PipelineVariablesTable {
  pipeline_id: string;
  name: string;
  value: string | null;
  encrypted_value: string | null;
  is_secret: boolean;
}

export interface TriggersTable {
  id: string;
  account_id: string;
  pipeline_id: string;
  kind: TriggerKind;
  provider: string | null;
  repo: string | null;
  events: JsonbWithDefault<string[]>;
  branch_filter: string | null;
  secret_encrypted: string | null;
  /** The git integration a git trigger names (migration 006). */
  git_integration: Generated<string | null>;
  cron: string | null;
  next_run_at: NullableTimestamp;
  enabled: Generated<boolean>;
  variables: JsonbWithDefault<Record<string, string>>;
  created_at: TimestampWithDefault;
}

/** A git host's delivery that started a build, kept for the deduplication window. */
export interface WebhookDeliveriesTable {
  trigger_id: string;
  delivery_id: string;
  /** Null while the build is being created in the same transaction, or once it was deleted. */
  build_id: string | null;
  received_at: Timestamp;
}

/** A signed webhook body that started a build, by its SHA-256 (016). */
export interface WebhookBodiesTable {
  trigger_id: string;
  /** SHA-256 of the body as received (hex). */
  digest: string;
  /** Null while the build is being created in the same transaction, or once it was deleted. */
  build_id: string | null;
  received_at: Timestamp;
}

export interface BuildsTable {
  id: string;
  account_id: string;
  pipeline_id: string;
  number: number;
  status: BuildStatus;
  trigger: string;
  initiator: string | null;
  branch: string | null;
  revision: string | null;
  facts: JsonbWithDefault<JsonObject>;
  variables: JsonbWithDefault<Record<string, string>>;
  secret_variables_encrypted: string | null;
  /** The names of its secrets, shown as `****` (017). */
  secret_names: JsonbWithDefault<string[]>;
  runtime_environment: string | null;
  agent_id: string | null;
  reason: string | null;
  timing: JsonbWithDefault<JsonObject>;
  retry_of: string | null;
  engine_heartbeat_at: NullableTimestamp;
  /** Server time of the engine's `build-started` (004). */
  engine_started_at: NullableTimestamp;
  /** Server time of the engine's last event (004). */
  engine_event_at: NullableTimestamp;
  /** Server time the pipeline's post-steps (on_success/on_fail/on_finish hooks) began (004). */
  post_steps_started_at: NullableTimestamp;
  /** A stop the control plane asked the engine for: a workflow limit or a cancel (004). */
  stop_requested_at: NullableTimestamp;
  /** The status and reason a stop requested for a limit ends the build with (004). */
  stop_status: 'terminated' | 'error' | null;
  stop_reason: string | null;
  /** The cache record the agent reported (`BuildCache` of the protocol); null until then (007). */
  cache: ColumnType<
    JsonObject | null,
    JsonbInput<JsonObject> | null | undefined,
    JsonbInput<JsonObject> | null
  >;
  /** What its steps' post-step operations set on the build, by name (008). */
  annotations: JsonbWithDefault<JsonObject>;
  /** Image metadata its steps set, by image, then by name (008). */
  image_annotations: JsonbWithDefault<JsonObject>;
  /** Its pipeline's `stages:` when it was created, in order (009). */
  stages: JsonbWithDefault<string[]>;
  /** The pipeline definition it ran: set at creation, or once its engine read it (011). */
  yaml: ColumnType<string | null, string | null | undefined, string | null>;
  /** The commit its definition was read at, for a definition from the repository (011). */
  yaml_revision: ColumnType<string | null, string | null | undefined, string | null>;
  /** Where its engine reads the definition: the pipeline's, revision resolved (011). */
  spec_template: ColumnType<
    JsonObject | null,
    JsonbInput<JsonObject> | null | undefined,
    JsonbInput<JsonObject> | null
  >;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
  finished_at: NullableTimestamp;
}

/** A Kubernetes cluster builds deploy to (013). */
export interface ClustersTable {
  account_id: string;
  name: string;
  kind: 'kubeconfig' | 'behind-firewall';
  /** The API server's URL. */
  server: string;
  /** The namespace steps use when they name none; null: the kubeconfig's, else `default`. */
  namespace: string | null;
  /** `kubeconfig`: one context, encrypted with the server key (account and name bound). */
  kubeconfig_encrypted: string | null;
  /** `behind-firewall`: the runtime whose cluster it is, its service account and namespaces. */
  runtime: string | null;
  service_account: string | null;
  namespaces: JsonbWithDefault<string[]>;
  /** The projects whose builds may use it; null: every project of the account. */
  projects: ColumnType<
    string[] | null,
    JsonbInput<string[]> | null | undefined,
    JsonbInput<string[]> | null
  >;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

/** A build's state reported on its commit (012): what was sent, and when to try again. */
export interface CommitStatusesTable {
  build_id: string;
  account_id: string;
  /** The git integration whose token reports it. */
  integration: string;
  /** `owner/name` on the integration's host. */
  repo: string;
  sha: string;
  /** The status's name on the host, one per pipeline. */
  context: string;
  /** The last state the host took; null before the first. */
  sent_state: string | null;
  /** Each state the host took, with when: `{ state, at }`. */
  sent: JsonbWithDefault<JsonObject[]>;
  attempts: Generated<number>;
  next_attempt_at: TimestampWithDefault;
  last_error: string | null;
  created_at: TimestampWithDefault;
}

export interface BuildStepsTable {
  build_id: string;
  name: string;
  position: number;
  /** The parallel block, typed step or matrix the step runs in; null at top level. */
  parent: string | null;
  /** The stage it belongs to (its own `stage:`, else its block's); null for none (009). */
  stage: string | null;
  attempt: Generated<number>;
  status: string;
  exit_code: number | null;
  reason: string | null;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  /** Who approved or denied a pending-approval step. */
  answered_by: string | null;
  /** Its `title:`, as the engine reported it once started (017). */
  title: string | null;
  /** The steps it waits for: its `when.steps` (017). */
  needs: JsonbWithDefault<StepNeed[]>;
  /** How its steps run when it is a block: `parallel` or `sequential`; null otherwise (020). */
  block: 'parallel' | 'sequential' | null;
}

/** One of a step's `when.steps`: run once `step` reached one of `on`. */
export interface StepNeed {
  step: string;
  on: string[];
}

export interface BuildLogChunksTable {
  build_id: string;
  seq: number;
  lines: Jsonb<StoredLogLine[]>;
  byte_size: number;
  created_at: TimestampWithDefault;
}

export interface BuildControlTable {
  build_id: string;
  seq: Generated<number>;
  kind: BuildControlKind;
  /** approve and deny: the step answered. */
  step: string | null;
  /** approve and deny: who answered. */
  actor: string | null;
  created_at: TimestampWithDefault;
}

export interface RegistriesTable {
  account_id: string;
  name: string;
  /** `host[:port]`. */
  domain: string;
  username: string | null;
  /** Encrypted with the server key, the account and name as associated data. */
  password_encrypted: string | null;
  is_default: Generated<boolean>;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

export interface GitIntegrationsTable {
  account_id: string;
  name: string;
  kind: string;
  /** The host's URL, e.g. `https://github.com`. */
  url: string;
  username: string | null;
  auth: 'token' | 'ssh-key';
  /** The token or SSH key, encrypted with the server key, the account and name as associated data. */
  secret_encrypted: string;
  is_default: Generated<boolean>;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

export interface StepTypesTable {
  account_id: string;
  name: string;
  version: string;
  /** The step-type YAML document as registered. */
  document: string;
  /** SHA-256 of `document` (hex): what servers key the parsed document by (016). */
  digest: string;
  created_by: string | null;
  created_at: TimestampWithDefault;
}

export interface RuntimeEnvironmentsTable {
  account_id: string;
  name: string;
  version: number;
  spec: Jsonb<JsonObject>;
  description: string | null;
  created_at: TimestampWithDefault;
  created_by: string | null;
}

export interface AgentsTable {
  id: string;
  account_id: string;
  name: string;
  runtimes: JsonbWithDefault<string[]>;
  health: JsonbWithDefault<JsonObject>;
  version: string | null;
  last_heartbeat_at: NullableTimestamp;
  created_at: TimestampWithDefault;
}

export interface TasksTable {
  id: string;
  account_id: string;
  build_id: string | null;
  agent_id: string | null;
  runtime: string;
  type: string;
  spec: Jsonb<JsonObject>;
  position: Generated<number>;
  status: TaskStatus;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  available_at: TimestampWithDefault;
  leased_by: string | null;
  lease_expires_at: NullableTimestamp;
  status_revision: Generated<number>;
  last_error: string | null;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

export interface PkiTable {
  id: string;
  kind: string;
  cert_pem: string;
  key_encrypted: string;
  created_at: TimestampWithDefault;
}

export interface SettingsTable {
  key: string;
  value: Jsonb<JsonValue>;
}

/** Every table, keyed by its SQL name: the type parameter of `Kysely<Schema>`. */
export interface Schema {
  accounts: AccountsTable;
  users: UsersTable;
  api_tokens: ApiTokensTable;
  audit_events: AuditEventsTable;
  sessions: SessionsTable;
  sign_in_flows: SignInFlowsTable;
  projects: ProjectsTable;
  pipelines: PipelinesTable;
  pipeline_variables: PipelineVariablesTable;
  triggers: TriggersTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_bodies: WebhookBodiesTable;
  builds: BuildsTable;
  commit_statuses: CommitStatusesTable;
  clusters: ClustersTable;
  build_steps: BuildStepsTable;
  build_log_chunks: BuildLogChunksTable;
  build_control: BuildControlTable;
  runtime_environments: RuntimeEnvironmentsTable;
  agents: AgentsTable;
  tasks: TasksTable;
  pki: PkiTable;
  settings: SettingsTable;
  registries: RegistriesTable;
  git_integrations: GitIntegrationsTable;
  step_types: StepTypesTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type CommitStatusRow = Selectable<CommitStatusesTable>;
export type UserRow = Selectable<UsersTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
export type AuditEventRow = Selectable<AuditEventsTable>;
export type SessionRow = Selectable<SessionsTable>;
export type ProjectRow = Selectable<ProjectsTable>;
export type PipelineRow = Selectable<PipelinesTable>;
export type PipelineVariableRow = Selectable<PipelineVariablesTable>;
export type TriggerRow = Selectable<TriggersTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type BuildRow = Selectable<BuildsTable>;
export type BuildStepRow = Selectable<BuildStepsTable>;
export type BuildLogChunkRow = Selectable<BuildLogChunksTable>;
export type BuildControlRow = Selectable<BuildControlTable>;
export type RuntimeEnvironmentRow = Selectable<RuntimeEnvironmentsTable>;
export type AgentRow = Selectable<AgentsTable>;
export type TaskRow = Selectable<TasksTable>;
export type PkiRow = Selectable<PkiTable>;
export type SettingRow = Selectable<SettingsTable>;
export type RegistryRow = Selectable<RegistriesTable>;
export type GitIntegrationRow = Selectable<GitIntegrationsTable>;
export type ClusterRow = Selectable<ClustersTable>;
export type StepTypeRow = Selectable<StepTypesTable>;
