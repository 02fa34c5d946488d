import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { agentEnv, cliEnv, engineEnv, renderEnvironmentDoc, serverEnv } from './index.js';

const file = new URL('../../../docs/config/environment.md', import.meta.url);

test('docs/config/environment.md is the one the schemas render (npm run docs:config)', () => {
  assert.equal(readFileSync(file, 'utf8'), renderEnvironmentDoc());
});

test('every variable of every entry point has a row of its own', () => {
  const doc = renderEnvironmentDoc();
  for (const shape of [serverEnv, cliEnv, agentEnv, engineEnv])
    for (const name of Object.keys(shape))
      assert.match(doc, new RegExp(`^\\| \`${name}\` +\\|`, 'm'));
});
