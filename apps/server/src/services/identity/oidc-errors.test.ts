import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AuthorizationResponseError } from 'openid-client';
import { providerError } from './oidc-sign-in.js';

const ISSUER = 'https://id.example.com';

test("the provider's failures say whether it is down, refusing, or answering wrongly", () => {
  const refused = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
  const down = providerError(refused, ISSUER, 'reading its discovery document');
  assert.equal(down.code, 'SLUICE_OIDC_UNREACHABLE');
  assert.equal(down.category, 'unavailable');
  assert.equal(
    down.message,
    'The identity provider at https://id.example.com did not answer while reading its discovery document (ECONNREFUSED)',
  );
  const slow = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
  assert.match(providerError(slow, ISSUER, 'x').message, /no answer in time/);

  const wrong = providerError(new Error('unexpected HTTP response status code'), ISSUER, 'x');
  assert.equal(wrong.code, 'SLUICE_OIDC_PROVIDER_ERROR');
  assert.match(wrong.hint ?? '', /SLUICE_OIDC_ISSUER .* SLUICE_OIDC_CLIENT_ID/);

  const params = new URLSearchParams({ error: 'access_denied', error_description: 'no thanks' });
  const denied = providerError(
    new AuthorizationResponseError('denied', { cause: params }),
    ISSUER,
    'x',
  );
  assert.equal(denied.code, 'SLUICE_OIDC_DENIED');
  assert.equal(
    denied.message,
    'The identity provider did not sign you in: access_denied (no thanks)',
  );
});
