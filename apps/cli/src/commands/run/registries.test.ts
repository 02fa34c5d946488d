import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRegistryFlags } from './registries.js';

test('--registry NAME=HOST[:PORT] is repeatable and the first is the default', () => {
  assert.deepEqual(
    parseRegistryFlags({
      registry: ['local=localhost:5000', 'hub=registry.example.com'],
      username: 'ci',
      password: 'pw',
    }),
    [
      { name: 'local', domain: 'localhost:5000', username: 'ci', password: 'pw', default: true },
      {
        name: 'hub',
        domain: 'registry.example.com',
        username: 'ci',
        password: 'pw',
        default: false,
      },
    ],
  );
  assert.deepEqual(parseRegistryFlags({ registry: [] }), []);
});

test('--default-registry picks another, and must name one of them', () => {
  const registries = parseRegistryFlags({
    registry: ['local=localhost:5000', 'hub=registry.example.com'],
    defaultRegistry: 'hub',
  });
  assert.deepEqual(
    registries.map((r) => [r.name, r.default]),
    [
      ['local', false],
      ['hub', true],
    ],
  );
  assert.ok(
    registries.every((r) => !('password' in r)),
    'no credentials were given',
  );
  assert.throws(
    () => parseRegistryFlags({ registry: ['local=localhost:5000'], defaultRegistry: 'hub' }),
    (err: Error & { code?: string }) =>
      err.code === 'SLUICE_CLI_UNKNOWN_REGISTRY' &&
      /"hub", which no --registry defines/.test(err.message),
  );
});

test('a --registry that is not NAME=HOST[:PORT] is refused with the value', () => {
  for (const bad of [
    'localhost:5000',
    '=localhost',
    'local=https://localhost:5000',
    'local=a/b',
    'x=',
  ]) {
    assert.throws(
      () => parseRegistryFlags({ registry: [bad] }),
      (err: Error & { code?: string }) =>
        err.code === 'SLUICE_CLI_BAD_REGISTRY' && err.message.includes(`"${bad}"`),
      bad,
    );
  }
  assert.throws(
    () => parseRegistryFlags({ registry: ['a=h1', 'a=h2'] }),
    /--registry names "a" twice/,
  );
});
