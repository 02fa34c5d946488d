/**
 * The defaults of every entry point's settings, without the schemas: a module that needs only a
 * default (docker's `DOCKER_HOST`, kube's rate limit, tests, benches) imports
 * `@sluice/config/defaults` and loads no zod.
 * @module
 */
/** The server's defaults, for the loader and for tests and benches that need the same values. */
export const SERVER_DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  agentOfflineAfterMs: 60_000,
  limitsIntervalMs: 10_000,
  commitStatusIntervalMs: 2_000,
  commitStatusContext: 'sluice/{project}/{pipeline}',
  taskLeaseMs: 60_000,
  retentionIntervalMs: 600_000,
  requestBodyTimeoutMs: 30_000,
  /** A build's log stops at this many bytes of line text, where its runtime sets no limit. */
  buildLogLimitBytes: 64 * 1024 * 1024,
  /** Recent chunks kept per followed build for its live readers, encoded. */
  logReaderWindowBytes: 8 * 1024 * 1024,
  /** A browser session unused for this long ends (docs/access.md). */
  sessionIdleMinutes: 12 * 60,
  /** A browser session ends this long after its sign-in, used or not. */
  sessionMaxHours: 7 * 24,
  /** Audit events older than this are deleted in the background. */
  auditRetentionDays: 365,
} as const;

/** The agent's defaults, for the loader and for tests and benches that need the same values. */
export const AGENT_DEFAULTS = {
  concurrency: 10,
  queueSize: 100,
  pollWaitSeconds: 30,
  heartbeatMs: 10_000,
  reapIntervalMs: 60_000,
  drainTimeoutMs: 30_000,
  // Also the Kubernetes client's defaults (@sluice/kube/settings takes them from here).
  kubeQps: 50,
  kubeBurst: 100,
  stopGraceSeconds: 15,
  standbyEngines: 1,
  warmPoolMin: 0,
  warmPoolMax: 0,
  warmPoolMode: 'fixed',
  podFailureGraceMs: 5_000,
  unschedulableGraceMs: 10_000,
  httpPort: 8080,
  httpHost: '0.0.0.0',
} as const;

/** The CLI's defaults, for the loader and for tests and benches that need the same values. */
export const CLI_DEFAULTS = {
  /** The Docker engine's local socket (the docker CLI's default). */
  dockerHost: 'unix:///var/run/docker.sock',
} as const;

/** The engine's defaults, for the loader and for tests and benches that need the same values. */
export const ENGINE_DEFAULTS = {
  dockerWaitSeconds: 300,
  logSpoolDir: 'sluice-log-spool',
  logDrainSeconds: 900,
} as const;
