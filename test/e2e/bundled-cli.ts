/**
 * The CLI bundle the server image carries (images/engine/bundle.sh), made into a temp directory
 * and laid out as in the image (`usr/local/lib/sluice`, no repository beside it), and
 * `sluice server` run from it on PGlite.
 * @module
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand, waitFor } from '@sluice/testkit';
import { REPO_ROOT } from './cli-harness.js';

/** Bundles the built CLI into `dir` and copies it to `dir/usr/local/lib/sluice`: that path. */
export async function bundleAsInImage(dir: string): Promise<{ bundle: string; lib: string }> {
  const bundle = join(dir, 'bundle');
  const made = await runCommand('bash', [`${REPO_ROOT}images/engine/bundle.sh`, bundle], {
    timeoutMs: 300_000,
  });
  assert.equal(made.code, 0, `bundle.sh failed (run npm run build first): ${made.stderr}`);
  const lib = join(dir, 'usr', 'local', 'lib', 'sluice');
  await cp(bundle, lib, { recursive: true });
  return { bundle, lib };
}

export interface BundledServer {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** `sluice.mjs server` of `lib` on a free port, with its data in `dir/data` and `token`. */
export async function startBundledServer(
  lib: string,
  dir: string,
  token: string,
): Promise<BundledServer> {
  const child: ChildProcess = spawn(process.execPath, [join(lib, 'sluice.mjs'), 'server'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      SLUICE_HOST: '127.0.0.1',
      SLUICE_PORT: '0',
      SLUICE_DATA_DIR: join(dir, 'data'),
      SLUICE_BOOTSTRAP_TOKEN: token,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (output += b.toString()));
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    const url = await waitFor(
      () => /listening on (http:\/\/\S+)/.exec(output)?.[1],
      (u) => u !== undefined,
      { what: 'the bundled server to listen', timeoutMs: 60_000, intervalMs: 100 },
    );
    return { url: url ?? '', output: () => output, stop };
  } catch (err) {
    await stop();
    throw new Error(`${String(err)}\n${output}`, { cause: err });
  }
}
