/**
 * The example corpus: every `examples/**\/codefresh.yml` is listed in `examples/corpus.json`,
 * every example validates (with warnings exactly where the manifest says so), and every
 * runnable one runs with the built `sluice` CLI on the local Docker engine and ends as the
 * manifest expects, printing what it lists. The runs overlap, three at a time.
 * @module
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { ensureDockerEngine, ensureTestImages, makeTempDir, startRegistry } from '@sluice/testkit';
import type { TestRegistry } from '@sluice/testkit';
import { REPO_ROOT, runSluice } from './cli-harness.js';
import type { CliResult } from './cli-harness.js';

interface CorpusEntry {
  file: string;
  runs: boolean;
  args: string[];
  expect: 'success' | 'failure';
  warnings?: boolean;
  needs?: string[];
  output?: string[];
  absent?: string[];
}

const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
const corpus = readCorpus(join(EXAMPLES_DIR, 'corpus.json'));
const dir = await makeTempDir('sluice-e2e-corpus-');
const volumeKeys: string[] = [];
const fixtures = new Map<string, string>();
/** Started by the first example that names `{registry}`; the runs overlap, so one promise. */
let registry: Promise<TestRegistry> | undefined;

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
});

after(async () => {
  await (await registry)?.stop();
  for (const key of volumeKeys) spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${key}`]);
  // What the examples built and tagged, pushed copies included: `sluice-examples/` is theirs.
  const listed = spawnSync('docker', ['images', '--format', '{{.Repository}}:{{.Tag}}'], {
    encoding: 'utf8',
  }).stdout;
  const images = listed.split('\n').filter((image) => /(^|\/)sluice-examples\//.test(image));
  if (images.length > 0) spawnSync('docker', ['rmi', '-f', ...images]);
  await dir.cleanup();
});

/** The manifest, checked enough that a typo in it fails here rather than as a confusing run. */
function readCorpus(path: string): CorpusEntry[] {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { examples?: unknown };
  assert.ok(Array.isArray(raw.examples), `${path} must hold an "examples" list`);
  return raw.examples.map((value, index) => {
    const entry = value as Partial<CorpusEntry>;
    const where = `${path} entry ${index} (${String(entry.file)})`;
    assert.equal(typeof entry.file, 'string', `${where}: "file" must be a string`);
    assert.equal(typeof entry.runs, 'boolean', `${where}: "runs" must be true or false`);
    assert.ok(Array.isArray(entry.args), `${where}: "args" must be a list`);
    assert.ok(
      entry.expect === 'success' || entry.expect === 'failure',
      `${where}: "expect" must be "success" or "failure"`,
    );
    assert.ok(
      entry.runs || (entry.needs?.length ?? 0) > 0,
      `${where}: an example that does not run must say what it "needs"`,
    );
    return entry as CorpusEntry;
  });
}

function pipelineFiles(root: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) found.push(...pipelineFiles(path));
    else if (entry.name === 'codefresh.yml') found.push(relative(REPO_ROOT, path));
  }
  return found.sort();
}

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

/** A fresh repository (branch main, one commit) holding the files of `source`, as a file:// URL. */
function gitFixture(source: string): string {
  const known = fixtures.get(source);
  if (known !== undefined) return known;
  const target = join(dir.path, `${basename(dirname(source))}-${basename(source)}`);
  cpSync(join(REPO_ROOT, source), target, { recursive: true });
  git(['init', '-q', '-b', 'main'], target);
  git(['add', '-A'], target);
  git(
    [
      '-c',
      'user.name=Sluice',
      '-c',
      'user.email=sluice@localhost',
      'commit',
      '-q',
      '-m',
      'example',
    ],
    target,
  );
  const url = `file://${target}`;
  fixtures.set(source, url);
  return url;
}

/** `{repo}`, `{head}`, `{git:DIR}` and `{registry}` in the args, as the manifest describes them. */
async function expandArgs(args: string[]): Promise<string[]> {
  const root = REPO_ROOT.replace(/\/$/, '');
  if (args.some((arg) => arg.includes('{registry}'))) registry ??= startRegistry();
  const registryAddress = (await registry)?.address ?? '';
  return args.map((arg) =>
    arg
      .replaceAll('{repo}', root)
      .replaceAll('{registry}', registryAddress)
      .replaceAll('{head}', () => git(['rev-parse', 'HEAD'], root))
      .replace(/\{git:([^}]+)\}/g, (_match, source: string) => gitFixture(source)),
  );
}

