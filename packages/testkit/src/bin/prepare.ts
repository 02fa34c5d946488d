#!/usr/bin/env node
/**
 * Prepares a machine for Sluice: makes the Docker engine answer (installing and starting it if
 * needed), then builds the local images. With `--test-services` it also installs what the test
 * tiers use (Debian's `postgresql`, `docker-registry`, `git` and `openssh-server`), so a fresh machine
 * sees those installs here, with progress, rather than in the middle of a test.
 *
 *   node packages/testkit/dist/bin/prepare.js [--only busybox|git] [--registry HOST[:PORT]] [--test-services]
 *
 * Exit codes: 0 ready, 1 a step failed (its message and hint are printed), 2 bad arguments.
 * @module
 */
import { parseArgs } from 'node:util';
import { describeError } from '@sluice/errors';
import { ensureDockerEngine } from '../docker-engine.js';
import { ensureTestImages } from '../test-images.js';
import { findServerBinDir } from '../postgres-binaries.js';
import { ensureRegistryBinary } from '../registry.js';
import { ensureGit } from '../git-repo.js';
import { ensureSshd } from '../git-ssh-server.js';
import type { EnsureTestImagesOptions } from '../test-images.js';

const USAGE =
  'usage: node packages/testkit/dist/bin/prepare.js [--only busybox|git] [--registry HOST[:PORT]] [--test-services]';

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

type ParsedOptions =
  | { ok: true; value: EnsureTestImagesOptions; testServices: boolean }
  | { ok: false; issue: string };

function parseOptions(argv: string[]): ParsedOptions {
  let values: {
    only?: string | undefined;
    registry?: string | undefined;
    'test-services'?: boolean | undefined;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        only: { type: 'string' },
        registry: { type: 'string' },
        'test-services': { type: 'boolean' },
      },
    }));
  } catch (err) {
    return { ok: false, issue: describeError(err) };
  }
  const { only, registry } = values;
  if (only !== undefined && only !== 'busybox' && only !== 'git') {
    return { ok: false, issue: `Unknown image ${JSON.stringify(only)} for --only` };
  }
  return {
    ok: true,
    value: { log: print, only, registry },
    testServices: values['test-services'] === true,
  };
}

async function main(argv: string[]): Promise<number> {
  const options = parseOptions(argv);
  if (!options.ok) {
    process.stderr.write(`${options.issue}\n${USAGE}\n`);
    return 2;
  }
  try {
    print('checking the Docker engine ...');
    const engine = await ensureDockerEngine({ log: print });
    print(`Docker engine ${engine.started ? 'started' : 'answers'} on ${engine.socketPath}`);
    const { images } = await ensureTestImages(options.value);
    print(`ready: ${images.join(', ')}`);
    if (options.testServices) {
      print('checking PostgreSQL, docker-registry, git and OpenSSH for the tests ...');
      print(`PostgreSQL server binaries in ${await findServerBinDir(print)}`);
      print(`docker-registry at ${await ensureRegistryBinary(print)}`);
      print(`git at ${await ensureGit(print)}`);
      print(`sshd at ${await ensureSshd(print)}`);
    }
    return 0;
  } catch (err) {
    process.stderr.write(`${describeError(err)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
