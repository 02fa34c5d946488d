/**
 * The Kubernetes server binaries (apiserver, controller-manager, scheduler, kubelet, kube-proxy),
 * built once per machine from Debian's `kubernetes` source package with Debian's Go, and cached
 * by version in a machine-wide directory (`SLUICE_KUBE_CACHE_DIR`, default
 * /var/cache/sluice/kubernetes). The build takes about 4 minutes on 2 cores alone, 8 beside the
 * test tiers; later calls return in milliseconds. Only the binaries the cache lacks are built (a
 * cache made before kube-proxy was added gets kube-proxy alone). A lock file makes concurrent
 * callers wait for one build, and an interrupted build resumes where it stopped (the unpacked
 * source and Go's build cache are kept until the build succeeds).
 * @module
 */
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { aptInstall } from '../apt-install.js';
import { childEnv, readTestkitEnv } from '../config.js';
import { findExecutable, runCommand, SYSTEM_BIN_DIRS } from '../run-command.js';
import { acquireLock } from './build-lock.js';
import {
  describeProgress,
  directoryBytes,
  formatDuration,
  makeStageLines,
  startHeartbeat,
} from './build-progress.js';
import { fetchKubernetesSource } from './kube-source.js';
import { KUBE_BUILD_FAILED, stepFailed } from './kube-errors.js';
import type { StepFailureOptions } from './kube-errors.js';
import { runLogged } from './logged-command.js';

export const KUBERNETES_VERSION = 'v1.20.2';
export const KUBE_BINARIES = [
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubelet',
  'kube-proxy',
] as const;
export type KubeBinary = (typeof KUBE_BINARIES)[number];
/** The build tags beside upstream's own (`selinux,notest`). */
const BUILD_TAGS = 'providerless';

const TOOLCHAIN = ['golang-go', 'rsync', 'make'] as const;

export interface EnsureKubernetesBinariesOptions {
  log?: (line: string) => void;
  /** Defaults to `SLUICE_KUBE_CACHE_DIR` or /var/cache/sluice/kubernetes. */
  cacheDir?: string;
}

export interface KubernetesBinaries {
  version: string;
  /** Directory holding the four binaries. */
  binDir: string;
  /** Whether this call built them (false: taken from the cache). */
  built: boolean;
  path(name: KubeBinary): string;
}

interface BuildContext {
  dir: string;
  work: string;
  logPath: string;
  log: (line: string) => void;
  /** The binaries the cache lacks: what this build makes. */
  missing: readonly KubeBinary[];
}

export async function ensureKubernetesBinaries(
  options: EnsureKubernetesBinariesOptions = {},
): Promise<KubernetesBinaries> {
  const log = options.log ?? (() => undefined);
  const dir = join(options.cacheDir ?? readTestkitEnv().kubeCacheDir, KUBERNETES_VERSION);
  if (await isComplete(dir)) return binariesIn(dir, false);
  const ctx: BuildContext = {
    dir,
    work: join(dir, 'work'),
    logPath: join(dir, 'build.log'),
    log,
    missing: missingBinaries(dir),
  };
  await mkdir(dir, { recursive: true }).catch((cause: unknown) => {
    throw failed(ctx, `create the cache directory ${dir}`, {
      cause,
      hint: `run as root, or set SLUICE_KUBE_CACHE_DIR to a writable directory`,
    });
  });
  const lock = await acquireLock(join(dir, '.lock'), {
    onWait: (pid) =>
      log(`waiting for process ${pid}, which is building Kubernetes (log: ${ctx.logPath})`),
  });
  try {
    if (await isComplete(dir)) return binariesIn(dir, false);
    await build({ ...ctx, missing: missingBinaries(dir) });
    return binariesIn(dir, true);
  } finally {
    await lock.release();
  }
}

async function build(ctx: BuildContext): Promise<void> {
  const started = Date.now();
  ctx.log(
    `building Kubernetes ${KUBERNETES_VERSION} (${ctx.missing.join(', ')}) from Debian's source ` +
      `package: about 4 minutes on 2 cores alone, up to 8 beside the tests, once per machine, ` +
      `cached in ${ctx.dir} (log: ${ctx.logPath})`,
  );
  await ensureToolchain(ctx);
  const source = await fetchKubernetesSource({
    workDir: ctx.work,
    logPath: ctx.logPath,
    log: ctx.log,
    fail: (step, options) => failed(ctx, step, options),
  });
  await runMake(ctx, source);
  await installBinaries(ctx, source);
  const seconds = Math.round((Date.now() - started) / 1000);
  await writeFile(join(ctx.dir, 'build.json'), stamp(seconds));
  await rm(ctx.work, { recursive: true, force: true });
  ctx.log(`built Kubernetes ${KUBERNETES_VERSION} in ${formatDuration(seconds * 1000)}`);
}

async function ensureToolchain(ctx: BuildContext): Promise<void> {
  const dirs = [...readTestkitEnv().path, ...SYSTEM_BIN_DIRS];
  if (['go', 'rsync', 'make'].every((tool) => findExecutable(tool, dirs) !== undefined)) return;
  const result = await aptInstall(TOOLCHAIN, { log: ctx.log });
  if (!result.ok) {
    throw failed(ctx, result.step, {
      output: result.output,
      hint: `apt-get install -y ${TOOLCHAIN.join(' ')}`,
    });
  }
}

