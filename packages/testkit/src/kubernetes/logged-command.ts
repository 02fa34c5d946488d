/**
 * Runs a long setup command (apt-get, make, tar) with its whole output appended to a log file,
 * so a failure can point at the log instead of holding megabytes of build output in memory.
 * @module
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export interface LoggedCommandOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Called with every output line (stdout and stderr), e.g. to surface progress. */
  onLine?: (line: string) => void;
}

export interface LoggedCommandResult {
  /** Exit code, or -1 when the command could not be started or was killed by a signal. */
  code: number;
  spawnError: Error | undefined;
}

export async function runLogged(
  command: string,
  args: readonly string[],
  logPath: string,
  options: LoggedCommandOptions = {},
): Promise<LoggedCommandResult> {
  const log = createWriteStream(logPath, { flags: 'a' });
  await new Promise((resolve) => log.once('open', resolve));
  log.write(`\n$ ${command} ${args.join(' ')}\n`);
  const result = await new Promise<LoggedCommandResult>((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: 'pipe' });
    let spawnError: Error | undefined;
    child.on('error', (err) => (spawnError = err));
    for (const stream of [child.stdout, child.stderr]) {
      let pending = '';
      stream.on('data', (chunk: Buffer) => {
        log.write(chunk);
        if (options.onLine === undefined) return;
        const lines = (pending + chunk.toString('utf8')).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) options.onLine(line);
      });
    }
    child.stdin.end();
    child.on('close', (code) => resolve({ code: spawnError ? -1 : (code ?? -1), spawnError }));
  });
  log.write(`[exit ${result.code}${result.spawnError ? `: ${result.spawnError.message}` : ''}]\n`);
  await new Promise((resolve) => log.end(resolve));
  return result;
}
