/**
 * The server's configuration: defaults < environment < flags, read through the schema of
 * `@sluice/config` (every problem at once, each naming its variable), frozen. The only module of
 * the server that reads process.env.
 * @module
 */
import { configError, oidcRules, parseEnv, serverEnv, serverRules } from '@sluice/config';
import { oidcConfigOf } from './oidc-config.js';
import type { OidcConfig } from './oidc-config.js';

export interface ServerConfig {
  /** Port to listen on; 0 picks a free one (tests). */
  port: number;
  host: string;
  /** PGlite data directory (also holds the server key when SLUICE_SECRET_KEY is unset). */
  dataDir: string | undefined;
  /** PostgreSQL instead of PGlite. */
  databaseUrl: string | undefined;
  /** PostgreSQL queries run unnamed, never prepared (a pooler that keeps no statements). */
  databaseUnnamedStatements?: boolean;
  /** The first admin token, for automation; random and printed once otherwise. */
  bootstrapToken: string | undefined;
  /** The first admin's web UI password, set when the first start creates the admin. */
  bootstrapPassword?: string | undefined;
  /** 32-byte key (base64) for secrets at rest. */
  secretKey: string | undefined;
  /** The URL agents and engines use to reach this server. */
  publicUrl: string | undefined;
  /** An agent without a heartbeat for this long is offline. */
  agentOfflineAfterMs: number;
  /** Time between passes that enforce the runtimes' workflowLimits (docs/runtime-limits.md). */
  limitsIntervalMs: number;
  /** Time between commit-status passes. */
  commitStatusIntervalMs: number;
  /** A commit status's name, `{project}` and `{pipeline}` replaced; `sluice/{project}/{pipeline}` when unset. */
  commitStatusContext?: string;
  /** Finished builds older than this many days go, in pipelines without a retention; unset: kept. */
  retentionDays?: number | undefined;
  /** Only each pipeline's newest this many builds are kept, for pipelines without a retention. */
  retentionBuilds?: number | undefined;
  /** Time between the retention passes; SERVER_DEFAULTS.retentionIntervalMs when unset. */
  retentionIntervalMs?: number;
  /** A web UI session unused for this long ends; SERVER_DEFAULTS.sessionIdleMinutes when unset. */
  sessionIdleMinutes?: number;
  /** A web UI session ends this long after sign-in; SERVER_DEFAULTS.sessionMaxHours when unset. */
  sessionMaxHours?: number;
  /** Behind a trusted reverse proxy: client address and scheme from X-Forwarded-*. */
  trustProxy?: boolean;
  /** scrypt's parameters for new passwords (tests make them cheap); OWASP's minimum when unset. */
  passwordScrypt?: { N: number; r: number; p: number };
  /** Audit events older than this many days are deleted; SERVER_DEFAULTS.auditRetentionDays when unset. */
  auditRetentionDays?: number;
  /** How long a leased task stays with an agent before it may be handed out again. */
  taskLeaseMs: number;
  /** A request body not received whole within this long is answered 408; 30 s when unset. */
  requestBodyTimeoutMs?: number;
  /** A build's log limit in bytes where its runtime sets none; 0: none. 64 MiB when unset. */
  buildLogLimitBytes?: number;
  /** Recent log chunks kept per followed build for its live readers; 8 MiB when unset. */
  logReaderWindowBytes?: number;
  /** Port of the Prometheus `/metrics` listener (no token); 0 picks one; undefined: none. */
  metricsPort: number | undefined;
  /** Address of the `/metrics` listener; the API's `host` by default. */
  metricsHost: string;
  /** The built web UI served at `/`; apps/web/dist beside the server when unset. */
  webDir?: string | undefined;
  /** The built-in step types; the repository's or the bundle's `step-types/` when unset. */
  stepTypesDir?: string | undefined;
  /** Single sign-on with OpenID Connect (docs/access.md); undefined: none. */
  oidc?: OidcConfig | undefined;
}

export interface ServerFlags {
  port?: number;
  host?: string;
  dataDir?: string;
  metricsPort?: number;
}

