/**
 * Follows a build's log over `GET /api/v1/builds/:id/log/stream` (Server-Sent Events, one event
 * per chunk, id = seq). It reads the stream with fetch, not EventSource, so the token travels in
 * the Authorization header and never in the URL. A dropped stream is resumed after the last seq
 * seen (`Last-Event-ID`), waiting a little longer after each failure in a row; a `behind` event
 * (the page read slower than the build printed, by more than the server keeps) is resumed at
 * once; the `end` event closes it for good, as does a 404 (no such build).
 * @module
 */
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { NotFoundError } from '@sluice/errors';
import type { LogChunk, LogLine } from '@sluice/protocol';
import type { Api } from '../api/api-context.js';
import { takeEarlyLog } from '../api/early-requests.js';
import { applyCarriageReturns } from './log-sections.js';

export interface StreamedLine {
  step: string | null;
  stream: LogLine['stream'];
  at: string;
  /** As a terminal shows it: `\r` rewrites apply (see `applyCarriageReturns`). */
  text: string;
}

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'missing';

export interface LogStream {
  lines: StreamedLine[];
  /** Grows with every batch appended, to re-render on. */
  version: number;
  state: StreamState;
}

/**
 * A build's log as it is followed: asked for by the page as soon as it knows the build's id
 * (with the build, not after it), watched by the log panel alone, so a batch of lines re-renders
 * the panel and not the whole page.
 */
export interface LogSource extends LogStream {
  buildId: string;
  subscribe: (listener: () => void) => () => void;
}

function createLogSource(buildId: string): LogSource & { notify: () => void } {
  const listeners = new Set<() => void>();
  return {
    buildId,
    lines: [],
    version: 0,
    state: 'connecting',
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify: () => {
      for (const listener of listeners) listener();
    },
  };
}

export function useLogSource(api: Api, buildId: string): LogSource {
  const source = useMemo(() => createLogSource(buildId), [buildId]);
  useEffect(() => {
    // Read again from the start when the session changes (a new `api`).
    source.lines = [];
    const controller = new AbortController();
    let lastSeq = -1;
    let pending = false;
    const flush = () => {
      pending = false;
      source.version++;
      source.notify();
    };
    const append = (chunk: LogChunk) => {
      if (chunk.seq <= lastSeq) return;
      lastSeq = chunk.seq;
      for (const line of chunk.lines) {
        const { step, stream, at } = line;
        source.lines.push({ step, stream, at, text: applyCarriageReturns(line.line) });
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
      onState: (state) => {
        source.state = state;
        source.notify();
      },
    });
    return () => controller.abort();
  }, [api, buildId, source]);
  return source;
}

/** The lines and state of `source`, re-rendering the caller as they change. */
export function useLogStream(source: LogSource): LogStream {
  const version = useSyncExternalStore(source.subscribe, () => source.version);
  const state = useSyncExternalStore(source.subscribe, () => source.state);
  return { lines: source.lines, version, state };
}

interface FollowOptions {
  signal: AbortSignal;
  lastSeq(): number;
  onChunk(chunk: LogChunk): void;
  onState(state: StreamState): void;
}

async function follow(api: Api, buildId: string, options: FollowOptions): Promise<void> {
  let failures = 0;
  let first = true;
  while (!options.signal.aborted) {
    try {
      // The first time, the answer asked for as the page loaded, when there is one.
      const early = first ? takeEarlyLog(buildId, options.signal) : undefined;
      first = false;
      const response =
        (await early) ??
        (await api.raw('buildLogStream', {
          params: { buildId },
          headers: { 'last-event-id': String(options.lastSeq()) },
          signal: options.signal,
        }));
      options.onState('live');
      failures = 0;
      const closed = await readEvents(response, options);
      if (closed === 'end') {
        options.onState('ended');
        return;
      }
      if (closed === 'behind') continue;
    } catch (err) {
      if (options.signal.aborted) return;
      // A build that does not exist (or no longer does) has no log to wait for.
      if (err instanceof NotFoundError) {
        options.onState('missing');
        return;
      }
    }
    failures++;
    options.onState('reconnecting');
    await sleep(Math.min(500 * 2 ** (failures - 1), 8000), options.signal);
  }
}

/** Parsing runs at most this long before the page may draw and answer input. */
const SLICE_MS = 10;

/**
 * Reads events until the stream closes: `end` when the server said the log ended, `behind` when
 * it said to resume, `closed` otherwise. A finished build's log comes as fast as the server can
 * send it, megabytes in a read: parsing it all in one go would keep the page from drawing its
 * first line until the last was parsed, so the reader lets the page draw once after the first
 * chunk, and then yields every `SLICE_MS` of parsing.
 */
async function readEvents(
  response: Response,
  options: FollowOptions,
): Promise<'end' | 'behind' | 'closed'> {
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) return 'closed';
  let buffer = '';
  let drawn = false;
  let sliceStart = performance.now();
  const afterChunk = async () => {
    if (!drawn) {
      drawn = true;
      await nextPaint();
    } else if (performance.now() - sliceStart >= SLICE_MS) await nextTask();
    else return;
    sliceStart = performance.now();
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return 'closed';
    buffer += value;
    let split = buffer.indexOf('\n\n');
    while (split !== -1) {
      const event = parseEvent(buffer.slice(0, split));
      buffer = buffer.slice(split + 2);
      if (event.type === 'end' || event.type === 'behind') return event.type;
      if (event.type === 'log') {
        options.onChunk(JSON.parse(event.data) as LogChunk);
        await afterChunk();
      }
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

/** A task of its own (no timer clamping): the page may draw and take input before it. */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });
}

/** After the next frame is drawn; a hidden tab draws none, so at most 100 ms. */
function nextPaint(): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 100);
    requestAnimationFrame(
      () =>
        void nextTask().then(() => {
          clearTimeout(timer);
          resolve();
        }),
    );
  });
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
