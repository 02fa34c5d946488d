import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException } from '@kubernetes/client-node';
import { InputError, UnavailableError } from '@sluice/errors';
import { classifyKubeError, kubeError } from './kube-errors.js';
import { KubeHttpError } from './kube-transport.js';
import type { KubeOperation, KubeOutcome } from './kube-errors.js';

const POD = { kind: 'Pod', namespace: 'builds', name: 'engine-b1' };

/** An answer outside 2xx as the transport rejects with it: the Status body as JSON text. */
function apiError(code: number, reason?: string, message = `${reason ?? ''} happened`) {
  const body =
    reason === undefined ? '' : JSON.stringify({ kind: 'Status', reason, message, code });
  return new KubeHttpError(code, body);
}

test('the reference rules: final reasons fail, the rest retry', () => {
  const cases: [number, string, KubeOutcome][] = [
    [400, 'BadRequest', 'fail'],
    [403, 'Forbidden', 'fail'],
    [405, 'MethodNotAllowed', 'fail'],
    [406, 'NotAcceptable', 'fail'],
    [413, 'RequestEntityTooLarge', 'fail'],
    [415, 'UnsupportedMediaType', 'fail'],
    [422, 'Invalid', 'fail'],
    [404, 'NotFound', 'retry'],
    [409, 'Conflict', 'retry'],
    [429, 'TooManyRequests', 'retry'],
    [500, 'InternalError', 'retry'],
    [503, 'ServiceUnavailable', 'retry'],
    [504, 'Timeout', 'retry'],
  ];
  for (const [code, reason, outcome] of cases) {
    assert.equal(classifyKubeError(apiError(code, reason), 'create', POD).outcome, outcome, reason);
  }
});

test('AlreadyExists is done on create only; NotFound, Gone and Expired are done on delete only', () => {
  const cases: [KubeOperation, number, string, KubeOutcome][] = [
    ['create', 409, 'AlreadyExists', 'done'],
    ['delete', 409, 'AlreadyExists', 'retry'],
    ['delete', 404, 'NotFound', 'done'],
    ['delete', 410, 'Gone', 'done'],
    ['delete', 410, 'Expired', 'done'],
    ['list', 404, 'NotFound', 'retry'],
    ['read', 410, 'Gone', 'retry'],
  ];
  for (const [operation, code, reason, outcome] of cases) {
    const result = classifyKubeError(apiError(code, reason), operation, POD);
    assert.equal(result.outcome, outcome, `${operation} ${reason}`);
  }
});

test('the reason names the operation, the object, the status and the Kubernetes message', () => {
  const err = apiError(422, 'Invalid', 'Pod "Bad_Name" is invalid: metadata.name: Invalid value');
  const { reason } = classifyKubeError(err, 'create', { ...POD, name: 'Bad_Name' });
  assert.equal(
    reason,
    'Could not create Pod builds/Bad_Name: the API server answered HTTP 422 Invalid: Pod "Bad_Name" is invalid: metadata.name: Invalid value; the manifest is not valid for this cluster; fix the runtime spec it was rendered from',
  );
  const gone = classifyKubeError(apiError(404, 'NotFound', 'pods "x" not found'), 'delete', POD);
  assert.equal(
    gone.reason,
    'Pod builds/engine-b1 is already gone (HTTP 404 NotFound: pods "x" not found)',
  );
  const list = classifyKubeError(apiError(503, 'ServiceUnavailable'), 'list', {
    kind: 'Secret',
    namespace: 'ci',
  });
  assert.match(
    list.reason,
    /^Could not list Secret objects in namespace ci: the API server answered HTTP 503/,
  );
});

