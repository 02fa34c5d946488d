/**
 * Follows a build's log as it is written: the `buildLogStream` route's Server-Sent Events, one
 * `log` event per chunk (its id is the chunk's seq) and an `end` event with the final status.
 * A dropped connection (a server restarted, a network that went quiet) is opened again after
 * the last chunk seen (`Last-Event-ID`), with backoff, for as long as `reconnectForMs` passes
 * without an answer, so no line is printed twice or lost. A stream silent for longer than the
 * server's keep-alive period is taken as dropped. A `behind` event (this reader fell behind the
 * live log by more than the server keeps for it) is resumed at once, as a matter of course.
 * @module
 */
import { isSluiceError, UnavailableError } from '@sluice/errors';
import type { LogChunk, LogLine, SluiceClient } from '@sluice/protocol';
import { sleep } from '@sluice/process';

export interface LogEnd {
  status: string;
  reason: string | null;
}

interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

export interface FollowOptions {
  signal: AbortSignal;
  /** False: stop once every line written so far was printed (`sluice logs` without -f). */
  follow?: boolean;
  /** How long to keep trying while the server does not answer (default 5 minutes). */
  reconnectForMs?: number;
  /** No byte for this long means the connection is dead (the server sends keep-alives every 15 s). */
  idleMs?: number;
  /** Told when the stream dropped and when it came back, to tell the person. */
  onConnection?: (state: 'lost' | 'resumed', err?: unknown) => void;
}

/** What ended the following: the build (`end`), caught up (not following), or the signal. */
export type FollowResult =
  { kind: 'end'; end: LogEnd } | { kind: 'caught-up' } | { kind: 'aborted' };

const BACKOFF_MS = [250, 500, 1000, 2000, 5000];

/** Calls `onLine` for each line until the build ends (or, without `follow`, until caught up). */
export async function followBuildLog(
  client: SluiceClient,
  buildId: string,
  onLine: (line: LogLine) => void,
  options: FollowOptions,
): Promise<FollowResult> {
  const { signal, follow = true, reconnectForMs = 300_000, idleMs = 45_000 } = options;
  let lastId: string | undefined;
  let failingSince: number | undefined;
  let failures = 0;
  let failure: unknown;
  while (!signal.aborted) {
    const attempt = new AbortController();
    const abort = () => attempt.abort();
    signal.addEventListener('abort', abort, { once: true });
    let idle = setTimeout(abort, idleMs);
    let caughtUp = false;
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastId !== undefined) headers['last-event-id'] = lastId;
      const response = await client.raw('buildLogStream', {
        params: { buildId },
        headers,
        signal: attempt.signal,
      });
      let end: LogEnd | undefined;
      let behind = false;
      // Read to the close that follows `end`: a body cancelled early leaves its connection
      // open, and the server's close waits for it.
      for await (const event of readEvents(response)) {
        clearTimeout(idle);
        idle = setTimeout(abort, idleMs);
        // Only an event proves the server is back: a proxy may accept and then say nothing.
        if (failingSince !== undefined) options.onConnection?.('resumed');
        failingSince = undefined;
        failures = 0;
        if (event.event === 'end') end = JSON.parse(event.data) as LogEnd;
        if (event.event === 'behind') behind = true;
        if (event.event === 'keep-alive' && !follow) {
          caughtUp = true;
          break;
        }
        if (event.event !== 'log') continue;
        for (const line of (JSON.parse(event.data) as LogChunk).lines) onLine(line);
        lastId = event.id ?? lastId;
      }
      if (caughtUp) return { kind: 'caught-up' };
      if (end !== undefined) return { kind: 'end', end };
      // The server ended the stream after `behind`: the next one reads on from the database.
      if (behind) continue;
      failure = new Error('the log stream closed before the build ended');
    } catch (err) {
      // Leaving the stream early may reject its cancelled body: what was asked is done.
      if (caughtUp) return { kind: 'caught-up' };
      if (signal.aborted) break;
      // The server's answer (no such build, a bad token) will not change on a retry.
      if (isSluiceError(err) && err.category !== 'unavailable') throw err;
      failure = err;
    } finally {
      clearTimeout(idle);
      signal.removeEventListener('abort', abort);
      // Closes the connection of a stream left early: the server's close would wait for it.
      attempt.abort();
    }
    const now = Date.now();
    if (failingSince === undefined) {
      failingSince = now;
      options.onConnection?.('lost', failure);
    } else if (now - failingSince > reconnectForMs) break;
    await sleep(BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)] ?? 5000, signal);
  }
  if (signal.aborted) return { kind: 'aborted' };
  throw new UnavailableError(
    'SLUICE_LOG_STREAM_FAILED',
    `The log stream of build ${buildId} could not be resumed for ${Math.round(reconnectForMs / 1000)} s`,
    { cause: failure, hint: `The build goes on; follow it again with: sluice logs -f ${buildId}` },
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
      yield parseEvent(block);
    }
  }
}

/** One event block; a comment-only block is the server's `keep-alive` (it has nothing newer). */
function parseEvent(block: string): SseEvent {
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
  if (data.length === 0) return { id: undefined, event: 'keep-alive', data: '' };
  return { ...event, data: data.join('\n') };
}
