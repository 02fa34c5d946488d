/**
 * `sluice server`: the control plane on PGlite in `--data-dir`, or on PostgreSQL with
 * DATABASE_URL. Prints the URL, and the admin token once when this start created the admin.
 * SIGINT/SIGTERM close it in order. `openControlPlane` is also how `sluice up` starts it.
 * @module
 */
import { createServer, loadServerConfig } from '@sluice/server';
import type { ServerConfig, SluiceServer } from '@sluice/server';
import { createLogger } from '@sluice/log';
import type { Logger } from '@sluice/log';
import type { Terminal } from '../ui/terminal.js';
import { waitForStopSignal } from './stop-signal.js';

export interface ServerCommandOptions {
  port?: number;
  host?: string;
  dataDir?: string;
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
    throw err;
  }
}

export async function serverCommand(
  term: Terminal,
  options: ServerCommandOptions,
): Promise<number> {
  const config = loadServerConfig(options);
  const { server, url } = await openControlPlane(config, createLogger({ level: 'info' }));
  term.out(`Sluice server listening on ${url} (${server.services.ctx.database.kind})`);
  if (server.bootstrapToken !== undefined) {
    term.out(`Admin token (shown once, keep it safe): ${server.bootstrapToken}`);
  }
  await waitForStopSignal();
  term.out('Stopping the server');
  await server.close();
  return 0;
}
