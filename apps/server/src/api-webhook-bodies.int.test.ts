/**
 * What an unauthenticated sender can make the webhook endpoint hold: a body is read only for a
 * trigger that exists, only up to GitHub's maximum, only within the body deadline, and only
 * while the bodies being read fit in what the endpoint reads at once.
 * @module
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { useTestDatabases } from '@sluice/db/testing';
import { BODY_LIMITS } from '@sluice/protocol';
import { stalledPost } from './http/stalled-request.test-support.js';
import { WEBHOOK_BODIES_AT_ONCE } from './http/trigger-routes.js';
import { ONE_KIND, startTestServer } from './server-harness.test-support.js';
import { deliver, fixture, setUp, signedHeaders } from './trigger-deliveries.test-support.js';

const databases = useTestDatabases();

const MIB = 1024 * 1024;
/** What a sender announces: under GitHub's 25 MB, over a few of them at once. */
const ANNOUNCED = 24 * MIB;
const SENT = '{"x":"'.padEnd(64 * 1024, 'x');

databases.test(
  'an unknown trigger is answered 404 from the path alone, its announced 24 MiB never read',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const answer = await stalledPost(`${t.url}/api/webhooks/trg_unknown`, {
        announced: ANNOUNCED,
        sent: SENT,
      });
      assert.equal(answer.status, 404);
      assert.equal(answer.body.error?.code, 'SLUICE_TRIGGER_NOT_FOUND');
      assert.equal(answer.headers['connection'], 'close', 'the rest is not read');
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a body over 25 MB is refused with 413 from its length; one that stalls is answered 408 with what came',
  async (database) => {
    const t = await startTestServer(database, { requestBodyTimeoutMs: 500 });
    try {
      const { gitTrigger } = await setUp(t);
      const trigger = await gitTrigger({});
      const url = `${t.url}/api/webhooks/${trigger.id}`;
      const over = await stalledPost(url, { announced: BODY_LIMITS.webhook + 1 });
      assert.equal(over.status, 413);
      assert.equal(
        over.body.error?.message,
        'The request body is larger than 26,214,400 bytes (25 MiB), the most POST /api/webhooks/:triggerId accepts',
      );
      const stalled = await stalledPost(url, { announced: ANNOUNCED, sent: SENT });
      assert.equal(stalled.status, 408);
      assert.equal(stalled.body.error?.code, 'SLUICE_REQUEST_BODY_TIMEOUT');
      assert.equal(
        stalled.body.error?.message,
        'The request body did not arrive within 0.5 s: 65,536 bytes (64 KiB) of the 25,165,824 bytes (24 MiB) announced came',
      );
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'bodies read at once are bounded: those that do not fit are answered 503 before they are read, and the room comes back',
  async (database) => {
    const t = await startTestServer(database, { requestBodyTimeoutMs: 1_000 });
    try {
      const { gitTrigger } = await setUp(t);
      const trigger = await gitTrigger({});
      const url = `${t.url}/api/webhooks/${trigger.id}`;
      const fit = Math.floor(WEBHOOK_BODIES_AT_ONCE / ANNOUNCED);
      const order: string[] = [];
      const answers = await Promise.all(
        Array.from({ length: fit + 4 }, () =>
          stalledPost(url, { announced: ANNOUNCED, sent: SENT }).then((answer) => {
            order.push(answer.body.error?.code ?? String(answer.status));
            return answer;
          }),
        ),
      );
      const busy = answers.filter((a) => a.status === 503);
      assert.equal(
        busy.length,
        4,
        `${fit} bodies of 24 MiB fit in 64 MiB; the others wait for none`,
      );
      assert.equal(busy[0]?.body.error?.code, 'SLUICE_WEBHOOK_BUSY');
      assert.equal(busy[0]?.headers['retry-after'], '10');
      assert.deepEqual(
        order,
        [
          ...Array<string>(4).fill('SLUICE_WEBHOOK_BUSY'),
          ...Array<string>(fit).fill('SLUICE_REQUEST_BODY_TIMEOUT'),
        ],
        'refused at once, while the bodies that fit were still being read',
      );
      const push = fixture('github-push');
      const delivered = await deliver(t, trigger.id, ['github', 'push', push]);
      assert.equal(delivered.status, 202, 'the bodies answered gave their room back');
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  "forty unsigned 24 MiB bodies at once do not take the server's memory with them",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const trigger = await gitTrigger({});
      const url = new URL(`${t.url}/api/webhooks/${trigger.id}`);
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampling = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      const statuses = await Promise.all(
        Array.from({ length: 40 }, () => unsignedPost(url, ANNOUNCED)),
      );
      clearInterval(sampling);
      // Every body read whole, RSS grew by some 380 MiB here (by 630 MiB with forty sender
      // processes); with two read at once, by some 110 (the senders' own buffers included), and
      // once by 205 on a machine loaded to 13, where the senders' buffers wait longer: the bound
      // sits between the two behaviours.
      const growth = (peak - before) / MIB;
      assert.ok(growth < 300, `RSS grew by ${Math.round(growth)} MiB`);
      // Refused before its body was read, a sender may see its connection closed mid-send (0).
      const refused = statuses.filter((s) => s === 503 || s === 0).length;
      const read = statuses.filter((s) => s === 401).length;
      assert.deepEqual(
        [read + refused, read > 0, refused > 0],
        [40, true, true],
        statuses.join(','),
      );
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

/**
 * Posts `bytes` of a body signed with the wrong secret, as fast as the server reads it: the
 * status, or 0 when the server closed the connection while it was still being sent.
 */
function unsignedPost(url: URL, bytes: number): Promise<number> {
  const headers = {
    ...signedHeaders('github', 'push', 'not this body'),
    'content-type': 'application/json',
    'content-length': String(bytes),
  };
  const chunk = Buffer.alloc(MIB, 'x');
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EPIPE' || err.code === 'ECONNRESET' ? resolve(0) : reject(err),
    );
    let sent = 0;
    const write = (): void => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}
