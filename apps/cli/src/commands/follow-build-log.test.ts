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
  const states: string[] = [];
  const end = await followBuildLog(client, 'bld_1', (l) => lines.push(l), {
    signal: new AbortController().signal,
    onConnection: (state) => states.push(state),
  });
  await close();
  assert.deepEqual(end, { kind: 'end', end: { status: 'success', reason: null } });
  assert.deepEqual(states, ['lost', 'resumed']);
  assert.deepEqual(
    lines.map((l) => l.line),
    ['one', 'two', 'three', 'four'],
  );
  assert.deepEqual(seen, [undefined, '1']);
});

test('a `behind` event is resumed at once after the last chunk, without telling of a lost stream', async () => {
  const seen: (string | undefined)[] = [];
  const { client, close } = await serve((req, res) => {
    seen.push(req.headers['last-event-id'] as string | undefined);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (seen.length === 1) {
      const behind = { code: 'SLUICE_LOG_READER_BEHIND', lastEventId: 1, message: 'resume' };
      res.end(
        `${chunk(0, 'one')}${chunk(1, 'two')}event: behind\ndata: ${JSON.stringify(behind)}\n\n`,
      );
      return;
    }
    res.end(`${chunk(2, 'three')}event: end\ndata: {"status":"success","reason":null}\n\n`);
  });
  const lines: string[] = [];
  const states: string[] = [];
  const end = await followBuildLog(client, 'bld_6', (l) => lines.push(l.line), {
    signal: new AbortController().signal,
    onConnection: (state) => states.push(state),
  });
  await close();
  assert.deepEqual(end, { kind: 'end', end: { status: 'success', reason: null } });
  assert.deepEqual(lines, ['one', 'two', 'three']);
  assert.deepEqual(seen, [undefined, '1']);
  assert.deepEqual(states, [], 'no "connection lost" for a stream the server asked to resume');
});

test('an aborted signal ends the follow without an error', async () => {
  const { client, close } = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk(0, 'waiting'));
  });
  const abort = new AbortController();
  const end = await followBuildLog(client, 'bld_2', () => abort.abort(), { signal: abort.signal });
  assert.deepEqual(end, { kind: 'aborted' });
  await close();
});

test('without follow, it stops at the keep-alive that says every line so far was sent', async () => {
  const { client, close } = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk(0, 'a') + chunk(1, 'b') + ': keep-alive\n\n');
  });
  const lines: string[] = [];
  const result = await followBuildLog(client, 'bld_3', (l) => lines.push(l.line), {
    signal: new AbortController().signal,
    follow: false,
  });
  assert.deepEqual(result, { kind: 'caught-up' });
  assert.deepEqual(lines, ['a', 'b']);
  await close();
});

test('a server that is down for a while is waited for, and the stream resumes where it was', async () => {
  let calls = 0;
  const seen: (string | undefined)[] = [];
  const { client, close } = await serve((req, res) => {
    calls += 1;
    seen.push(req.headers['last-event-id'] as string | undefined);
    if (calls === 1) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk(0, 'one'));
      setTimeout(() => res.destroy(), 20);
    } else if (calls <= 4) {
      // A proxy in front of a restarting server.
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'SLUICE_UNAVAILABLE', message: 'restarting' } }));
    } else {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${chunk(1, 'two')}event: end\ndata: {"status":"failure","reason":"x"}\n\n`);
    }
  });
  const lines: string[] = [];
  const result = await followBuildLog(client, 'bld_4', (l) => lines.push(l.line), {
    signal: new AbortController().signal,
  });
  await close();
  assert.deepEqual(lines, ['one', 'two']);
  assert.deepEqual(result, { kind: 'end', end: { status: 'failure', reason: 'x' } });
  assert.deepEqual(seen, [undefined, '0', '0', '0', '0']);
});

test('a stream that goes silent is dropped and opened again; giving up names the build', async () => {
  let calls = 0;
  const { client, close } = await serve((_req, res) => {
    calls += 1;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (calls === 1) res.write(chunk(0, 'only'));
  });
  await assert.rejects(
    followBuildLog(client, 'bld_5', () => undefined, {
      signal: new AbortController().signal,
      idleMs: 100,
      reconnectForMs: 600,
    }),
    (err: Error) => /bld_5/.test(err.message) && /could not be resumed/.test(err.message),
  );
  assert.ok(calls >= 2, `reconnected ${calls} time(s)`);
  await close();
});