/** The upstream make target: it runs the code generators (openapi) that a plain go build misses. */
async function runMake(ctx: BuildContext, source: string): Promise<void> {
  const what = ctx.missing.map((name) => `cmd/${name}`).join(' ');
  const step = `make WHAT="${what}" KUBE_GIT_VERSION=${KUBERNETES_VERSION}`;
  ctx.log(`running ${step} in ${source}`);
  const started = Date.now();
  const heartbeat = startHeartbeat(async () => {
    const done = countPresent(ctx.missing.map((name) => join(source, '_output/bin', name)));
    const facts = {
      elapsedMs: Date.now() - started,
      goCacheBytes: await directoryBytes(join(source, '_output/local/go/cache')),
      binariesDone: done,
      binariesTotal: ctx.missing.length,
      logPath: ctx.logPath,
    };
    ctx.log(describeProgress(facts));
  }, 30_000);
  const stages = makeStageLines((line) => ctx.log(`kubernetes build: ${line}`));
  // The caller's Go settings are not the build's: unset first, then the build's own.
  const env = childEnv();
  for (const name of ['GOFLAGS', 'GOGCFLAGS', 'GOPATH', 'GO111MODULE', 'GOROOT']) delete env[name];
  Object.assign(env, buildEnv(ctx.work));
  const args = [`WHAT=${what}`, `KUBE_GIT_VERSION=${KUBERNETES_VERSION}`];
  const result = await runLogged('make', args, ctx.logPath, {
    cwd: source,
    env,
    onLine: stages.line,
  }).finally(() => {
    heartbeat.stop();
    stages.flush();
  });
  if (result.code !== 0) throw failed(ctx, step, { cause: result.spawnError });
}

function buildEnv(work: string): Record<string, string> {
  // A private HOME keeps Go's and make's dot files out of the user's; the build sets its own
  // GOPATH and GOCACHE under _output/, which is what makes a rerun resume. GOGC=400: the
  // compiler collects its garbage a quarter as often (more memory, a few GiB at most with two
  // packages compiled at once), and the build is CPU time the tests beside it wait for.
  // `providerless` leaves out the in-tree cloud providers and their SDKs (AWS, Azure, GCE,
  // OpenStack, vSphere), which a test cluster has no use for, and `-dwarf=false` the debug
  // information the linker strips anyway (`-s -w`): a fifth less CPU, binaries half the size
  // (upstream's own build reads the tags from GOFLAGS and appends GOGCFLAGS).
  return {
    HOME: join(work, 'home'),
    CGO_ENABLED: '0',
    GOPROXY: 'off',
    GOTOOLCHAIN: 'local',
    GOGC: '400',
    GOFLAGS: `-tags=${BUILD_TAGS}`,
    GOGCFLAGS: 'all=-dwarf=false',
  };
}

async function installBinaries(ctx: BuildContext, source: string): Promise<void> {
  const binDir = join(ctx.dir, 'bin');
  await mkdir(binDir, { recursive: true });
  for (const name of ctx.missing) {
    await copyFile(join(source, '_output/bin', name), join(binDir, name)).catch(
      (cause: unknown) => {
        throw failed(ctx, `copy _output/bin/${name} into ${binDir}`, { cause });
      },
    );
    await chmod(join(binDir, name), 0o755);
  }
  const first = ctx.missing[0] ?? 'kube-apiserver';
  const version = await runCommand(join(binDir, first), ['--version']);
  if (!version.stdout.includes(KUBERNETES_VERSION)) {
    throw failed(ctx, `check ${first} --version`, {
      output: version.stdout + version.stderr,
    });
  }
}

function stamp(seconds: number): string {
  const facts = {
    version: KUBERNETES_VERSION,
    binaries: KUBE_BINARIES,
    tags: BUILD_TAGS,
    buildSeconds: seconds,
  };
  return `${JSON.stringify({ ...facts, builtAt: new Date().toISOString() }, null, 2)}\n`;
}

async function isComplete(dir: string): Promise<boolean> {
  const text = await readFile(join(dir, 'build.json'), 'utf8').catch(() => '');
  return text.includes(KUBERNETES_VERSION) && missingBinaries(dir).length === 0;
}

/** What the cache lacks; every binary when no build of this version finished there. */
function missingBinaries(dir: string): KubeBinary[] {
  if (!existsSync(join(dir, 'build.json'))) return [...KUBE_BINARIES];
  return KUBE_BINARIES.filter((name) => !existsSync(join(dir, 'bin', name)));
}

function countPresent(paths: readonly string[]): number {
  return paths.filter((path) => existsSync(path)).length;
}

function binariesIn(dir: string, built: boolean): KubernetesBinaries {
  const binDir = join(dir, 'bin');
  return { version: KUBERNETES_VERSION, binDir, built, path: (name) => join(binDir, name) };
}

function failed(ctx: BuildContext, step: string, options: StepFailureOptions = {}) {
  return stepFailed(KUBE_BUILD_FAILED, `Building Kubernetes ${KUBERNETES_VERSION}`, step, {
    logPath: options.output === undefined ? ctx.logPath : undefined,
    ...options,
  });
}
