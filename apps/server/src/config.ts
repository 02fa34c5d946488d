/**
 * The server's configuration: defaults < environment < flags, validated once, frozen. The only
 * module of the server that reads process.env.
 * @module
 */
import { InputError } from '@sluice/errors';

export interface ServerConfig {
  /** Port to listen on; 0 picks a free one (tests). */
  port: number;
  host: string;
  /** PGlite data directory (also holds the server key when SLUICE_SECRET_KEY is unset). */
  dataDir: string | undefined;
  /** PostgreSQL instead of PGlite. */
  databaseUrl: string | undefined;
  /** The first admin token, for automation; random and printed once otherwise. */
  bootstrapToken: string | undefined;
  /** 32-byte key (base64) for secrets at rest. */
  secretKey: string | undefined;
  /** The URL agents and engines use to reach this server. */
  publicUrl: string | undefined;
  /** An agent without a heartbeat for this long is offline. */
  agentOfflineAfterMs: number;
  /** Time between passes that enforce the runtimes' workflowLimits (docs/runtime-limits.md). */
  limitsIntervalMs: number;
  /** How long a leased task stays with an agent before it may be handed out again. */
  taskLeaseMs: number;
  /** Port of the Prometheus `/metrics` listener (no token); 0 picks one; undefined: none. */
  metricsPort: number | undefined;
  /** Address of the `/metrics` listener; the API's `host` by default. */
  metricsHost: string;
}

export interface ServerFlags {
  port?: number;
  host?: string;
  dataDir?: string;
  metricsPort?: number;
}

function numberFrom(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  problems: string[],
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    problems.push(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

/** A port from `name`, or undefined when it is unset or empty. */
function optionalPort(env: NodeJS.ProcessEnv, name: string, problems: string[]) {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535)
    problems.push(`${name} must be a port from 0 to 65535, got "${raw}"`);
  return value;
}

export function loadServerConfig(
  flags: ServerFlags = {},
  env: NodeJS.ProcessEnv = process.env,
): Readonly<ServerConfig> {
  const problems: string[] = [];
  const config: ServerConfig = {
    port: flags.port ?? numberFrom(env, 'SLUICE_PORT', 8080, problems),
    host: flags.host ?? env.SLUICE_HOST ?? '127.0.0.1',
    dataDir: flags.dataDir ?? env.SLUICE_DATA_DIR ?? undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    bootstrapToken: env.SLUICE_BOOTSTRAP_TOKEN || undefined,
    secretKey: env.SLUICE_SECRET_KEY || undefined,
    publicUrl: env.SLUICE_PUBLIC_URL || undefined,
    agentOfflineAfterMs: numberFrom(env, 'SLUICE_AGENT_OFFLINE_AFTER_MS', 60_000, problems),
    limitsIntervalMs: numberFrom(env, 'SLUICE_LIMITS_INTERVAL_MS', 10_000, problems),
    taskLeaseMs: numberFrom(env, 'SLUICE_TASK_LEASE_MS', 60_000, problems),
    metricsPort: flags.metricsPort ?? optionalPort(env, 'SLUICE_METRICS_PORT', problems),
    metricsHost: env.SLUICE_METRICS_HOST || (flags.host ?? env.SLUICE_HOST ?? '127.0.0.1'),
  };
  if (config.databaseUrl === undefined && config.dataDir === undefined) {
    problems.push(
      'Give a data directory (--data-dir or SLUICE_DATA_DIR) for the embedded database, or DATABASE_URL for PostgreSQL',
    );
  }
  if (config.metricsPort === config.port && config.port !== 0)
    problems.push(
      `SLUICE_METRICS_PORT must differ from the API port ${config.port}: /metrics has a listener of its own`,
    );
  // A pass reads every active build: a tighter loop would only load the database.
  if (config.limitsIntervalMs >= 0 && config.limitsIntervalMs < 100)
    problems.push(
      `SLUICE_LIMITS_INTERVAL_MS must be at least 100, got "${env.SLUICE_LIMITS_INTERVAL_MS ?? ''}"`,
    );
  if (config.bootstrapToken !== undefined && config.bootstrapToken.length < 20) {
    problems.push('SLUICE_BOOTSTRAP_TOKEN must be at least 20 characters');
  }
  if (problems.length > 0) {
    throw new InputError(
      'SLUICE_SERVER_CONFIG_INVALID',
      `Invalid server configuration:\n  ${problems.join('\n  ')}`,
      { details: { problems } },
    );
  }
  return Object.freeze(config);
}
