import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRuntimeFile } from './runner-delete.js';

const encode = (text: string) => Buffer.from(text).toString('base64');

test("an attached runtime's file is read whatever the Secret holds: never a failed delete", () => {
  assert.deepEqual(
    parseRuntimeFile(encode('type: runtime\nname: staging/ci\nkubeContext: staging\nrelease: r\n')),
    { type: 'runtime', name: 'staging/ci', kubeContext: 'staging', release: 'r' },
  );
  // Edited by hand into something else: an empty map, listed by its key as left.
  for (const text of ['name: [unclosed', '- a list', 'just text', '\u0000\u0001\u0002', ''])
    assert.deepEqual(parseRuntimeFile(encode(text)), {}, JSON.stringify(text));
  assert.deepEqual(parseRuntimeFile('!!! not base64 !!!'), {});
  const big = `name: x\nnote: ${'a'.repeat(1_000_000)}\n`;
  assert.equal(parseRuntimeFile(encode(big))['name'], 'x');
});
