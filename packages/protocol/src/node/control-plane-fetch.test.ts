/**
 * The engine's fetch (`createControlPlaneFetch`) against a connection closed as soon as it opens,
 * what a load balancer with no live backend does: the call fails, so the engine retries it, and
 * the next call gets through. Over undici 6 such a call never settled and held nothing open, so
 * an engine waiting on it ended, exit 0, with nothing said. In a file of its own: whether undici
 * lost the call depended on what an earlier test of the process had loaded.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { createControlPlaneFetch } from './control-plane-fetch.js';

let server: Server;
let closing: Server;

function listen(s: Server): Promise<number> {
  return new Promise((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)),
  );
}

before(() => {
  server = createServer((_req, res) => res.writeHead(200).end('{}'));
  closing = createTcpServer((socket) => socket.destroy());
});

after(async () => {
  await Promise.all([server, closing].map((s) => new Promise((resolve) => s.close(resolve))));
});

test(
  "the engine's fetch fails a call whose connection is closed as it opens, and the next call gets through",
  { timeout: 10_000 },
  async () => {
    const [serverPort, closingPort] = [await listen(server), await listen(closing)];
    const connection = createControlPlaneFetch(`http://127.0.0.1:${closingPort}`, {});
    try {
      await assert.rejects(
        connection.fetch(`http://127.0.0.1:${closingPort}/api/engine/v1/build`),
        {
          name: 'TypeError',
          message: 'fetch failed',
        },
      );
      const answer = await connection.fetch(`http://127.0.0.1:${serverPort}/api/engine/v1/build`);
      assert.equal(answer.status, 200);
      assert.equal(await answer.text(), '{}');
    } finally {
      await connection.close();
    }
  },
);
