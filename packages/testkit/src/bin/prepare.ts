#!/usr/bin/env node
/**
 * Prepares a machine for the integration tests: makes the Docker engine answer (installing and
 * starting it if needed), then builds the local test images.
 *
 *   node packages/testkit/dist/bin/prepare.js [--only busybox|git] [--registry HOST[:PORT]]
 *
 * Exit codes: 0 ready, 1 a step failed (its message and hint are printed), 2 bad arguments.
 * @module
 */
import { parseArgs } from 'node:util';
import { describeError } from '@sluice/errors';
import { ensureDockerEngine } from '../docker-engine.js';
import { ensureTestImages } from '../test-images.js';
import type { EnsureTestImagesOptions } from '../test-images.js';

const USAGE =
  'usage: node packages/testkit/dist/bin/prepare.js [--only busybox|git] [--registry HOST[:PORT]]';

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

type ParsedOptions = { ok: true; value: EnsureTestImagesOptions } | { ok: false; issue: string };

function parseOptions(argv: string[]): ParsedOptions {
  let values: { only?: string | undefined; registry?: string | undefined };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { only: { type: 'string' }, registry: { type: 'string' } },
    }));
  } catch (err) {
    return { ok: false, issue: describeError(err) };
  }
  const { only, registry } = values;
  if (only !== undefined && only !== 'busybox' && only !== 'git') {
    return { ok: false, issue: `Unknown image ${JSON.stringify(only)} for --only` };
  }
  return { ok: true, value: { log: print, only, registry } };
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
    return 0;
  } catch (err) {
    process.stderr.write(`${describeError(err)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
