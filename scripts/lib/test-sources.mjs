// The source of each compiled test file, so the runner can leave out stale outputs: `tsc -b`
// keeps the output of a moved or deleted source file, and that copy would still run the old
// code (a clean clone has none: scripts/lib/tsc-cache.mjs restores only outputs with a source).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** `<workspace>/dist/x.test.js` comes from `<workspace>/src/x.test.ts`, `test/dist/` from `test/`. */
export function testSourceOf(path) {
  const stem = path.startsWith('test/dist/')
    ? path.replace('test/dist/', 'test/')
    : path.replace('/dist/', '/src/');
  return stem.replace(/\.js$/, '.ts');
}

/** The compiled test files (paths under `root`) whose source is gone. */
export function staleTestFiles(root, paths) {
  return paths.filter((path) => !existsSync(join(root, testSourceOf(path))));
}
