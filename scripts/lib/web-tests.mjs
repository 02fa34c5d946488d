// The web UI's component tests (apps/web/src/**/*.test.{ts,tsx}: vitest, jsdom, Testing
// Library), run for the unit tier of scripts/run-tests.mjs, which adds their counts to its
// "N passed, N failed" line (vitest's own summary is not one CI reads). The configuration is
// here, like the build's in scripts/build-web.mjs.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const webRoot = new URL('../../apps/web/', import.meta.url).pathname;

/** The component test files whose repository path `filter` keeps. */
export function webTestFiles(filter) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.test\.tsx?$/.test(entry.name)) found.push(relative(root, path));
    }
  };
  walk(join(webRoot, 'src'));
  return found.filter(filter).sort();
}

/** Runs the given files (from `webTestFiles`); returns the counts. */
export async function runWebTests(files) {
  const { startVitest } = await import('vitest/node');
  const { default: react } = await import('@vitejs/plugin-react');
  const counts = { passed: 0, failed: 0, skipped: 0, files: 0 };
  const reporter = {
    onTestRunEnd(modules) {
      counts.files = modules.length;
      for (const module of modules) {
        if (module.state() === 'failed' && [...module.children.allTests()].length === 0)
          counts.failed++; // the file failed to load
        for (const test of module.children.allTests()) {
          const state = test.result().state;
          if (state === 'passed') counts.passed++;
          else if (state === 'failed') counts.failed++;
          else counts.skipped++;
        }
      }
    },
  };
  const vitest = await startVitest(
    'test',
    files.map((file) => join(root, file)),
    {
      root: webRoot,
      run: true,
      watch: false,
      environment: 'jsdom',
      include: ['src/**/*.test.{ts,tsx}'],
      reporters: ['default', reporter],
      testTimeout: 30_000,
      // One worker thread runs every file in one environment: 13 files took 29 CPU-seconds in
      // isolated forks (each loading jsdom, React and the transformed sources again), 6 here.
      // Testing Library unmounts what each test rendered, so the files do not see each other.
      isolate: false,
      pool: 'threads',
    },
    { plugins: [react()], configFile: false },
  );
  await vitest?.close();
  return counts;
}
