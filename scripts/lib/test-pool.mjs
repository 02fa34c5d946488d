// The scheduler of scripts/run-tests.mjs: test files from every tier in one pool of jobs, run
// side by side up to a global limit and a limit per tier, each tier once what it needs is ready
// (the kube tier waits for the Kubernetes build and its shared clusters), longest first by the
// times of the last run on this machine. Each e2e and kube file runs in a process of its own (as
// node:test does); the unit files of a workspace, and int files a few at a time, run in one
// (writeTestBatch), each as a suite named by its path. A job's spec report is printed whole
// when it ends, so files that ran side by side never interleave their lines.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

/** The spec reporter's summary (`ℹ tests 3` …) for each file: dropped, the runner sums up. */
const SUMMARY_LINE = /^\u2139 (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /;

/**
 * Writes a file that runs the test files `files` (paths under `root`) in one process, each as a
 * suite named by its path (its hooks scoped to it): a process costs ~0.3 s of CPU to start, and
 * loading the server's modules ~2 s more. A process that ends before every file has finished
 * (a file called process.exit, or crashed it) exits 1 naming the files cut short, so none is
 * lost unseen. Returns its path, under `dir`.
 */
export function writeTestBatch(dir, root, name, files) {
  const entries = files.map((file) => [file.slice(root.length), pathToFileURL(file).href]);
  const path = join(dir, `${name.replace(/[^\w.-]+/g, '-')}.batch.mjs`);
  const text = [
    `// The test files of ${name}, in one process (scripts/run-tests.mjs).`,
    "import { after, describe } from 'node:test';",
    `const files = ${JSON.stringify(entries, null, 1)};`,
    'const finished = new Set();',
    'for (const [name, url] of files)',
    '  describe(name, async () => {',
    '    await import(url);',
    '    after(() => finished.add(name));',
    '  });',
    // A file that ends the process (process.exit, a crash) would end the files after it unseen.
    "process.on('exit', () => {",
    '  const cut = files.map(([name]) => name).filter((name) => !finished.has(name));',
    '  if (cut.length === 0) return;',
    '  process.stderr.write(`the process ended before these files finished: ${cut.join(", ")}\\n`);',
    '  process.exit(1);',
    '});',
    '',
  ].join('\n');
  writeFileSync(path, text);
  return path;
}

/**
 * Runs one node:test file; resolves with its counts, the names of its failed tests and its
 * report. `timeout` is each test's limit in ms. In a batch (writeTestBatch), a failed test is
 * named with the file it is in.
 */
export async function runTestFile(file, timeout) {
  const result = { passed: 0, failed: 0, skipped: 0, failures: [], report: '' };
  const stream = run({ files: [file], concurrency: 1, timeout });
  /** The outermost suite running: in a batch, the test file. */
  let outer = '';
  stream.on('test:start', (e) => {
    if (e.nesting === 0) outer = e.name;
  });
  const batched = file.endsWith('.batch.mjs');
  stream.on('test:pass', (e) => {
    if (e.details.type === 'suite' || e.name === file) return;
    if (e.skip || e.todo) result.skipped++;
    else result.passed++;
  });
  stream.on('test:fail', (e) => {
    // A suite's failure is its tests' (counted there), unless a hook of it failed or it threw
    // (in a batch: its file did not load); a file's own failure (it crashed, or never loaded)
    // counts once when none of its tests did.
    if (e.details.type === 'suite' && e.details.error?.failureType === 'subtestsFailed') return;
    if (e.name === file && result.failed > 0) return;
    result.failed++;
    const own = e.name === file ? '(the file itself)' : e.name;
    const name = batched && e.nesting > 0 ? `${outer}: ${own}` : own;
    const reason = failureReason(e.details.error);
    result.failures.push(reason === '' ? name : `${name}\n      ${reason}`);
  });
  const chunks = [];
  const report = stream.compose(spec);
  report.on('data', (chunk) => chunks.push(String(chunk)));
  await new Promise((resolve, reject) => {
    report.once('end', resolve);
    report.once('error', reject);
  });
  const lines = chunks.join('').split('\n');
  result.report = lines
    .filter((line) => !SUMMARY_LINE.test(line))
    .join('\n')
    .trimEnd();
  return result;
}

/**
 * The first line of what a failed test threw (node:test wraps it as the `cause` of its own
 * error), cut to 300 characters: the run's closing list says why each test failed, not only
 * which, as CI may keep only the end of the output.
 */
export function failureReason(error) {
  const thrown = error?.cause ?? error;
  const text = thrown instanceof Error ? thrown.message : String(thrown ?? '');
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > 300 ? `${line.slice(0, 299)}…` : line.trim();
}

/** Wall times of files from the last run on this machine, to start the longest first. */
export class FileTimes {
  #path;
  #times;
  #measured = {};
  constructor(path) {
    this.#path = path;
    this.#times = readTimes(path);
  }
  get(file) {
    return this.#times[file];
  }
  set(file, ms) {
    this.#measured[file] = Math.round(ms);
  }
  /** Writes this run's times over what the file holds now (a run of other files may have ended). */
  save() {
    try {
      mkdirSync(dirname(this.#path), { recursive: true });
      const merged = { ...readTimes(this.#path), ...this.#measured };
      writeFileSync(this.#path, `${JSON.stringify(merged, null, 1)}\n`);
    } catch {
      // Only an ordering hint: a machine where it cannot be written runs in name order.
    }
  }
}

function readTimes(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * Runs `jobs` ({ tier, name, estimate, run: () => Promise<result> }) with at most `limit`
 * at once and at most `tierLimits[tier]` of a tier at once; the jobs of a tier in `beside` do
 * not count towards `limit` (only towards their tier's): files that mostly wait, beside the ones
 * that keep the cores busy. Once no other job can take one of the `limit` slots, a beside tier
 * may use it too, up to `grow[tier]` of its jobs at once: the kube tier, whose files run one at a
 * time beside the rest, runs two at once at the end instead of being the run's tail. A tier's
 * jobs wait for `ready[tier]` (a promise) when there is one. `onDone(job, result, ms)` is called
 * as each ends. Among the jobs that may start, those marked `first` go first, then the longest
 * estimate.
 */
export async function runPool(jobs, { limit, tierLimits, ready, onDone, beside = [], grow = {} }) {
  const waiting = [...jobs].sort(
    (a, b) =>
      Number(b.first ?? false) - Number(a.first ?? false) || (b.estimate ?? 0) - (a.estimate ?? 0),
  );
  const released = new Set(Object.keys(tierLimits).filter((tier) => ready[tier] === undefined));
  /** Running jobs, each with whether it holds one of the `limit` slots. */
  const running = new Map();
  let wake;
  const changed = () => wake?.();
  for (const [tier, promise] of Object.entries(ready)) {
    if (promise === undefined) continue;
    const release = () => {
      released.add(tier);
      changed();
    };
    promise.then(release, release);
  }
  const count = (tier) => [...running.values()].filter(({ job }) => job.tier === tier).length;
  const busy = () => [...running.values()].filter(({ slot }) => slot).length;
  const tierLimit = (tier) => tierLimits[tier] ?? limit;
  /** Whether `job` may start now, and in which kind of place: 'slot', 'beside' or false. */
  const placeFor = (job) => {
    if (!released.has(job.tier)) return false;
    if (!beside.includes(job.tier)) {
      return count(job.tier) < tierLimit(job.tier) && busy() < limit ? 'slot' : false;
    }
    if (count(job.tier) < tierLimit(job.tier)) return 'beside';
    const othersCanStart = waiting.some(
      (other) =>
        !beside.includes(other.tier) &&
        released.has(other.tier) &&
        count(other.tier) < tierLimit(other.tier),
    );
    return !othersCanStart && busy() < limit && count(job.tier) < (grow[job.tier] ?? 0)
      ? 'slot'
      : false;
  };
  while (waiting.length > 0 || running.size > 0) {
    for (;;) {
      const index = waiting.findIndex((job) => placeFor(job) !== false);
      if (index < 0) break;
      const slot = placeFor(waiting[index]) === 'slot';
      const [job] = waiting.splice(index, 1);
      const started = performance.now();
      const promise = job
        .run()
        .catch((error) => ({
          passed: 0,
          failed: 1,
          skipped: 0,
          failures: [`(could not run: ${error?.message ?? error})`],
          report: String(error?.stack ?? error),
        }))
        .then((result) => {
          running.delete(promise);
          onDone(job, result, performance.now() - started);
          changed();
        });
      running.set(promise, { job, slot });
    }
    await new Promise((resolve) => (wake = resolve));
  }
}
