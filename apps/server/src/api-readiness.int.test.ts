/**
 * `/readyz` and `/api/health` while PostgreSQL cannot be reached: the server's connections go through a TCP proxy
 * the test cuts (every connection reset, new ones refused, as when the database host goes
 * away) and then restores on the same port. Not ready with the reason meanwhile, and no driver
 * text in the answer; liveness and `/metrics` keep answering (and the queries in flight when the
 * connection went fail without taking the process down); ready again once it is back.
 * @module
 */
import assert from 'node:assert/strict';
import { openDatabase } from '@sluice/db';
import { useTestDatabases } from '@sluice/db/testing';
import { startTestServer } from './server-harness.test-support.js';
import { sample, scrape, startCuttableProxy } from '@sluice/testkit';

const databases = useTestDatabases({ kinds: ['postgres'] });

async function readyz(base: string, path = '/readyz') {
  const response = await fetch(`${base}${path}`);
  return { status: response.status, text: await response.text() };
}

databases.test(
  '/readyz and /api/health are 503 with the reason while PostgreSQL is unreachable, 200 once it is back',
  async () => {
    const { url } = await databases.prepare('postgres');
    assert.ok(url !== undefined);
    const proxy = await startCuttableProxy(url);
    const database = await openDatabase({ url: proxy.url, connectionTimeoutMs: 5_000 });
    const t = await startTestServer(database, { metricsPort: 0 });
    try {
      assert.equal((await readyz(t.url)).status, 200);
      assert.deepEqual(await readyz(t.url, '/api/health'), {
        status: 200,
        text: '{"ok":true,"database":"postgres"}',
      });

      await proxy.cut();
      const down = await readyz(t.url);
      assert.equal(down.status, 503);
      const body = JSON.parse(down.text) as { ready: boolean; reason: string; database: object };
      assert.equal(body.ready, false);
      assert.match(
        body.reason,
        /^The database \(postgres\) does not answer \(SLUICE_DB_UNAVAILABLE\)/,
      );
      assert.deepEqual(body.database, {
        kind: 'postgres',
        ok: false,
        code: 'SLUICE_DB_UNAVAILABLE',
      });
      assert.doesNotMatch(down.text, /127\.0\.0\.1|ECONNREFUSED|terminated/i, 'driver text leaked');
      assert.match(t.logs(), /database does not answer: not ready/);
      const health = await readyz(t.url, '/api/health');
      assert.equal(health.status, 503, health.text);
      assert.deepEqual(JSON.parse(health.text), {
        ok: false,
        database: 'postgres',
        reason: body.reason,
      });
      // Liveness does not depend on the database, and the scrape still answers.
      assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
      const metrics = await scrape(`${t.server.metricsUrl() ?? ''}/metrics`);
      assert.equal(sample(metrics, 'sluice_server_database_up'), 0);

      await proxy.restore();
      const deadline = Date.now() + 20_000;
      let back = await readyz(t.url);
      while (back.status !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        back = await readyz(t.url);
      }
      assert.equal(back.status, 200, back.text);
      assert.equal((await readyz(t.url, '/api/health')).status, 200);
      assert.match(t.logs(), /database answers again: ready/);
      const after = await scrape(`${t.server.metricsUrl() ?? ''}/metrics`);
      assert.equal(sample(after, 'sluice_server_database_up'), 1);
    } finally {
      await t.close();
      await database.close();
      await proxy.close();
    }
  },
);
