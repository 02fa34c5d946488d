// ARCHITECTURE.md stays a map (short, readable in an editor and a diff), and its list of the
// package rules is what scripts/lib/package-rules.mjs renders (scripts/check-boundaries.mjs
// refuses a difference; here the rendering itself).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface PackageRules {
  ALLOWED: Record<string, string[]>;
  renderRules: (apps: Set<string>) => string;
}

// From test/dist/unit/ back to the repository.
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const { ALLOWED, renderRules } = (await import(
  pathToFileURL(join(repo, 'scripts/lib/package-rules.mjs')).href
)) as PackageRules;

/** The lines of a Markdown text outside its fenced code blocks. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

test('ARCHITECTURE.md: under 250 lines, none over 120 characters outside code blocks', () => {
  const text = readFileSync(join(repo, 'ARCHITECTURE.md'), 'utf8');
  assert.ok(text.split('\n').length < 250, 'ARCHITECTURE.md has 250 lines or more');
  const long = proseLines(text).filter((line) => line.length > 120);
  assert.deepEqual(long, []);
  assert.deepEqual(
    proseLines('a\n```mermaid\n' + 'x'.repeat(200) + '\n```\nb'),
    ['a', 'b'],
    'a code block is skipped',
  );
});

test('the rules render one wrapped item per package, apps and pure packages marked', () => {
  const rendered = renderRules(new Set(['@sluice/server']));
  const items = rendered.split('\n').filter((line) => line.startsWith('- '));
  assert.equal(items.length, Object.keys(ALLOWED).length);
  assert.ok(rendered.split('\n').every((line) => line.length <= 100));
  assert.match(rendered, /^- `@sluice\/server` \(app\): errors, process, /m);
  assert.match(rendered, /^- `@sluice\/pipeline` \(pure\): errors\.$/m);
  assert.match(rendered, /^- `@sluice\/errors` \(pure\): nothing\.$/m);
});
