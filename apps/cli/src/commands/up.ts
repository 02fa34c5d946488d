/**
 * `sluice up [--demo] [--port N] [--data-dir DIR]`: the embedded default, everything on one
 * machine in one process. The control plane on PGlite in DIR (`$SLUICE_HOME` or `~/.sluice`),
 * its runtime environment `local` and agent `local` (made once, see up-setup.ts), and the agent
 * itself, whose engines are `sluice engine` processes on this machine's Docker engine. Prints
 * the URL, the admin token (on a terminal; otherwise only its file) and what to do next;
 * `--demo` then runs a build and follows its log. SIGINT/SIGTERM stop the agent (running
 * builds end `error`, stopped from outside), then the server. Whatever fails while stopping (a data directory
 * removed under it), the other parts are still stopped, the failure is said, and the process
 * ends with 70.
 * @module
 */
import { join } from 'node:path';
import { isSluiceError } from '@sluice/errors';
import { createLogger } from '@sluice/log';
import type { Logger } from '@sluice/log';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import { waitForStopSignal } from '@sluice/process';
import { startEmbeddedAgent } from '@sluice/runner/main';
import type { RunningAgent } from '@sluice/runner/main';
import { loadServerConfig, openControlPlane } from '@sluice/server/main';
import type { ServerConfig } from '@sluice/server/main';
import { printError } from '../ui/terminal.js';
import type { Terminal } from '../ui/terminal.js';
import { CLI_VERSION } from '../version.js';
import { localEngineCommand } from './agent.js';
import { runDemo } from './up-demo.js';
import {
  adminToken,
  checkAdminToken,
  ensureLocalAgent,
  ensureLocalRuntime,
  LOCAL_RUNTIME,
  upFiles,
} from './up-setup.js';
import type { UpFiles } from './up-setup.js';

export interface UpOptions {
  demo?: boolean;
  port?: number;
  dataDir?: string;
}

export async function upCommand(
  term: Terminal,
  options: UpOptions,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const files = upFiles(options.dataDir, env);
  // Components log warnings and errors only: the terminal belongs to the URL, token and demo.
  const logger = createLogger({ level: 'warn' });
  const progress = (text: string) => term.out(term.paint('dim', `… ${text}`));
  progress(`starting the control plane (embedded database in ${files.dir})`);
  const token = adminToken(files);
  const { config, listening } = upServerConfig(options.port ?? 8080, files, token, env);
  const { server, url } = await openControlPlane(config, logger);
  listening(url);
  let agent: RunningAgent | undefined;
  let stopping: Promise<boolean> | undefined;
  const shutDown = () => (stopping ??= stopAll(term, agent, server));
  try {
    const admin = createClient({ baseUrl: url, token });
    if (server.bootstrapToken === undefined) await checkAdminToken(admin, files);
    agent = await startLocalAgent(admin, url, files, { logger, progress });
    await agent.ready;
    const stopped = waitForStopSignal(env, agent.ready);
    stopped.catch(() => undefined); // Awaited below; a demo failure must not leave it unhandled.
    printWelcome(term, url, token, files);
    if (options.demo) await runDemoUntil(term, admin, stopped);
    const signal = await stopped;
    term.out(`${signal}: stopping (running builds end terminated)`);
    return (await shutDown()) ? 0 : endAnyway(STOP_FAILED);
  } finally {
    // Also when starting or the demo failed: what started is stopped.
    await shutDown();
  }
}

/** The exit code of an `up` whose stopping failed (sysexits' EX_SOFTWARE, as `internal`). */
const STOP_FAILED = 70;
/** How long a process whose stopping failed may take to end by itself. */
const END_ANYWAY_MS = 5_000;

/**
 * Stops the agent, then the server, each whatever the other did; false when one failed (said
 * on stderr). A part that failed to stop may hold the process up (a timer, a socket).
 */
