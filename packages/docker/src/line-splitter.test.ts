import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineSplitter } from './line-splitter.js';

test('lines split across chunks, CRLF trimmed, partial tail flushed', () => {
  const lines: string[] = [];
  const splitter = new LineSplitter((l) => lines.push(l));
  splitter.push(Buffer.from('one\r\ntw'));
  splitter.push(Buffer.from('o\nthree'));
  assert.deepEqual(lines, ['one', 'two']);
  splitter.flush();
  assert.deepEqual(lines, ['one', 'two', 'three']);
});

test('a multi-byte character cut between chunks is decoded whole', () => {
  const lines: string[] = [];
  const splitter = new LineSplitter((l) => lines.push(l));
  const bytes = Buffer.from('é✓\n');
  splitter.push(bytes.subarray(0, 1));
  splitter.push(bytes.subarray(1));
  assert.deepEqual(lines, ['é✓']);
});
