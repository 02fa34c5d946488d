import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthenticationError, UnavailableError } from '@sluice/errors';
import type { DockerClient } from '@sluice/docker';
import { memoryLogger } from '@sluice/log';
import { parsePipeline } from '@sluice/pipeline';
import {
  controlPlaneStepTypes,
  outsideStop,
  runRemoteBuild,
  withIncompleteLog,
} from './remote-build.js';

const notStored = new UnavailableError(
  'SLUICE_LOG_NOT_ACKNOWLEDGED',
  'The control plane did not acknowledge the build log within 15m: 3 chunks were not stored',
);

test('a build whose log was not stored is never reported as a success, and says why', () => {
  assert.deepEqual(withIncompleteLog({ buildId: 'b', result: 'success' }, notStored), {
    buildId: 'b',
    result: 'error',
    reason:
      'The steps ended success; the build log is incomplete: The control plane did not acknowledge the build log within 15m: 3 chunks were not stored',
  });
});

test('a build that failed keeps its status and its reason, with the log added', () => {
  const reported = withIncompleteLog(
    { buildId: 'b', result: 'terminated', reason: 'The build was cancelled' },
    notStored,
  );
  assert.equal(reported.result, 'terminated');
  assert.match(reported.reason ?? '', /^The build was cancelled; the build log is incomplete: /);
});

test('a build stopped by a signal ends error, saying nobody cancelled it; one that had ended keeps its end', () => {
  const stopped = {
    buildId: 'b',
    result: 'terminated' as const,
    reason: 'The build was cancelled',
  };
  const ended = outsideStop(stopped, 'SIGTERM');
  assert.equal(ended.result, 'error');
  assert.match(
    ended.reason ?? '',
    /^The engine was stopped by SIGTERM from outside Sluice, not by a cancel: its pod was deleted, evicted or preempted/,
  );
  assert.match(outsideStop(stopped, undefined).reason ?? '', /stopped by a stop signal from/);
  const failed = { buildId: 'b', result: 'failure' as const, reason: 'step test failed' };
  assert.deepEqual(outsideStop(failed, 'SIGTERM'), failed);
});

test('an engine whose control plane is not there yet asks for its build again until it answers', async () => {
  // A port with nothing on it yet: the replica the balancer sent the engine to has gone away.
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { code: 'SLUICE_AUTH_INVALID_TOKEN', message: 'no' } }));
  });
  const requests: string[] = [];
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  const running = runRemoteBuild({
    serverUrl: `http://127.0.0.1:${port}`,
    token: 'slu_e_test',
    docker: {} as DockerClient, // Not reached: the build is never handed over.
  });
  await new Promise((resolve) => setTimeout(resolve, 700));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  try {
    // The answer that does come (the token was revoked: the build ended) is final at once.
    await assert.rejects(running, AuthenticationError);
    assert.deepEqual(requests, ['GET /api/engine/v1/build']);
  } finally {
    server.close();
  }
});

test("the control plane's step types are read only when the pipeline names one, a bad one logged once", () => {
  const { logger: log, lines: warnings } = memoryLogger('warn');
  const notify = readFileSync(
    new URL('../../../../step-types/webhook-notify.yml', import.meta.url),
  );
  const documents = [
    { text: notify.toString(), source: 'webhook-notify.yml' },
    { text: 'kind: [not a step type', source: 'broken.yml' },
  ];
  const plain = controlPlaneStepTypes(documents, log);
  const freestyle =
    'version: "1.0"\nsteps:\n  s:\n    image: sluice/busybox:1\n    commands: [x]\n';
  assert.ok(parsePipeline(freestyle, { file: 'p.yml', stepTypes: plain }).ok);
  assert.deepEqual(warnings, [], 'the step types were read for a pipeline that names none');

  const typed = controlPlaneStepTypes(documents, log);
  const pipeline = `version: "1.0"
steps:
  notify:
    type: sluice/webhook-notify:1.0.0
    arguments:
      URL: https://hooks.example.com/x
      TEXT: done
`;
  const parsed = parsePipeline(pipeline, { file: 'p.yml', stepTypes: typed });
  assert.ok(parsed.ok, JSON.stringify(parsed));
  assert.equal(typed.find('sluice/webhook-notify')?.version, '1.0.0');
  assert.equal(warnings.length, 1, warnings.join(''));
  assert.match(warnings[0] ?? '', /"source":"broken\.yml".*does not parse/);
});
