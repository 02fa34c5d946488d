import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../../', import.meta.url).pathname;

const catalogue = readFileSync(join(root, 'docs/errors.md'), 'utf8');
const documented = new Set(
  [...catalogue.matchAll(/^\|\s*`(SLUICE_[A-Z0-9_]+)`\s*\|/gm)].map((m) => m[1] ?? ''),
);

/** The `SLUICE_…` names quoted in a document. */
function quotedNames(doc: string): string[] {
  return [...readFileSync(join(root, doc), 'utf8').matchAll(/`(SLUICE_[A-Z0-9_]+)`/g)].map(
    (m) => m[1] ?? '',
  );
}

/**
 * Variables are quoted like codes: docs/config/environment.md names every one a process reads,
 * docs/step-types.md (beside codes) those a step type's container is given, and
 * docs/build-credentials.md the build variables that widen what a build's engine is given.
 */
const ENVIRONMENT_NAMES = new Set([
  ...quotedNames('docs/config/environment.md'),
  ...['docs/step-types.md', 'docs/build-credentials.md'].flatMap((doc) =>
    quotedNames(doc).filter((name) => !documented.has(name)),
  ),
]);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts') && !name.includes('.test.')) out.push(path);
  }
  return out;
}

function codesInSources(): Map<string, string> {
  const codes = new Map<string, string>();
  for (const group of ['packages', 'apps']) {
    for (const file of sourceFiles(join(root, group))) {
      // A code is the first argument of an error, or a `code:`/constant value. Environment
      // variable names are quoted too, but passed elsewhere or as a Kubernetes env `name:`;
      // a prefix ends with `_`.
      for (const match of readFileSync(file, 'utf8').matchAll(
        /(?:Error\(\s*|(?<!\bname)[=:]\s*)'(SLUICE_[A-Z0-9_]*[A-Z0-9])'/g,
      )) {
        const code = match[1] ?? '';
        if (!ENVIRONMENT_NAMES.has(code)) codes.set(code, file.slice(root.length));
      }
    }
  }
  return codes;
}

test('every error code used in the sources is in docs/errors.md', () => {
  const missing = [...codesInSources()]
    .filter(([code]) => !documented.has(code))
    .map(([code, file]) => `${code} (${file})`);
  assert.deepEqual(missing, []);
});

test('every code in docs/errors.md is still used', () => {
  const used = codesInSources();
  assert.ok(documented.size > 10, 'the catalogue table was not found');
  assert.deepEqual(
    [...documented].filter((code) => !used.has(code)),
    [],
  );
});
