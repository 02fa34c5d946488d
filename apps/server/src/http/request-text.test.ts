import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputError } from '@sluice/errors';
import { assertStorableText, findTextProblems, sanitiseText } from './request-text.js';

test('finds NUL and unpaired surrogates in strings and keys, with their paths', () => {
  const value = { name: 'a\0', ok: 'fine \ud83d\ude00', list: ['x', '\udc00y'], ['k\0']: 1 };
  assert.deepEqual(findTextProblems(value, 'body'), [
    { path: 'body.name', message: 'Must not contain a NUL character (U+0000)' },
    {
      path: 'body.list.1',
      message: 'Must be valid Unicode: it holds an unpaired UTF-16 surrogate',
    },
    { path: 'body.k\\u0000', message: 'Must not contain a NUL character (U+0000)' },
  ]);
  assert.deepEqual(findTextProblems({ a: 'b', n: 1, z: null }, 'query'), []);
});

test('sanitising shows NUL as U+2400 and unpaired surrogates as U+FFFD, keeping pairs', () => {
  assert.deepEqual(sanitiseText({ line: 'a\0b\ud800c\udc00\ud83d\ude00', n: 2, ['k\0']: ['\0'] }), {
    line: 'a\u2400b\ufffdc\ufffd\ud83d\ude00',
    n: 2,
    ['k\u2400']: ['\u2400'],
  });
});

test('assertStorableText throws one input error naming every field', () => {
  assert.doesNotThrow(() => assertStorableText({ params: { id: 'x' }, query: {} }));
  assert.throws(
    () => assertStorableText({ params: { id: '\0' }, query: { q: '\ud800' } }),
    (err: unknown) =>
      err instanceof InputError &&
      err.code === 'SLUICE_REQUEST_INVALID' &&
      /params\.id: .*; query\.q: /.test(err.message),
  );
});
