#!/usr/bin/env node
/**
 * Prepares a machine for the kube test tier, printing progress as it goes: builds (or finds in
 * the cache) the Kubernetes binaries, installs etcd, containerd, runc and the CNI plugins,
 * builds the chart renderer (Helm's template engine from Debian's Go packages) and the cluster
 * images. The test command runs it before the tests so that a fresh
 * machine's build (minutes) shows its progress instead of sitting inside a test's `before`.
 *
 *   node packages/testkit/dist/kubernetes/bin/prepare-kubernetes.js [--no-images]
 *
 * Exit codes: 0 ready, 1 a step failed (its message, log path and hint are printed), 2 bad arguments.
 * @module
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { describeError } from '@sluice/errors';
import { ensureChartRenderer } from '../../chart-render.js';
import { readTestkitEnv } from '../../config.js';
import { ensureDockerEngine } from '../../docker-engine.js';
import { ensureClusterImages } from '../cluster-images.js';
import { CONTROL_PLANE_PACKAGES, ensureHostPackages, NODE_PACKAGES } from '../host-packages.js';
import { ensureKubernetesBinaries } from '../kube-build.js';

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function prepare(images: boolean): Promise<void> {
  const started = Date.now();
  const binaries = await ensureKubernetesBinaries({ log: print });
  print(
    `Kubernetes ${binaries.version} ${binaries.built ? 'built' : 'cached'} in ${binaries.binDir}`,
  );
  await ensureHostPackages([...CONTROL_PLANE_PACKAGES, ...NODE_PACKAGES], print);
  print('etcd, containerd, runc and the CNI plugins are installed');
  print(`chart renderer at ${await ensureChartRenderer({ log: print })}`);
  if (images) {
    await ensureDockerEngine({ log: print });
    const logPath = join(readTestkitEnv().kubeCacheDir, 'cluster-images.log');
    await mkdir(dirname(logPath), { recursive: true });
    await writeFile(logPath, '');
    await ensureClusterImages({ log: print, logPath });
  }
  print(`ready for the kube tier (${Math.round((Date.now() - started) / 1000)} s)`);
}

function parseImagesFlag(argv: string[]): boolean | undefined {
  try {
    const { values } = parseArgs({ args: argv, options: { 'no-images': { type: 'boolean' } } });
    return values['no-images'] !== true;
  } catch (err) {
    process.stderr.write(`${describeError(err)}\nusage: prepare-kubernetes.js [--no-images]\n`);
    return undefined;
  }
}

async function main(argv: string[]): Promise<number> {
  const images = parseImagesFlag(argv);
  if (images === undefined) return 2;
  try {
    await prepare(images);
    return 0;
  } catch (err) {
    process.stderr.write(`${describeError(err, { verbose: true })}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
