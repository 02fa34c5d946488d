// The key of the test command's ESLint cache (scripts/lib/types-key.mjs): it changes with every
// input a typed lint result reads besides the linted file's own text, and only with those.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface TypesKey {
  typesKey: (root: string) => { key: string; declarations: number };
}

const lib = join(fileURLToPath(new URL('../../..', import.meta.url)), 'scripts/lib');
const { typesKey } = (await import(pathToFileURL(join(lib, 'types-key.mjs')).href)) as TypesKey;

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

test('the key follows declarations, tsconfigs, the lockfile and the ESLint config, not sources', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-types-key-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  write(root, 'packages/a/src/a.ts', 'export const a = 1;\n');
  write(root, 'packages/a/dist/a.d.ts', 'export declare const a = 1;\n');
  write(root, 'packages/a/tsconfig.json', '{}\n');
  write(root, 'apps/web/.tsc/view.d.ts', 'export declare function view(): void;\n');
  write(root, 'package-lock.json', '{}\n');
  write(root, 'eslint.config.js', 'export default [];\n');
  write(root, 'node_modules/x/index.d.ts', 'export {};\n');

  const first = typesKey(root);
  assert.equal(first.declarations, 2, 'the two emitted declarations, not node_modules');
  assert.match(first.key, /^[0-9a-f]{16}$/);

  const changes: [string, string, boolean][] = [
    // A body that changes no type: the declarations stay, and so does the key.
    ['packages/a/src/a.ts', 'export const a = 2 - 1;\n', false],
    ['node_modules/x/index.d.ts', 'export const x: number;\n', false],
    ['packages/a/dist/a.d.ts', 'export declare const a: number;\n', true],
    ['apps/web/.tsc/view.d.ts', 'export declare function view(): string;\n', true],
    ['packages/a/tsconfig.json', '{ "compilerOptions": { "strict": true } }\n', true],
    ['package-lock.json', '{ "lockfileVersion": 3 }\n', true],
    ['eslint.config.js', 'export default [{}];\n', true],
    ['packages/b/dist/b.d.ts', 'export {};\n', true],
  ];
  let before = first.key;
  for (const [path, text, changesKey] of changes) {
    write(root, path, text);
    const after = typesKey(root).key;
    assert.equal(
      after !== before,
      changesKey,
      `${path}: the key ${changesKey ? 'changes' : 'stays'}`,
    );
    before = after;
  }
});
