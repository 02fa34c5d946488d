import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSluiceError } from '@sluice/errors';
import { cliRequestOf, localPath } from './sign-in-requests.js';

test('only a path on this server is a place to go back to', () => {
  assert.equal(localPath('/builds/b1?x=1'), '/builds/b1?x=1');
  for (const other of ['//evil.example', '/\\evil.example', 'https://evil.example', 3, undefined])
    assert.equal(localPath(other), '/');
});

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const STATE = 'abcdefghijklmnop0123';

test("sluice auth login's request: a loopback redirect, an S256 challenge and a state", () => {
  const ok = cliRequestOf({
    redirect_uri: 'http://127.0.0.1:53682/callback',
    code_challenge: CHALLENGE,
    state: STATE,
  });
  assert.deepEqual(ok, {
    redirectUri: 'http://127.0.0.1:53682/callback',
    codeChallenge: CHALLENGE,
    state: STATE,
  });
  const refused = [
    { redirect_uri: 'http://evil.example:80/cb', code_challenge: CHALLENGE, state: STATE },
    { redirect_uri: 'https://127.0.0.1:5/cb', code_challenge: CHALLENGE, state: STATE },
    { redirect_uri: 'http://127.0.0.1/cb', code_challenge: CHALLENGE, state: STATE },
    { redirect_uri: 'http://127.0.0.1:5/cb', code_challenge: 'short', state: STATE },
    { redirect_uri: 'http://127.0.0.1:5/cb', code_challenge: CHALLENGE, state: 'x' },
  ];
  for (const query of refused)
    assert.throws(
      () => cliRequestOf(query),
      (err: unknown) => isSluiceError(err) && err.code === 'SLUICE_AUTH_LOGIN_REQUEST_INVALID',
      JSON.stringify(query),
    );
});
