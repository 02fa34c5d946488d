/**
 * Follows a build's log as it is written: the `buildLogStream` route's Server-Sent Events, one
 * `log` event per chunk (its id is the chunk's seq) and an `end` event with the final status.
 * A dropped connection resumes after the last chunk seen (`Last-Event-ID`), so no line is
 * printed twice or lost.
 * @module
 */
import { isSluiceError, UnavailableError } from '@sluice/errors';
import type { LogChunk, LogLine, SluiceClient } from '@sluice/protocol';

export interface LogEnd {
  status: string;
  reason: string | null;
}

interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

const RECONNECTS = 5;

/** Calls `onLine` for each line until the build ends; undefined when `signal` aborted first. */
export async function followBuildLog(
  client: SluiceClient,
  buildId: string,
  onLine: (line: LogLine) => void,
  signal: AbortSignal,
): Promise<LogEnd | undefined> {
  let lastId: string | undefined;
  let failure: unknown;
  for (let attempt = 0; attempt <= RECONNECTS && !signal.aborted; attempt++) {
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastId !== undefined) headers['last-event-id'] = lastId;
      const response = await client.raw('buildLogStream', { params: { buildId }, headers, signal });
      let end: LogEnd | undefined;
      // Read to the close that follows `end`: a body cancelled early leaves its connection
      // open, and the server's close waits for it.
      for await (const event of readEvents(response)) {
        if (event.event === 'end') end = JSON.parse(event.data) as LogEnd;
        if (event.event !== 'log') continue;
        for (const line of (JSON.parse(event.data) as LogChunk).lines) onLine(line);
        lastId = event.id ?? lastId;
      }
      if (end !== undefined) return end;
    } catch (err) {
      // The server's answer (no such build, a bad token) will not change on a retry.
      if (isSluiceError(err) && err.category !== 'unavailable') throw err;
      failure = err;
    }
  }
  if (signal.aborted) return undefined;
  throw new UnavailableError(
    'SLUICE_LOG_STREAM_FAILED',
    `The log stream of build ${buildId} ended ${RECONNECTS + 1} times before the build did`,
    { cause: failure, hint: 'Read the whole log with GET /api/v1/builds/<id>/log' },
  );
}

async function* readEvents(response: Response): AsyncGenerator<SseEvent> {
  if (response.body === null) return;
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = parseEvent(block);
      if (event !== undefined) yield event;
    }
  }
}

/** One event block; comment-only blocks (keep-alives) are undefined. */
function parseEvent(block: string): SseEvent | undefined {
  const event: SseEvent = { id: undefined, event: 'message', data: '' };
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'event') event.event = value;
    else if (field === 'id') event.id = value;
  }
  if (data.length === 0) return undefined;
  return { ...event, data: data.join('\n') };
}
