import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTerminal, formatDuration, formatTable } from './terminal.js';

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
