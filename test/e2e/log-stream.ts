/**
 * A build's log followed over its Server-Sent Events route, read as any client would.
 * @module
 */
import assert from 'node:assert/strict';
import type { LogChunk } from '@sluice/protocol';

/** The raw SSE route: `log` events until the `end` event, as `[step] line`. */
export async function streamLog(url: string, token: string, buildId: string): Promise<string[]> {
  const response = await fetch(`${url}/api/v1/builds/${buildId}/log/stream`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
  });
  assert.equal(response.headers.get('content-type'), 'text/event-stream');
  const lines: string[] = [];
  let ended = false;
  let buffer = '';
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += Buffer.from(bytes).toString('utf8');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^data: (.*)$/m.exec(event)?.[1] ?? '';
      ended ||= /^event: end$/m.test(event);
      if (/^event: log$/m.test(event))
        for (const l of (JSON.parse(data) as LogChunk).lines) lines.push(`[${l.step}] ${l.line}`);
    }
  }
  // Read to the close after `end`: a body cancelled early would hold the connection open.
  assert.ok(ended, `the stream closed before its end event; lines so far:\n${lines.join('\n')}`);
  return lines;
}
