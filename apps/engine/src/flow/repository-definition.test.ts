import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeDefinition } from './repository-definition.js';

test('a definition read from the repository is UTF-8 text: a NUL or a bad byte is refused where it is', () => {
  const text = 'version: "1.0"\nsteps:\n  a:\n    image: x # é\n';
  assert.deepEqual(decodeDefinition(Buffer.from(text)), { ok: true, yaml: text });
  const nul = Buffer.from('version: "1.0"\nsteps:\n  a\u0000b: {}\n');
  assert.deepEqual(decodeDefinition(nul), {
    ok: false,
    reason: 'holds a NUL byte at line 3, column 4',
  });
  const latin1 = Buffer.concat([
    Buffer.from('version: "1.0"\n# caf'),
    Buffer.from([0xe9]),
    Buffer.from('\n'),
  ]);
  assert.deepEqual(decodeDefinition(latin1), {
    ok: false,
    reason: 'is not UTF-8 text: an invalid byte at line 2, column 6',
  });
});
