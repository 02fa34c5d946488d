/**
 * `sluice server --metrics-port` as an operator runs it: Prometheus `/metrics` on a listener of
 * its own (parsed by a Prometheus text-format parser), not on the API's port; `/healthz` and
 * `/readyz` on the API's port; `--host 0.0.0.0` is said to listen on every interface.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { family, sample, scrape } from '@sluice/testkit';
import { seededDataDir, startSluice } from './cli-harness.js';

test('sluice server --metrics-port serves /metrics apart from the API; the probes answer', async () => {
  const dataDir = await seededDataDir(mkdtempSync(join(tmpdir(), 'sluice-metrics-')));
  const server = startSluice(
    ['server', '--host', '0.0.0.0', '--port', '0', '--metrics-port', '0', '--data-dir', dataDir],
    { env: { SLUICE_BOOTSTRAP_TOKEN: 'slu_u_e2e-metrics-token-0123456789', DATABASE_URL: '' } },
  );
  try {
    await server.waitForOutput('Prometheus metrics on', 60_000);
    const stdout = server.stdout();
    const api = /listening on (http:\/\/\S+)/.exec(stdout)?.[1] ?? '';
    const metricsUrl = /Prometheus metrics on (http:\/\/\S+)/.exec(stdout)?.[1] ?? '';
    assert.match(metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, stdout);
    assert.notEqual(new URL(metricsUrl).port, new URL(api).port);
    // A wildcard host is said as such, beside the loopback URL to use from this machine.
    assert.match(
      stdout,
      /listening on http:\/\/127\.0\.0\.1:\d+ \(pglite, on every interface \(--host 0\.0\.0\.0\)\)/,
    );

    assert.equal((await fetch(`${api}/healthz`)).status, 200);
    const ready = await fetch(`${api}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as { ready: boolean }).ready, true);
    assert.equal((await fetch(`${api}/metrics`)).status, 404, 'the API port serves no metrics');

    const metrics = await scrape(metricsUrl);
    assert.equal(sample(metrics, 'sluice_server_database_up'), 1);
    assert.equal(
      sample(metrics, 'sluice_server_db_pool_connections', { kind: 'pglite', state: 'max' }),
      1,
    );
    family(metrics, 'sluice_server_http_request_duration_seconds', 'histogram');
    const probes = { method: 'GET', route: '/readyz', status_class: '2xx' };
    assert.equal(sample(metrics, 'sluice_server_http_request_duration_seconds', probes), 1);
  } finally {
    server.child.kill('SIGTERM');
    await server.done;
    rmSync(dataDir, { recursive: true, force: true });
  }
});
