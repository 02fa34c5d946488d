// The keys of the test command's ESLint cache (scripts/lib/types-key.mjs), one per TypeScript
// project: a project's key changes with every input a typed lint result of its files reads besides
// the file's own text (its declarations and those of the projects it references, the tsconfigs,
// the lockfile, the ESLint configuration), and only with those.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface TypesKey {
  projectTypeKeys: (root: string) => { keys: Record<string, string>; declarations: number };
}

const lib = join(fileURLToPath(new URL('../../..', import.meta.url)), 'scripts/lib');
const { projectTypeKeys } = (await import(
  pathToFileURL(join(lib, 'types-key.mjs')).href
)) as TypesKey;

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

const tsconfig = (...refs: string[]) =>
  `${JSON.stringify({ references: refs.map((path) => ({ path })) })}\n`;

test("a project's key follows its types and those of what it references, not sources", (t) => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-types-key-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  // base ← app ← web-like; other stands alone.
  write(root, 'tsconfig.json', tsconfig('packages/base', 'packages/other', 'apps/app', 'apps/web'));
  write(root, 'packages/base/tsconfig.json', tsconfig());
  write(root, 'packages/base/src/a.ts', 'export const a = 1;\n');
  write(root, 'packages/base/dist/a.d.ts', 'export declare const a = 1;\n');
  write(root, 'packages/other/tsconfig.json', tsconfig());
  write(root, 'packages/other/dist/o.d.ts', 'export {};\n');
  write(root, 'apps/app/tsconfig.json', tsconfig('../../packages/base'));
  write(root, 'apps/app/dist/main.d.ts', 'export {};\n');
  write(root, 'apps/web/tsconfig.json', tsconfig('../app'));
  write(root, 'apps/web/.tsc/view.d.ts', 'export declare function view(): void;\n');
  write(root, 'package-lock.json', '{}\n');
  write(root, 'eslint.config.js', 'export default [];\n');
  write(root, 'node_modules/x/index.d.ts', 'export {};\n');

  const first = projectTypeKeys(root);
  assert.equal(first.declarations, 4, 'the emitted declarations, not node_modules');
  assert.deepEqual(Object.keys(first.keys).sort(), [
    'apps/app',
    'apps/web',
    'packages/base',
    'packages/other',
  ]);
  for (const key of Object.values(first.keys)) assert.match(key, /^[0-9a-f]{16}$/);

  const ALL = ['apps/app', 'apps/web', 'packages/base', 'packages/other'];
  const changes: [string, string, string[]][] = [
    // A body that changes no type: the declarations stay, and so do the keys.
    ['packages/base/src/a.ts', 'export const a = 2 - 1;\n', []],
    ['node_modules/x/index.d.ts', 'export const x: number;\n', []],
    // A type of base: base and what builds on it, transitively; not the project beside it.
    [
      'packages/base/dist/a.d.ts',
      'export declare const a: number;\n',
      ['apps/app', 'apps/web', 'packages/base'],
    ],
    [
      'packages/base/src/ambient.d.ts',
      'declare const g: string;\n',
      ['apps/app', 'apps/web', 'packages/base'],
    ],
    ['apps/web/.tsc/view.d.ts', 'export declare function view(): string;\n', ['apps/web']],
    // The orders a clean build and an incremental one write differently: no change.
    [
      'apps/web/.tsc/view.d.ts',
      'export declare function view(): {\n    b: "y" | "x";\n    a: 1;\n};\n',
      ['apps/web'],
    ],
    [
      'apps/web/.tsc/view.d.ts',
      'export declare function view(): {\n    a: 1;\n    b: "x" | "y";\n};\n',
      [],
    ],
    [
      'apps/web/.tsc/view.d.ts',
      'export declare function view(): {\n    a: 1;\n    b: "x" | "z";\n};\n',
      ['apps/web'],
    ],
    ['packages/other/dist/o.d.ts', 'export declare const o: 1;\n', ['packages/other']],
    ['packages/other/tsconfig.json', '{ "compilerOptions": { "strict": true } }\n', ALL],
    ['package-lock.json', '{ "lockfileVersion": 3 }\n', ALL],
    ['eslint.config.js', 'export default [{}];\n', ALL],
  ];
  let before = first.keys;
  for (const [path, text, changed] of changes) {
    write(root, path, text);
    const after = projectTypeKeys(root).keys;
    const moved = ALL.filter((dir) => after[dir] !== before[dir]);
    assert.deepEqual(moved, changed, `${path}: the keys that change`);
    before = after;
  }
});
