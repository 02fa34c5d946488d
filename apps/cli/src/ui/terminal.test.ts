import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTerminal, fitTable, formatAge, formatDuration, formatTable } from './terminal.js';

test('durations read naturally at every scale', () => {
  assert.equal(formatDuration(420), '420ms');
  assert.equal(formatDuration(1530), '1.5s');
  assert.equal(formatDuration(125_000), '2m5s');
  assert.equal(formatDuration(168 * 3_600_000), '168h0m');
  assert.equal(formatDuration(3_690_000), '1h1m');
});

test('tables pad every column but the last to its widest cell', () => {
  assert.deepEqual(
    formatTable([
      ['STEP', 'RESULT'],
      ['clone', 'success'],
      ['a', 'skipped'],
    ]),
    ['STEP   RESULT', 'clone  success', 'a      skipped'],
  );
});

test('paint adds ANSI codes only when colour is on', () => {
  assert.equal(createTerminal({ color: false }).paint('red', 'x'), 'x');
  assert.equal(createTerminal({ color: true }).paint('red', 'x'), '\u001b[31mx\u001b[39m');
});

test('fitTable cuts the widest column until the table fits; formatAge reads like kubectl', () => {
  const rows = [
    ['ID', 'REASON'],
    ['bld_1', 'x'.repeat(200)],
  ];
  const lines = fitTable(rows, 40);
  for (const line of lines) assert.ok(line.length <= 40, line);
  assert.match(lines[1] ?? '', /^bld_1 {2}x+…$/);
  assert.deepEqual(fitTable([['A', 'B']], 100), ['A  B']);
  // The first column (a name) is never cut: the next widest is (down to 16), or the table stays wide.
  const named = fitTable(
    [
      ['NAME', 'STATUS'],
      [`pv-${'n'.repeat(50)}`, 'y'.repeat(30)],
    ],
    40,
  );
  assert.match(named[1] ?? '', new RegExp(`^pv-n{50} {2}y{15}…$`));
  assert.equal(fitTable([[`${'n'.repeat(60)}`, 'ok']], 40)[0], `${'n'.repeat(60)}  ok`);
  const now = Date.parse('2026-01-02T00:00:00Z');
  assert.equal(formatAge('2026-01-01T23:59:30Z', now), '30s');
  assert.equal(formatAge('2026-01-01T23:00:00Z', now), '60m');
  assert.equal(formatAge('2025-12-30T00:00:00Z', now), '3d');
  assert.equal(formatAge(null, now), '-');
});