/**
 * @param env the environment; flags win over it.
 * @throws InputError `SLUICE_SERVER_CONFIG_INVALID` listing every problem.
 */
export function loadServerConfig(
  flags: ServerFlags = {},
  env: NodeJS.ProcessEnv = process.env,
): Readonly<ServerConfig> {
  const { values: v, problems } = parseEnv(serverEnv, { ...env, ...flagVariables(flags) });
  const host = v.SLUICE_HOST;
  const config: ServerConfig = {
    port: v.SLUICE_PORT,
    host,
    dataDir: v.SLUICE_DATA_DIR,
    databaseUrl: v.DATABASE_URL,
    databaseUnnamedStatements: v.SLUICE_DATABASE_UNNAMED_STATEMENTS,
    bootstrapToken: v.SLUICE_BOOTSTRAP_TOKEN,
    bootstrapPassword: v.SLUICE_BOOTSTRAP_PASSWORD,
    secretKey: v.SLUICE_SECRET_KEY,
    publicUrl: v.SLUICE_PUBLIC_URL,
    agentOfflineAfterMs: v.SLUICE_AGENT_OFFLINE_AFTER_MS,
    limitsIntervalMs: v.SLUICE_LIMITS_INTERVAL_MS,
    commitStatusIntervalMs: v.SLUICE_COMMIT_STATUS_INTERVAL_MS,
    commitStatusContext: v.SLUICE_COMMIT_STATUS_CONTEXT,
    taskLeaseMs: v.SLUICE_TASK_LEASE_MS,
    sessionIdleMinutes: v.SLUICE_SESSION_IDLE_MINUTES,
    sessionMaxHours: v.SLUICE_SESSION_MAX_HOURS,
    trustProxy: v.SLUICE_TRUST_PROXY,
    auditRetentionDays: v.SLUICE_AUDIT_RETENTION_DAYS,
    retentionDays: v.SLUICE_RETENTION_DAYS,
    retentionBuilds: v.SLUICE_RETENTION_BUILDS,
    retentionIntervalMs: v.SLUICE_RETENTION_INTERVAL_MS,
    requestBodyTimeoutMs: v.SLUICE_REQUEST_BODY_TIMEOUT_MS,
    buildLogLimitBytes: v.SLUICE_BUILD_LOG_LIMIT_BYTES,
    logReaderWindowBytes: v.SLUICE_LOG_READER_WINDOW_BYTES,
    metricsPort: v.SLUICE_METRICS_PORT,
    metricsHost: v.SLUICE_METRICS_HOST ?? host,
    webDir: v.SLUICE_WEB_DIR,
    stepTypesDir: v.SLUICE_STEP_TYPES_DIR,
    oidc: oidcConfigOf(v, v.SLUICE_PUBLIC_URL, problems),
  };
  problems.push(...serverRules(config));
  problems.push(
    ...oidcRules({
      issuer: v.SLUICE_OIDC_ISSUER,
      clientId: v.SLUICE_OIDC_CLIENT_ID,
      clientSecret: v.SLUICE_OIDC_CLIENT_SECRET,
      clientSecretFile: v.SLUICE_OIDC_CLIENT_SECRET_FILE,
      roles: v.SLUICE_OIDC_ROLES,
      rolesFile: v.SLUICE_OIDC_ROLES_FILE,
      publicUrl: v.SLUICE_PUBLIC_URL,
    }),
  );
  if (problems.length > 0)
    throw configError(problems, { code: 'SLUICE_SERVER_CONFIG_INVALID', whose: "the server's" });
  return Object.freeze(config);
}

/** The flags given, under their variables' names (so they win and are checked alike). */
function flagVariables(flags: ServerFlags): Record<string, string> {
  const named: Record<string, string | number | undefined> = {
    SLUICE_PORT: flags.port,
    SLUICE_HOST: flags.host,
    SLUICE_DATA_DIR: flags.dataDir,
    SLUICE_METRICS_PORT: flags.metricsPort,
  };
  return Object.fromEntries(
    Object.entries(named).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, String(value)]],
    ),
  );
}
