/**
 * Installs Debian packages the tests need (docker.io, postgresql) when the machine lacks them.
 * Returns a result rather than throwing so each caller raises its own coded error.
 * @module
 */
import { childEnv, readTestkitEnv } from './config.js';
import { findExecutable, runCommand, SYSTEM_BIN_DIRS, tailLines } from './run-command.js';

export type AptInstallResult = { ok: true } | { ok: false; step: string; output: string };

export interface AptInstallOptions {
  log?: (line: string) => void;
}

export async function aptInstall(
  packages: readonly string[],
  options: AptInstallOptions = {},
): Promise<AptInstallResult> {
  const log = options.log ?? (() => undefined);
  const install = ['install', '-y', ...packages];
  const step = `apt-get ${install.join(' ')}`;
  // Another install may hold dpkg's lock (the Kubernetes set-up runs beside the first tiers).
  const waitForLock = ['-o', 'DPkg::Lock::Timeout=600'];
  if (process.getuid?.() !== 0) return { ok: false, step: `${step} (needs root)`, output: '' };
  const apt = findExecutable('apt-get', [...readTestkitEnv().path, ...SYSTEM_BIN_DIRS]);
  if (apt === undefined) return { ok: false, step: `${step} (apt-get not found)`, output: '' };
  const env = childEnv({ DEBIAN_FRONTEND: 'noninteractive' });
  log(`running ${step} ...`);
  let result = await runCommand(apt, [...waitForLock, ...install], { env });
  if (result.code === 0) return { ok: true };
  // A fresh machine often has no package lists yet.
  log('apt-get install failed; running apt-get update and retrying');
  const update = await runCommand(apt, ['update'], { env });
  if (update.code !== 0) {
    return {
      ok: false,
      step: 'apt-get update',
      output: tailLines(update.stderr + update.stdout, 20),
    };
  }
  result = await runCommand(apt, [...waitForLock, ...install], { env });
  if (result.code === 0) return { ok: true };
  return { ok: false, step, output: tailLines(result.stderr + result.stdout, 20) };
}

/**
 * `program` (looked for in the system directories), installing Debian's `pkg` when it is
 * missing. `path` is undefined when it is still missing; `failed` then names the step that failed.
 */
export async function findOrInstall(
  program: string,
  pkg: string,
  options: AptInstallOptions = {},
): Promise<{ path: string | undefined; failed?: string }> {
  const find = () => findExecutable(program, SYSTEM_BIN_DIRS);
  const found = find();
  if (found !== undefined) return { path: found };
  const installed = await aptInstall([pkg], options);
  return { path: find(), failed: installed.ok ? undefined : installed.step };
}
