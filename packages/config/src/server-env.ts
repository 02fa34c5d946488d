/**
 * `sluice server`'s environment (and `sluice up`'s, which runs the same control plane): the
 * variables, their defaults, and the rules between them.
 * @module
 */
import { numberVar, switchVar, textVar, urlVar } from './variables.js';
import type { EnvValues } from './parse-env.js';
import { SERVER_DEFAULTS } from './defaults.js';
import { oidcEnv } from './oidc-env.js';

const PORT = { min: 0, max: 65_535 } as const;

export const serverEnv = {
  SLUICE_PORT: numberVar({
    description: 'Port to listen on; 0 picks a free one',
    flag: 'port',
    ...PORT,
    default: SERVER_DEFAULTS.port,
  }),
  SLUICE_HOST: textVar({
    description: 'Address to listen on',
    flag: 'host',
    default: SERVER_DEFAULTS.host,
  }),
  SLUICE_DATA_DIR: textVar({
    description: 'Data directory for the embedded database and `server.key`',
    flag: 'data-dir',
  }),
  SLUICE_STEP_TYPES_DIR: textVar({
    description:
      "The built-in step types every account has (Codefresh's marketplace names: helm, git-commit, …); an account's own of the same name wins",
    defaultText:
      '`step-types/` of the repository the server runs from; from the bundled CLI (the `sluice/engine:1` image), `step-types/` beside the bundle',
  }),
  DATABASE_URL: textVar({
    description: 'PostgreSQL instead of the embedded database',
    secret: true,
  }),
  SLUICE_DATABASE_UNNAMED_STATEMENTS: switchVar({
    description:
      'On PostgreSQL, run every query as an unnamed statement instead of preparing it once per connection: for a pooler that keeps no prepared statements (PgBouncer before 1.21 in transaction mode). Without it, the server turns them off by itself at the first query such a pooler refuses',
  }),
  SLUICE_BOOTSTRAP_TOKEN: textVar({
    description: 'The first admin token, for automation',
    defaultText:
      'random: shown once on a terminal, else written to `<data-dir>/admin-token` (0600) and its path printed',
    minLength: 20,
    secret: true,
  }),
  SLUICE_BOOTSTRAP_PASSWORD: textVar({
    description:
      "The first admin's password for the web UI's sign-in, set when the first start creates the admin (docs/access.md); later: `sluice patch user admin --password-stdin`",
    defaultText: 'none: the admin signs in to the web UI with the admin token until given one',
    minLength: 8,
    secret: true,
  }),
  SLUICE_SECRET_KEY: textVar({
    description:
      '32 bytes in base64 that encrypt secrets at rest (`openssl rand -base64 32`); required with `DATABASE_URL` and no data directory',
    defaultText: '`server.key` in the data directory',
    secret: true,
  }),
  SLUICE_PUBLIC_URL: urlVar({
    description: 'The URL agents, engines and webhook senders use to reach the server',
  }),
  SLUICE_AGENT_OFFLINE_AFTER_MS: numberVar({
    description: 'An agent without a heartbeat for this long is shown offline',
    min: 0,
    unit: 'milliseconds',
    default: SERVER_DEFAULTS.agentOfflineAfterMs,
  }),
  SLUICE_LIMITS_INTERVAL_MS: numberVar({
    // A pass reads every active build: a tighter loop would only load the database.
    description:
      "Time between the passes that enforce the runtimes' `workflowLimits` (docs/runtime-limits.md)",
    min: 100,
    unit: 'milliseconds',
    default: SERVER_DEFAULTS.limitsIntervalMs,
  }),
  SLUICE_COMMIT_STATUS_INTERVAL_MS: numberVar({
    description:
      "Time between the passes that report builds' states on their commits to the git hosts (commit statuses)",
    min: 100,
    unit: 'milliseconds',
    default: SERVER_DEFAULTS.commitStatusIntervalMs,
  }),
  SLUICE_COMMIT_STATUS_CONTEXT: textVar({
    description:
      "The name of a build's commit status on the git host (what branch protection requires); `{project}` and `{pipeline}` are replaced by the build's",
    default: SERVER_DEFAULTS.commitStatusContext,
  }),
  SLUICE_RETENTION_DAYS: numberVar({
    description:
      'Finished builds created more than this many days ago are deleted, with their steps and logs, in pipelines without a `retention` of their own; unset: kept whatever their age (docs/retention.md)',
    min: 1,
    max: 36_500,
    unit: 'days',
    default: undefined,
  }),
  SLUICE_RETENTION_BUILDS: numberVar({
    description:
      "Only each pipeline's newest this many builds are kept (older finished ones are deleted), in pipelines without a `retention` of their own; unset: kept however many (docs/retention.md)",
    min: 1,
    max: 10_000_000,
    default: undefined,
  }),
  SLUICE_RETENTION_INTERVAL_MS: numberVar({
    description:
      'Time between the background passes that delete builds past their retention, in small batches',
    min: 1_000,
    unit: 'milliseconds',
    default: SERVER_DEFAULTS.retentionIntervalMs,
  }),
  SLUICE_SESSION_IDLE_MINUTES: numberVar({
    description:
      'A web UI session not used for this long ends and its browser is sent to the sign-in page (docs/access.md)',
    min: 1,
    max: 525_600,
    unit: 'minutes',
    default: SERVER_DEFAULTS.sessionIdleMinutes,
  }),
  SLUICE_SESSION_MAX_HOURS: numberVar({
    description:
      'A web UI session ends this long after its sign-in however much it is used (docs/access.md)',
    min: 1,
    max: 8_760,
    unit: 'hours',
    default: SERVER_DEFAULTS.sessionMaxHours,
  }),
  SLUICE_TRUST_PROXY: switchVar({
    description:
      "The server is behind a reverse proxy it trusts: a request's client address and scheme are read from `X-Forwarded-For` and `X-Forwarded-Proto` (the audit log's source, the session cookie's `Secure` flag)",
  }),
  SLUICE_AUDIT_RETENTION_DAYS: numberVar({
    description:
      'Audit events older than this many days are deleted in the background, in small batches (docs/access.md)',
    min: 1,
    max: 36_500,
    unit: 'days',
    default: SERVER_DEFAULTS.auditRetentionDays,
  }),
  SLUICE_TASK_LEASE_MS: numberVar({
    description:
      'How long a task handed to an agent stays its own before it may be handed out again',
    min: 0,
    unit: 'milliseconds',
    default: SERVER_DEFAULTS.taskLeaseMs,
  }),
  SLUICE_REQUEST_BODY_TIMEOUT_MS: numberVar({
    description:
      'A request body not received whole within this long is answered 408 and its connection closed (a sender that trickles or stops holds memory and, for webhooks, a share of the bodies read at once)',
    min: 100,
    unit: 'milliseconds',
    default: SERVER_DEFAULTS.requestBodyTimeoutMs,
  }),
  SLUICE_BUILD_LOG_LIMIT_BYTES: numberVar({
    description:
      "A build's log stops at this many bytes of line text, for builds whose runtime sets no `runtimeScheduler.buildLogLimit`; the engine says so once in the log and on the build, and the steps go on (docs/build-logs.md). 0: no limit",
    min: 0,
    unit: 'bytes',
    default: SERVER_DEFAULTS.buildLogLimitBytes,
  }),
  SLUICE_LOG_READER_WINDOW_BYTES: numberVar({
    description:
      "The newest chunks of a followed build's log kept in memory for its live readers (`GET /api/v1/builds/:id/log/stream`), read once for all of them; a reader further behind is told to resume from the database (docs/build-logs.md)",
    min: 64 * 1024,
    unit: 'bytes',
    default: SERVER_DEFAULTS.logReaderWindowBytes,
  }),
  SLUICE_METRICS_PORT: numberVar({
    description:
      'Port of Prometheus `/metrics`, on a listener of its own without a token; 0 picks one (docs/metrics.md)',
    flag: 'metrics-port',
    ...PORT,
    default: undefined,
  }),
  SLUICE_WEB_DIR: textVar({
    description: 'The built web UI served at `/` (its `index.html` and `assets/`)',
    defaultText:
      '`apps/web/dist` beside the server, as `npm run build` makes it; from the bundled CLI (the `sluice/engine:1` image), `web/` beside the bundle',
  }),
  SLUICE_METRICS_HOST: textVar({
    description: 'Address of the `/metrics` listener',
    defaultText: '`SLUICE_HOST`',
  }),
  ...oidcEnv,
};

export type ServerEnv = EnvValues<typeof serverEnv>;

/** The rules between the server's settings, once flags are applied. */
export function serverRules(settings: {
  port: number;
  dataDir: string | undefined;
  databaseUrl: string | undefined;
  metricsPort: number | undefined;
  commitStatusContext?: string;
}): string[] {
  const problems: string[] = [];
  const unknown = settings.commitStatusContext?.match(/\{(?!project\}|pipeline\})[^}]*\}/)?.[0];
  if (unknown !== undefined)
    problems.push(
      `SLUICE_COMMIT_STATUS_CONTEXT names ${unknown}; only {project} and {pipeline} are replaced`,
    );
  if (settings.databaseUrl === undefined && settings.dataDir === undefined)
    problems.push(
      'Give a data directory (--data-dir or SLUICE_DATA_DIR) for the embedded database, or DATABASE_URL for PostgreSQL',
    );
  if (settings.metricsPort === settings.port && settings.port !== 0)
    problems.push(
      `SLUICE_METRICS_PORT must differ from the API port ${settings.port}: /metrics has a listener of its own`,
    );
  return problems;
}
