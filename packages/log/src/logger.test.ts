import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createLogger } from './logger.js';

function capture() {
  const stream = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean))
      lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  return { stream, lines };
}

test('child loggers carry their fields and messages stay constant', async () => {
  const { stream, lines } = capture();
  const log = createLogger({ destination: stream }).child({ component: 'engine', buildId: 'b1' });
  log.info('step started', { step: 'test' });
  await new Promise((r) => setImmediate(r));
  assert.equal(lines.length, 1);
  assert.equal(lines[0]?.msg, 'step started');
  assert.equal(lines[0]?.component, 'engine');
  assert.equal(lines[0]?.buildId, 'b1');
  assert.equal(lines[0]?.step, 'test');
});

test('token and password fields are redacted', async () => {
  const { stream, lines } = capture();
  const log = createLogger({ destination: stream });
  log.warn('login failed', { token: 'abc123', user: { password: 'hunter2' } });
  await new Promise((r) => setImmediate(r));
  const text = JSON.stringify(lines);
  assert.ok(!text.includes('abc123'), text);
  assert.ok(!text.includes('hunter2'), text);
  assert.equal(lines[0]?.token, '[redacted]');
});

test('debug lines are dropped below the configured level', async () => {
  const { stream, lines } = capture();
  const log = createLogger({ destination: stream, level: 'info' });
  log.debug('noise');
  log.error('boom');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    lines.map((l) => l.msg),
    ['boom'],
  );
});
