import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseExportsFile } from './exports-file.js';

test('later lines win and values keep their = signs', () => {
  const values = parseExportsFile('A=1\nB=x=y\nA=2\n');
  assert.deepEqual(
    [...values],
    [
      ['A', '2'],
      ['B', 'x=y'],
    ],
  );
});

test('lines without a valid name are ignored', () => {
  const values = parseExportsFile('=nope\n1BAD=x\nnot a pair\nGOOD_2=ok\r\n');
  assert.deepEqual([...values], [['GOOD_2', 'ok']]);
});
