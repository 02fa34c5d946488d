/**
 * The control plane's process, `sluice server` (composed by the CLI: `@sluice/server/main`): on
 * PGlite in `--data-dir`, or on PostgreSQL with DATABASE_URL. Prints the URL and, when this
 * start created the admin, where its token is: on a terminal the token itself, once; otherwise
 * (a pipe, a log collector) only the path of a 0600 file holding it, so the token never lands
 * in logs. SIGINT/SIGTERM close it in order. `openControlPlane` is also how `sluice up` starts
 * it.
 * @module
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '@sluice/errors';
import { createLogger } from '@sluice/log';
import type { Logger } from '@sluice/log';
import { waitForStopSignal } from '@sluice/process';
import { loadServerConfig } from './config.js';
import type { ServerConfig } from './config.js';
import { createServer } from './server.js';
import type { SluiceServer } from './server.js';

export { loadServerConfig } from './config.js';
export type { ServerConfig, ServerFlags } from './config.js';
export type { SluiceServer } from './server.js';

/** What the server prints for people: the CLI's terminal. */
export interface ServerOutput {
  out(text: string): void;
  err(text: string): void;
  /** Stdout is read by a person (not a pipe or a log collector): a token may be shown. */
  readonly interactive: boolean;
}

export interface ServerMainOptions {
  output: ServerOutput;
  port?: number;
  host?: string;
  dataDir?: string;
  /** Serve Prometheus `/metrics` on this port (SLUICE_METRICS_PORT). */
  metricsPort?: number;
}

export interface OpenControlPlane {
  server: SluiceServer;
  /** The address it listens on, e.g. `http://127.0.0.1:8080` (the real port when 0 was asked). */
  url: string;
}

/** Opens the database, builds the server and listens. */
export async function openControlPlane(
  config: Readonly<ServerConfig>,
  logger: Logger,
): Promise<OpenControlPlane> {
  const server = await createServer({ config, logger });
  try {
    return { server, url: await server.listen() };
  } catch (err) {
    await server.close();
    throw listenError(err, config);
  }
}

/** A port that cannot be had is the user's to fix: one line naming it, not a stack trace. */
function listenError(err: unknown, config: Readonly<ServerConfig>): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const where = `${config.host}:${config.port}`;
  const hint = 'Pick another with --port (or SLUICE_PORT), or --port 0 for any free port';
  if (code === 'EADDRINUSE')
    return new InputError('SLUICE_SERVER_PORT_IN_USE', `Port ${where} is in use`, { hint });
  if (code === 'EACCES')
    return new InputError('SLUICE_SERVER_PORT_DENIED', `Not allowed to listen on ${where}`, {
      hint: `Ports below 1024 need privileges. ${hint}`,
    });
  if (code === 'EADDRNOTAVAIL')
    return new InputError(
      'SLUICE_SERVER_HOST_UNKNOWN',
      `No address ${config.host} on this machine`,
      {
        hint: 'Pass --host with an address of this machine, or 0.0.0.0 for all of them',
      },
    );
  return err;
}

/** Runs the control plane until SIGINT or SIGTERM; the exit code. */
export async function serverMain(options: ServerMainOptions): Promise<number> {
  const { output: term, ...flags } = options;
  const config = loadServerConfig(flags, process.env);
  const { server, url } = await openControlPlane(config, createLogger({ level: 'info' }));
  // Fastify names the loopback address for a wildcard host: say that every interface listens.
  const everywhere = ['0.0.0.0', '::'].includes(config.host)
    ? `, on every interface (--host ${config.host})`
    : '';
  term.out(`Sluice server listening on ${url} (${server.services.ctx.database.kind}${everywhere})`);
  const metricsUrl = server.metricsUrl();
  if (metricsUrl !== undefined) term.out(`Prometheus metrics on ${metricsUrl}/metrics`);
  if (server.bootstrapToken !== undefined) showAdminToken(term, config, server.bootstrapToken);
  await waitForStopSignal(process.env);
  term.out('Stopping the server');
  await server.close();
  return 0;
}

/** Where a new admin's token goes when stdout is not a terminal: `admin-token` in the data dir. */
export function adminTokenFile(config: Pick<ServerConfig, 'dataDir'>): string {
  return config.dataDir === undefined
    ? resolve('sluice-admin-token')
    : join(resolve(config.dataDir), 'admin-token');
}

function showAdminToken(term: ServerOutput, config: Readonly<ServerConfig>, token: string): void {
  if (config.bootstrapToken !== undefined) {
    term.out('Admin created with the token in SLUICE_BOOTSTRAP_TOKEN');
    return;
  }
  if (term.interactive) {
    term.out(`Admin token (shown once, keep it safe): ${token}`);
    return;
  }
  const file = adminTokenFile(config);
  try {
    writeToken(file, token);
    term.out(`Admin token: in ${file} (mode 0600; not printed, stdout is not a terminal)`);
  } catch (err) {
    // The admin exists now and its token is nowhere else: losing it is worse than logging it.
    term.err(`warning: could not write the admin token to ${file}: ${String(err)}`);
    term.out(`Admin token (shown once, keep it safe): ${token}`);
  }
}

/** Writes a token to `file`, readable by its owner only (mode 0600, also when it existed). */
export function writeToken(file: string, token: string): void {
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}
