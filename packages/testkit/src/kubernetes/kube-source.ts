/**
 * Downloads and unpacks Debian bookworm's `kubernetes` source package (1.20.5+really1.20.2: the
 * pristine upstream v1.20.2 tarball with `vendor/`), about 34 MB, through a private apt
 * configuration. Kept unpacked until the build succeeds, so an interrupted build resumes.
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { UnavailableError } from '@sluice/errors';
import { childEnv } from '../config.js';
import { debSrcStanzas, privateAptOptions, readAptSources } from './debian-source.js';
import type { StepFailureOptions } from './kube-errors.js';
import { runLogged } from './logged-command.js';

export const SOURCE_PACKAGE = 'kubernetes';
/** The Debian release whose archive still carries Kubernetes 1.20's source. */
export const SOURCE_SUITE = 'bookworm';
/** The directory the upstream tarball unpacks to. */
export const SOURCE_DIR_NAME = 'kubernetes-1.20.2';

export interface FetchSourceOptions {
  workDir: string;
  logPath: string;
  log: (line: string) => void;
  fail: (step: string, options?: StepFailureOptions) => UnavailableError;
}

/** Returns the unpacked source tree, downloading it first unless an earlier attempt did. */
export async function fetchKubernetesSource(options: FetchSourceOptions): Promise<string> {
  const source = join(options.workDir, 'src', SOURCE_DIR_NAME);
  const marker = join(source, '.sluice-unpacked');
  if (existsSync(marker)) {
    options.log(`resuming with the source already unpacked in ${source}`);
    return source;
  }
  const tarball = await download(options);
  await mkdir(join(options.workDir, 'src'), { recursive: true });
  const untar = await runLogged(
    'tar',
    ['-xzf', tarball, '-C', join(options.workDir, 'src')],
    options.logPath,
  );
  if (untar.code !== 0 || !existsSync(join(source, 'Makefile'))) {
    throw options.fail(`unpack ${tarball} into ${join(options.workDir, 'src')}`);
  }
  await writeFile(marker, `${tarball}\n`);
  return source;
}

async function download(options: FetchSourceOptions): Promise<string> {
  const stanzas = debSrcStanzas(await readAptSources(), { suite: SOURCE_SUITE });
  if (stanzas === '') {
    throw options.fail(`find a Debian ${SOURCE_SUITE} mirror in /etc/apt/sources.list(.d)`, {
      hint: `add Debian ${SOURCE_SUITE} main to the apt sources (Debian 12 has it by default)`,
      output: '',
    });
  }
  const aptDir = join(options.workDir, 'apt');
  const apt = await privateAptOptions(aptDir, stanzas);
  const env = childEnv({ DEBIAN_FRONTEND: 'noninteractive' });
  options.log(`fetching Debian's ${SOURCE_PACKAGE} source package (about 34 MB)`);
  const update = await runLogged('apt-get', [...apt, 'update'], options.logPath, { env });
  if (update.code !== 0)
    throw options.fail('apt-get update (private deb-src list)', { cause: update.spawnError });
  const downloads = join(options.workDir, 'download');
  await mkdir(downloads, { recursive: true });
  const args = [...apt, 'source', '--download-only', SOURCE_PACKAGE];
  const fetched = await runLogged('apt-get', args, options.logPath, { cwd: downloads, env });
  if (fetched.code !== 0) throw options.fail(`apt-get source --download-only ${SOURCE_PACKAGE}`);
  const names = await readdir(downloads);
  const orig = names.find((name) => /really1\.20\.2\.orig\.tar\.gz$/.test(name));
  if (orig === undefined) {
    throw options.fail(`find the v1.20.2 .orig.tar.gz among ${names.join(', ') || 'no files'}`, {
      hint: `the ${SOURCE_SUITE} archive no longer has kubernetes 1.20.5+really1.20.2; see the log`,
    });
  }
  return join(downloads, orig);
}
