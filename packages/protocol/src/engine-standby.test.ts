// The standby hand-off's messages, as the agent writes them and the engine reads them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  handedOverEnv,
  isStandbyEngine,
  isStandbyReady,
  STANDBY_READY,
  standbyBuildMessage,
} from './engine-standby.js';

test("the engine's `ready` is what the agent takes for ready, and nothing else is", () => {
  assert.equal(isStandbyReady(STANDBY_READY), true);
  assert.equal(isStandbyReady({ type: 'build', env: {} }), false);
  assert.equal(isStandbyReady(null), false);
  assert.equal(isStandbyReady('ready'), false);
});

test("the agent's `build` hands over its variables; a malformed message hands over none", () => {
  const env = { SLUICE_SERVER_URL: 'http://cp:8080', SLUICE_BUILD_ID: 'bld_1' };
  assert.deepEqual(handedOverEnv(standbyBuildMessage(env)), env);
  assert.deepEqual(handedOverEnv({ type: 'build', env: { A: 'a', B: 2, C: null } }), { A: 'a' });
  assert.deepEqual(handedOverEnv({ type: 'ready', env }), {});
  assert.deepEqual(handedOverEnv({ type: 'build', env: null }), {});
  assert.deepEqual(handedOverEnv(undefined), {});
});

test('an engine is a standby only with a slot from its agent', () => {
  assert.equal(isStandbyEngine({ SLUICE_ENGINE_SLOT: 's1' }), true);
  assert.equal(isStandbyEngine({ SLUICE_ENGINE_SLOT: '' }), false);
  assert.equal(isStandbyEngine({}), false);
});