async function stopAll(
  term: Terminal,
  agent: RunningAgent | undefined,
  server: Awaited<ReturnType<typeof openControlPlane>>['server'],
): Promise<boolean> {
  let stopped = true;
  const stop = async (what: string, action: () => Promise<void>) => {
    try {
      await action();
    } catch (err) {
      stopped = false;
      const message = err instanceof Error ? err.message : String(err);
      printError(term, `Stopping ${what} failed: ${message}`, isSluiceError(err) ? err.hint : '');
    }
  };
  await stop('the agent', async () => agent?.stop());
  await stop('the control plane', async () => {
    // Nothing is left to answer, but a connection the agent's HTTP client opened and never
    // used would hold the close for the keep-alive timeout (about 70 s).
    server.app.server.closeAllConnections();
    await server.close();
  });
  return stopped;
}

/**
 * `code`, and a timer that ends the process with it should what failed to stop hold the
 * process up: the person (or supervisor) who sent the signal asked for the end of it.
 */
function endAnyway(code: number): number {
  setTimeout(() => process.exit(code), END_ANYWAY_MS).unref();
  return code;
}

/**
 * The control plane of `up`: PGlite in the data directory (whatever DATABASE_URL and
 * SLUICE_SECRET_KEY say), the saved admin token, and the public URL that engines are given,
 * which has the real port only once the server listens.
 */
function upServerConfig(
  port: number,
  files: UpFiles,
  token: string,
  env: NodeJS.ProcessEnv,
): { config: ServerConfig; listening: (url: string) => void } {
  const address: { url?: string } = {};
  const flags = { port, host: '127.0.0.1', dataDir: files.dir };
  const config: ServerConfig = {
    ...loadServerConfig(flags, { ...env, DATABASE_URL: '', SLUICE_SECRET_KEY: '' }),
    bootstrapToken: token,
    get publicUrl() {
      return address.url;
    },
  };
  return { config, listening: (url) => void (address.url = url) };
}

async function startLocalAgent(
  admin: SluiceClient,
  url: string,
  files: UpFiles,
  context: { logger: Logger; progress: (text: string) => void },
): Promise<RunningAgent> {
  const runtime = await ensureLocalRuntime(admin);
  context.progress(`runtime environment "${LOCAL_RUNTIME}" ${runtime}, the default`);
  const agentToken = await ensureLocalAgent(admin, url, files);
  context.progress(
    `starting the agent (engines on the Docker engine; state in ${files.agentState})`,
  );
  return startEmbeddedAgent({
    serverUrl: url,
    token: agentToken,
    runtime: LOCAL_RUNTIME,
    stateDir: files.agentState,
    engineCommand: localEngineCommand(),
    logger: context.logger,
    version: CLI_VERSION,
  });
}

/** The demo, cut short by Ctrl-C (the build it started is then stopped with the agent). */
async function runDemoUntil(
  term: Terminal,
  admin: SluiceClient,
  stopped: Promise<unknown>,
): Promise<void> {
  const abort = new AbortController();
  void stopped.finally(() => abort.abort()).catch(() => undefined);
  await runDemo(term, admin, abort.signal);
  if (!abort.signal.aborted) term.out('\nThe demo is done; Sluice keeps running until Ctrl-C.');
}

function printWelcome(term: Terminal, url: string, token: string, files: UpFiles): void {
  const lines = [
    '',
    term.paint('bold', `Sluice is up at ${url}`),
    // Off a terminal (a pipe, a log collector) only where it is: the token stays out of logs.
    term.interactive
      ? `Admin token: ${token}  (kept in ${files.adminToken})`
      : `Admin token: in ${files.adminToken} (mode 0600; not printed, stdout is not a terminal)`,
    '',
    'Next steps:',
    `  npx sluice auth create-context local --url ${url} --token-stdin < ${files.adminToken}`,
    '  npx sluice get pipelines                           # then: sluice run-pipeline PROJECT/PIPELINE',
    '  npx sluice get builds                              # sluice describe build ID, sluice logs -f ID',
    `  The API: ${url}/api/openapi.json; engine logs: ${join(files.agentState, '<build>.log')}`,
    'Ctrl-C stops Sluice (running builds end terminated).',
  ];
  for (const line of lines) term.out(line);
}
