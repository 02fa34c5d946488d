/**
 * Follows a build's log over `GET /api/v1/builds/:id/log/stream` (Server-Sent Events, one event
 * per chunk, id = seq). It reads the stream with fetch, not EventSource, so the token travels in
 * the Authorization header and never in the URL. A dropped stream is resumed after the last seq
 * seen (`Last-Event-ID`), waiting a little longer after each failure in a row; a `behind` event
 * (the page read slower than the build printed, by more than the server keeps) is resumed at
 * once; the `end` event closes it for good.
 * @module
 */
import { useEffect, useRef, useState } from 'react';
import type { LogChunk, LogLine } from '@sluice/protocol';
import type { Api } from '../api/api-context.js';
import { applyCarriageReturns } from './log-sections.js';

export interface StreamedLine {
  step: string | null;
  stream: LogLine['stream'];
  at: string;
  /** As a terminal shows it: `\r` rewrites apply (see `applyCarriageReturns`). */
  text: string;
}

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'ended';

export interface LogStream {
  lines: StreamedLine[];
  /** Grows with every batch appended, to re-render on. */
  version: number;
  state: StreamState;
}

export function useLogStream(api: Api, buildId: string): LogStream {
  const lines = useRef<StreamedLine[]>([]);
  const [version, setVersion] = useState(0);
  const [state, setState] = useState<StreamState>('connecting');

  useEffect(() => {
    lines.current = [];
    setVersion(0);
    const controller = new AbortController();
    let lastSeq = -1;
    let pending = false;
    const flush = () => {
      pending = false;
      setVersion((v) => v + 1);
    };
    const append = (chunk: LogChunk) => {
      if (chunk.seq <= lastSeq) return;
      lastSeq = chunk.seq;
      for (const line of chunk.lines) {
        const { step, stream, at } = line;
        lines.current.push({ step, stream, at, text: applyCarriageReturns(line.line) });
      }
      if (!pending) {
        pending = true;
        requestAnimationFrame(flush);
      }
    };
    void follow(api, buildId, {
      signal: controller.signal,
      lastSeq: () => lastSeq,
      onChunk: append,
      onState: setState,
    });
    return () => controller.abort();
  }, [api, buildId]);

  return { lines: lines.current, version, state };
}

interface FollowOptions {
  signal: AbortSignal;
  lastSeq(): number;
  onChunk(chunk: LogChunk): void;
  onState(state: StreamState): void;
}

async function follow(api: Api, buildId: string, options: FollowOptions): Promise<void> {
  let failures = 0;
  while (!options.signal.aborted) {
    try {
      const response = await api.raw('buildLogStream', {
        params: { buildId },
        headers: { 'last-event-id': String(options.lastSeq()) },
        signal: options.signal,
      });
      options.onState('live');
      failures = 0;
      const closed = await readEvents(response, options);
      if (closed === 'end') {
        options.onState('ended');
        return;
      }
      if (closed === 'behind') continue;
    } catch {
      if (options.signal.aborted) return;
    }
    failures++;
    options.onState('reconnecting');
    await sleep(Math.min(500 * 2 ** (failures - 1), 8000), options.signal);
  }
}

/**
 * Reads events until the stream closes: `end` when the server said the log ended, `behind` when
 * it said to resume, `closed` otherwise.
 */
async function readEvents(
  response: Response,
  options: FollowOptions,
): Promise<'end' | 'behind' | 'closed'> {
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) return 'closed';
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return 'closed';
    buffer += value;
    let split = buffer.indexOf('\n\n');
    while (split !== -1) {
      const event = parseEvent(buffer.slice(0, split));
      buffer = buffer.slice(split + 2);
      if (event.type === 'end' || event.type === 'behind') return event.type;
      if (event.type === 'log') options.onChunk(JSON.parse(event.data) as LogChunk);
      split = buffer.indexOf('\n\n');
    }
  }
}

function parseEvent(text: string): { type: string; data: string } {
  let type = 'message';
  const data: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return { type, data: data.join('\n') };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
