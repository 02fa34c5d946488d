/**
 * Failed calls to the control plane are counted by kind for the agent's metrics, over a real
 * HTTP server on loopback: a 503 and a refused connection are `unavailable`, a 401
 * `authentication`; a call its own signal aborted (a shutdown, a long-poll given up) is
 * not a failure of the control plane and is not counted.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createControlPlaneClient } from '@sluice/protocol/node';
import { ApiErrorTally, countingErrors } from './control-plane-errors.js';

function errorBody(code: string) {
  return JSON.stringify({ error: { code, message: code } });
}

test('failed calls are counted by kind; calls aborted by their own signal are not', async () => {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/api/agent/v1/tasks')) return; // a long-poll that never answers
    const [status, code] = req.url === '/api/agent/v1/runtimes' ? [503, 'X'] : [401, 'Y'];
    res.writeHead(status, { 'content-type': 'application/json' }).end(errorBody(code));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const connection = createControlPlaneClient({ serverUrl: url, token: 't', env: {} });
  const tally = new ApiErrorTally();
  const client = countingErrors(connection.client, tally);
  try {
    await assert.rejects(client.call('agentRuntimes'));
    await assert.rejects(client.call('agentRuntimes'));
    const health = { healthy: true, message: 'ok' };
    await assert.rejects(client.call('agentHeartbeat', { body: { health, version: '1' } }));
    const stop = new AbortController();
    const poll = client.call('pollTasks', { query: { wait: 30 }, signal: stop.signal });
    setTimeout(() => stop.abort(), 50);
    await assert.rejects(poll);
    assert.deepEqual(Object.fromEntries(tally.counts()), { unavailable: 2, authentication: 1 });
  } finally {
    await connection.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  const gone = createControlPlaneClient({ serverUrl: url, token: 't', env: {} });
  try {
    await assert.rejects(countingErrors(gone.client, tally).call('agentRuntimes'));
    // The client reports a refused connection as the control plane being unavailable.
    assert.deepEqual(Object.fromEntries(tally.counts()), { unavailable: 3, authentication: 1 });
  } finally {
    await gone.close();
  }
});
