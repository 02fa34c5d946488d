import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { safeJson, safeText } from './safe-text.js';
import { createTerminal, fitTable, formatTable } from './terminal.js';

const ESC = '\u001b';
const on = { color: true };
const off = { color: false };

test('OSC sequences (clipboard, window title) are shown, not sent', () => {
  const clipboard = `${ESC}]52;c;aGk=\u0007`;
  assert.equal(safeText(clipboard, on), '\\x1b]52;c;aGk=\\x07');
  assert.equal(safeText(`${ESC}]0;owned\u0007`, off), '\\x1b]0;owned\\x07');
  // The string terminator form (ESC \) as well.
  assert.equal(safeText(`${ESC}]0;owned${ESC}\\`, on), '\\x1b]0;owned\\x1b\\');
});

test('CSI other than SGR (erase, cursor moves, modes) is shown, not sent', () => {
  assert.equal(safeText(`${ESC}[2J`, on), '\\x1b[2J');
  assert.equal(safeText(`a${ESC}[1;1Hb`, on), 'a\\x1b[1;1Hb');
  assert.equal(safeText(`${ESC}[?1049h`, on), '\\x1b[?1049h');
  // A private-mode parameter before `m` is not SGR.
  assert.equal(safeText(`${ESC}[>4;2m`, on), '\\x1b[>4;2m');
});

test('SGR colours are kept with colour on, dropped with it off, and reset at the end', () => {
  const red = `${ESC}[31mred${ESC}[0m`;
  assert.equal(safeText(red, on), `${red}${ESC}[0m`);
  assert.equal(safeText(red, off), 'red');
  assert.equal(safeText(`${ESC}[38;5;208mo${ESC}[38:2::1:2:3mt`, off), 'ot');
  // A colour left on does not run into the next line.
  assert.equal(safeText(`${ESC}[1mbold`, on), `${ESC}[1mbold${ESC}[0m`);
  assert.equal(safeText('plain', on), 'plain');
});

test('C1 controls, DEL and C0 controls but tab and newline are shown as \\xNN', () => {
  assert.equal(safeText('\u009b2J', on), '\\x9b2J');
  assert.equal(safeText('\u009d0;t\u009c', on), '\\x9d0;t\\x9c');
  assert.equal(safeText('a\u007fb', on), 'a\\x7fb');
  assert.equal(safeText('bell\u0007 nul\u0000 bs\u0008', off), 'bell\\x07 nul\\x00 bs\\x08');
  assert.equal(safeText('one\ttwo\nthree', on), 'one\ttwo\nthree');
  // A lone CR would overwrite the line; before LF it only ends it.
  assert.equal(safeText('safe\rrm -rf /', on), 'safe\\x0drm -rf /');
  assert.equal(safeText('dos line\r\nnext', on), 'dos line\nnext');
  // What is shown is printable, so making it safe again changes nothing.
  const once = safeText(`${ESC}]52;c;x\u0007\u009b`, on);
  assert.equal(safeText(once, on), once);
  assert.equal(safeText('ünïcode ✓ 日本', on), 'ünïcode ✓ 日本');
});

test('JSON output escapes DEL and C1 as JSON does C0: valid, and nothing left to escape', () => {
  const value = { line: `${ESC}]52;c;x\u0007 \u009b2J \u007f` };
  const text = safeJson(value);
  assert.deepEqual(JSON.parse(text), value);
  assert.equal(safeText(text, on), text);
  assert.equal(safeJson({ a: 1 }, 2), '{\n  "a": 1\n}');
});

test('the terminal makes every line safe; raw writes it as given', () => {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const term = createTerminal({ stdout, stderr, color: true });
  term.out(`step ${ESC}]0;owned\u0007 ${ESC}[32mok`);
  term.err(`${ESC}[2J`);
  term.raw(`${ESC}[2J`);
  assert.equal(String(stdout.read()), `step \\x1b]0;owned\\x07 ${ESC}[32mok${ESC}[0m\n${ESC}[2J\n`);
  assert.equal(String(stderr.read()), '\\x1b[2J\n');
  const plain = new PassThrough();
  createTerminal({ stdout: plain, color: false }).out(term.paint('red', `${ESC}[31mx`));
  assert.equal(String(plain.read()), 'x\n');
});

test('table cells are measured as shown: an escaped cell keeps the columns aligned', () => {
  const rows = [
    ['NAME', 'HEALTH'],
    [`a${ESC}[2J`, 'ok'],
    ['bcdefgh', `${ESC}[31mdown`],
  ];
  assert.deepEqual(formatTable(rows), ['NAME      HEALTH', 'a\\x1b[2J  ok', 'bcdefgh   down']);
  assert.deepEqual(fitTable(rows, 100), formatTable(rows));
});
