import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CLI_VERSION } from './version.js';

test('CLI_VERSION is the version in apps/cli/package.json', () => {
  const file = new URL('../package.json', import.meta.url);
  const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version: string };
  assert.equal(CLI_VERSION, version);
});
