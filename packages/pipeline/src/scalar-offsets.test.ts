import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sourceOffset } from './scalar-offsets.js';
import type { ScalarStyle } from './scalar-offsets.js';

/** The scalar is the value of `x: `, so it starts at offset 3 and runs to the end. */
function offsetsOf(text: string, style: ScalarStyle, value: string, offsets: number[]): number[] {
  const scalar = { text, start: 3, end: text.length, style, value };
  return offsets.map((o) => sourceOffset(scalar, o));
}

test('a plain scalar maps one to one', () => {
  assert.deepEqual(offsetsOf('x: a == 1', 'PLAIN', 'a == 1', [0, 2, 5, 6]), [3, 5, 8, 9]);
});

test('a doubled quote in a single-quoted scalar is one character of the value', () => {
  // x: 'it''s == 1'  →  the quote at 3, "it" at 4-5, "''" at 6-7, "s" at 8, the last "'" at 14.
  assert.deepEqual(
    offsetsOf("x: 'it''s == 1'", 'QUOTE_SINGLE', "it's == 1", [0, 2, 3, 9]),
    [4, 6, 8, 14],
  );
});

test('escapes in a double-quoted scalar count their whole length', () => {
  // x: "\x41 == \u00e9"  →  \x41 at 4-7, "==" at 9-10, \u00e9 at 12-17, the quote at 18.
  const text = 'x: "\\x41 == \\u00e9"';
  assert.deepEqual(offsetsOf(text, 'QUOTE_DOUBLE', 'A == é', [0, 1, 2, 5, 6]), [4, 8, 9, 12, 18]);
});

test('a literal block starts on the line after its header', () => {
  // x: |-\n  a\n  b  →  "a" at 8, the line break at 9, "b" at 12.
  assert.deepEqual(
    offsetsOf('x: |-\n  a\n  b', 'BLOCK_LITERAL', 'a\nb', [0, 1, 2, 3]),
    [8, 9, 12, 13],
  );
});

test('a header that starts with the same character as the value is skipped', () => {
  // x: |-\n  -1 < 0  →  the value's "-" is at 8, not the header's at 5.
  assert.deepEqual(offsetsOf('x: |-\n  -1 < 0', 'BLOCK_LITERAL', '-1 < 0', [0]), [8]);
});

test('a folded plain scalar maps its line break to the next line', () => {
  // x: a\n  b  →  "a" at 3, the folded space at the indentation (5), "b" at 7.
  assert.deepEqual(offsetsOf('x: a\n  b', 'PLAIN', 'a b', [0, 1, 2]), [3, 5, 7]);
});

test('offsets outside the value are clamped', () => {
  assert.deepEqual(offsetsOf('x: ab', 'PLAIN', 'ab', [-4, 99]), [3, 5]);
});
