import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthenticationError, NotFoundError } from '@sluice/errors';
import { deliverReport } from './delivered-report.js';

test('a report to a control plane that is down arrives once it is back', async () => {
  // A port that was free: nothing listens on it until the "control plane" comes back.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const received: string[] = [];
  const server = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.end('stored');
  });
  let tries = 0;
  const delivered = deliverReport(async () => {
    tries += 1;
    const answer = await fetch(`http://127.0.0.1:${port}/report`, { method: 'POST' });
    return answer.text();
  });
  await new Promise((resolve) => setTimeout(resolve, 800));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  try {
    assert.equal(await delivered, 'stored');
    assert.ok(tries >= 2, `refused while down, then sent again (${tries} tries)`);
    assert.deepEqual(received, ['POST /report'], 'delivered once');
  } finally {
    server.close();
  }
});

test('a report the control plane refuses is not sent again; one never delivered fails', async () => {
  let tries = 0;
  await assert.rejects(
    deliverReport(() => {
      tries += 1;
      return Promise.reject(new NotFoundError('SLUICE_BUILD_NOT_FOUND', 'Build b does not exist'));
    }),
    /does not exist/,
  );
  assert.equal(tries, 1);
  tries = 0;
  await assert.rejects(
    deliverReport(() => {
      tries += 1;
      return Promise.reject(
        new AuthenticationError('SLUICE_AUTH_REQUIRED', 'The token is revoked'),
      );
    }),
    /revoked/,
  );
  assert.equal(tries, 1, 'a refused token is not sent again');
  tries = 0;
  await assert.rejects(
    deliverReport(
      () => {
        tries += 1;
        return Promise.reject(new Error('connect ECONNREFUSED'));
      },
      { attempts: 3 },
    ),
    /ECONNREFUSED/,
  );
  assert.equal(tries, 3);
});