function volumeKey(file: string): string {
  const key = `corpus-${basename(dirname(file))}-${process.pid}`;
  volumeKeys.push(key);
  return key;
}

/**
 * The images an example tags or runs, `sluice-examples/NAME`, as its folder's files name them
 * (the pipeline and what it builds or composes).
 */
function imagesOf(file: string): string[] {
  const folder = join(REPO_ROOT, dirname(file));
  const texts = readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'));
  return [...new Set(texts.join('\n').match(/sluice-examples\/[a-z0-9._-]+/g) ?? [])];
}

/** Runs work once no other run holds any of its keys; a run takes all of its keys at once. */
class Turns {
  readonly #held = new Set<string>();
  #waiting: (() => void)[] = [];

  async run<T>(keys: string[], work: () => Promise<T>): Promise<T> {
    while (keys.some((key) => this.#held.has(key))) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    for (const key of keys) this.#held.add(key);
    try {
      return await work();
    } finally {
      for (const key of keys) this.#held.delete(key);
      const waiting = this.#waiting;
      this.#waiting = [];
      for (const wake of waiting) wake();
    }
  }
}

const imageTurns = new Turns();

function transcript(result: CliResult): string {
  const lines = `${result.stdout}\n${result.stderr}`.split('\n');
  return `exit ${result.code ?? result.signal}; last lines:\n${lines.slice(-80).join('\n')}`;
}

test('every example pipeline is listed in examples/corpus.json, and nothing else', () => {
  const listed = new Set(corpus.map((entry) => entry.file));
  const onDisk = pipelineFiles(EXAMPLES_DIR);
  const missing = onDisk.filter((file) => !listed.has(file));
  const stale = [...listed].filter((file) => !onDisk.includes(file));
  assert.deepEqual(missing, [], `add these to examples/corpus.json: ${missing.join(', ')}`);
  assert.deepEqual(
    stale,
    [],
    `these entries of examples/corpus.json have no file: ${stale.join(', ')}`,
  );
  assert.equal(listed.size, corpus.length, 'examples/corpus.json lists a file twice');
});

test('every example validates, with warnings only where the manifest allows them', async (t) => {
  // One process for them all: the CLI checks several files in one run.
  const result = await runSluice(['validate', ...corpus.map((e) => e.file), '-o', 'json']);
  const reports = new Map(
    (
      JSON.parse(result.stdout || '{"items": []}') as {
        items: {
          file: string;
          valid?: boolean;
          issues?: { severity: string; line: number; column: number; message: string }[];
        }[];
      }
    ).items.map((report) => [report.file, report]),
  );
  assert.equal(reports.size, corpus.length, `one report a file\n${result.stderr}`);
  for (const entry of corpus) {
    await t.test(entry.file, () => {
      const report = reports.get(entry.file);
      const issues = (report?.issues ?? []).map(
        (i) => `${entry.file}:${i.line}:${i.column}: ${i.severity}: ${i.message}`,
      );
      assert.equal(report?.valid, true, issues.join('\n'));
      const warnings = (report?.issues ?? []).filter((i) => i.severity === 'warning');
      if (entry.warnings === true) {
        assert.ok(warnings.length > 0, 'the manifest says "warnings": true, but there are none');
      } else {
        assert.equal(warnings.length, 0, `unexpected warnings:\n${issues.join('\n')}`);
      }
    });
  }
  assert.equal(result.code, 0, result.stderr);
});

// The runs overlap, three at a time: most of an example's time is waiting (a step's timeout, a
// service's readiness, a container's start), not the cores'. Examples that tag the same image
// (`sluice-examples/NAME`) take turns, so one never runs on another's build of it.
describe('the runnable examples', { concurrency: 3 }, () => {
  for (const entry of corpus.filter((e) => e.runs)) {
    test(`${entry.file} runs and ends in ${entry.expect}`, { timeout: 300_000 }, async () => {
      const args = [...(await expandArgs(entry.args)), '--volume-key', volumeKey(entry.file)];
      const result = await imageTurns.run(imagesOf(entry.file), () =>
        runSluice(['run', entry.file, ...args]),
      );
      const expectedCode = entry.expect === 'success' ? 0 : 1;
      assert.equal(result.code, expectedCode, transcript(result));
      for (const text of entry.output ?? []) {
        assert.ok(result.stdout.includes(text), `"${text}" was not printed; ${transcript(result)}`);
      }
      for (const text of entry.absent ?? []) {
        assert.ok(!result.stdout.includes(text), `"${text}" was printed; ${transcript(result)}`);
      }
    });
  }
});
