/**
 * `sluice server`: the control plane on PGlite in `--data-dir`, or on PostgreSQL with
 * DATABASE_URL. Prints the URL, and the admin token once when this start created the admin.
 * SIGINT/SIGTERM close it in order.
 * @module
 */
import { createServer, loadServerConfig } from '@sluice/server';
import { createLogger } from '@sluice/log';
import type { Terminal } from '../ui/terminal.js';

export interface ServerCommandOptions {
  port?: number;
  host?: string;
  dataDir?: string;
}

export async function serverCommand(
  term: Terminal,
  options: ServerCommandOptions,
): Promise<number> {
  const config = loadServerConfig(options);
  const server = await createServer({ config, logger: createLogger({ level: 'info' }) });
  const url = await server.listen();
  term.out(`Sluice server listening on ${url} (${server.services.ctx.database.kind})`);
  if (server.bootstrapToken !== undefined) {
    term.out(`Admin token (shown once, keep it safe): ${server.bootstrapToken}`);
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  term.out('Stopping the server');
  await server.close();
  return 0;
}
