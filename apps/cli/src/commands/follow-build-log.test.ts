/**
 * `followBuildLog` against a real HTTP server on port 0 speaking the log stream's SSE: lines in
 * order, keep-alives ignored, a dropped connection resumed after the last chunk seen (so no
 * line twice), the end event's status returned, and Ctrl-C (an aborted signal) ending it.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@sluice/protocol';
import type { LogLine } from '@sluice/protocol';
import { followBuildLog } from './follow-build-log.js';

function chunk(seq: number, ...lines: string[]): string {
  const body = { seq, lines: lines.map((line) => ({ step: 's', stream: 'stdout', line, at: '' })) };
  return `id: ${seq}\nevent: log\ndata: ${JSON.stringify(body)}\n\n`;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, token: 't' });
  return { client, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('lines arrive in order, a dropped stream resumes after the last chunk, the end status is returned', async () => {
  const seen: (string | undefined)[] = [];
  const { client, close } = await serve((req, res) => {
    seen.push(req.headers['last-event-id'] as string | undefined);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (seen.length === 1) {
      res.write(chunk(0, 'one', 'two') + ': keep-alive\n\n' + chunk(1, 'three'));
      setTimeout(() => res.destroy(), 50);
      return;
    }
    res.end(`${chunk(2, 'four')}event: end\ndata: {"status":"success","reason":null}\n\n`);
  });
  const lines: LogLine[] = [];
  const end = await followBuildLog(
    client,
    'bld_1',
    (l) => lines.push(l),
    new AbortController().signal,
  );
  await close();
  assert.deepEqual(end, { status: 'success', reason: null });
  assert.deepEqual(
    lines.map((l) => l.line),
    ['one', 'two', 'three', 'four'],
  );
  assert.deepEqual(seen, [undefined, '1']);
});

test('an aborted signal ends the follow without an error', async () => {
  const { client, close } = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk(0, 'waiting'));
  });
  const abort = new AbortController();
  const end = await followBuildLog(client, 'bld_2', () => abort.abort(), abort.signal);
  assert.equal(end, undefined);
  await close();
});