test('a 401 without a body is Unauthorized, final, and says to check the credentials', () => {
  const { outcome, reason } = classifyKubeError(apiError(401), 'list', {
    kind: 'Pod',
    namespace: 'ci',
  });
  assert.equal(outcome, 'fail');
  assert.match(reason, /HTTP 401 Unauthorized; check the runtime's credentials/);
});

test('a body that is not a Status is quoted as it is', () => {
  const err = new KubeHttpError(502, 'Bad Gateway\n');
  const { outcome, reason } = classifyKubeError(err, 'read', { kind: 'the server version' });
  assert.equal(outcome, 'retry');
  assert.equal(
    reason,
    'Could not read the server version: the API server answered HTTP 502: Bad Gateway',
  );
});

test('network errors and cancellation are retriable and name their code', () => {
  const refused = Object.assign(
    new Error(
      'request to https://10.0.0.1:6443/api/v1/namespaces/builds/pods failed, reason: connect ECONNREFUSED',
    ),
    { code: 'ECONNREFUSED', type: 'system' },
  );
  const result = classifyKubeError(refused, 'create', POD);
  assert.equal(result.outcome, 'retry');
  assert.match(
    result.reason,
    /^Could not create Pod builds\/engine-b1: no answer from the Kubernetes API server \(ECONNREFUSED: request to https/,
  );
  const timeout = Object.assign(new Error('network timeout at: https://x'), {
    name: 'FetchError',
    code: 'ETIMEDOUT',
  });
  assert.equal(classifyKubeError(timeout, 'delete', POD).outcome, 'retry');
  const aborted = Object.assign(new Error('The user aborted a request.'), { name: 'AbortError' });
  assert.match(
    classifyKubeError(aborted, 'list', POD).reason,
    /\(AbortError: The user aborted a request\.\)/,
  );
});

test('kubeError makes category errors that keep the outcome for a later classification', () => {
  const forbidden = kubeError(apiError(403, 'Forbidden', 'pods is forbidden'), 'delete', POD);
  assert.equal(forbidden.code, 'SLUICE_KUBE_FORBIDDEN');
  assert.equal(forbidden.category, 'not-allowed');
  assert.deepEqual(forbidden.details, {
    operation: 'delete',
    ...POD,
    status: 403,
    reason: 'Forbidden',
    outcome: 'fail',
  });
  assert.deepEqual(classifyKubeError(forbidden, 'delete'), {
    outcome: 'fail',
    reason: forbidden.message,
  });
  const codes = [
    [apiError(401), 'SLUICE_KUBE_UNAUTHORIZED'],
    [apiError(404, 'NotFound'), 'SLUICE_KUBE_NOT_FOUND'],
    [apiError(409, 'Conflict'), 'SLUICE_KUBE_CONFLICT'],
    [apiError(422, 'Invalid'), 'SLUICE_KUBE_REJECTED'],
    [apiError(500, 'InternalError'), 'SLUICE_KUBE_UNAVAILABLE'],
    [new Error('socket hang up'), 'SLUICE_KUBE_UNAVAILABLE'],
  ] as const;
  for (const [err, code] of codes) assert.equal(kubeError(err, 'create', POD).code, code);
});

test('errors of ours without an outcome: input errors fail, unavailable ones retry', () => {
  const input = new InputError('SLUICE_KUBE_UNSUPPORTED_KIND', 'Kind Deployment is not supported');
  assert.deepEqual(classifyKubeError(input, 'create'), { outcome: 'fail', reason: input.message });
  assert.equal(kubeError(input, 'create', POD), input);
  const down = new UnavailableError('SLUICE_KUBE_UNAVAILABLE', 'down');
  assert.equal(classifyKubeError(down, 'list').outcome, 'retry');
});

test('a message never carries request headers', () => {
  // client-node's ApiException carries the answer's headers; none of them may be quoted.
  const message = 'secrets is forbidden';
  const body = JSON.stringify({ kind: 'Status', reason: 'Forbidden', message, code: 403 });
  const err = new ApiException<string>(403, 'Unknown API Status Code!', body, {
    'content-type': 'application/json',
  });
  const { reason } = classifyKubeError(err, 'create', {
    kind: 'Secret',
    namespace: 'ci',
    name: 's',
  });
  assert.doesNotMatch(reason, /content-type|Headers|Bearer/i);
});

test("the thin client's KubeHttpError is classified as client-node's ApiException is", () => {
  const status = (code: number, reason: string, message: string) =>
    new KubeHttpError(code, JSON.stringify({ kind: 'Status', reason, message, code }));
  const cases: [KubeHttpError, KubeOperation, KubeOutcome][] = [
    [status(409, 'AlreadyExists', 'configmaps "a" already exists'), 'create', 'done'],
    [status(404, 'NotFound', 'pods "a" not found'), 'delete', 'done'],
    [status(422, 'Invalid', 'bad'), 'create', 'fail'],
    [status(503, 'ServiceUnavailable', 'down'), 'list', 'retry'],
    [new KubeHttpError(401, ''), 'list', 'fail'],
  ];
  for (const [err, operation, outcome] of cases) {
    assert.equal(classifyKubeError(err, operation, POD).outcome, outcome, err.body);
    assert.equal(
      classifyKubeError(err, operation, POD).reason,
      classifyKubeError(new ApiException(err.code, 'x', err.body || undefined, {}), operation, POD)
        .reason,
    );
  }
  assert.equal(
    kubeError(status(403, 'Forbidden', 'no'), 'delete', POD).code,
    'SLUICE_KUBE_FORBIDDEN',
  );
});

test('an aborted wait is no answer: retriable, named AbortError', () => {
  const aborted = AbortSignal.abort().reason as DOMException;
  const { outcome, reason } = classifyKubeError(aborted, 'list', POD);
  assert.equal(outcome, 'retry');
  assert.match(reason, /no answer from the Kubernetes API server \(AbortError/);
});
