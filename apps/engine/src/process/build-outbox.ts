/**
 * The engine's one ordered channel to the control plane: step events and log chunks are sent one
 * at a time, in the order they happened, so a `step-finished` never overtakes the step's last
 * lines. Log lines are batched into chunks numbered with no gaps: a chunk closes `flushMs` after
 * its first line when nothing is being sent (so a quiet step's line is on its way within
 * `flushMs`), else when the post under way has been answered (so a step that prints fast sends
 * what came during one round trip as one chunk, not many small ones: a post costs the server far
 * more than a line), at `maxLines` or `maxBytes`, and `maxHoldMs` after its first line at the
 * latest. A closed chunk is appended to the `LogSpool` before anything is sent: the queue holds only seq
 * ranges and events, so its memory does not grow with an outage. A chunk is sent from the spool
 * and acknowledged there once the server answered 2xx (it stores chunks only in order, so that
 * answer covers every earlier chunk too). A post that fails for a reason that may pass (the
 * server is down, 5xx, a timeout) is retried with backoff for as long as it takes; a gap answer
 * (409 `SLUICE_LOG_SEQUENCE_GAP` with `expectedSeq`) resends from the chunk the server expects.
 * Nothing here blocks the build: `line`, `flush` and `events` return at once.
 * @module
 */
import {
  AuthenticationError,
  ConflictError,
  describeError,
  InputError,
  NotAllowedError,
  NotFoundError,
  UnavailableError,
} from '@sluice/errors';
import { silentLogger } from '@sluice/log';
import type { Logger } from '@sluice/log';
import type { EngineEvent, LogLine } from '@sluice/protocol';
import { backoffDelay } from '@sluice/process';
import { abortableSleep, formatDuration } from '../base/durations.js';
import type { LogSpool } from './log-spool.js';

export type OutboxItem =
  { kind: 'events'; events: EngineEvent[] } | { kind: 'log'; seq: number; lines: LogLine[] };

export interface RetryPolicy {
  /** Attempts before a post that may pass is given up; unlimited by default. */
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export interface BuildOutboxOptions {
  post: (item: OutboxItem, signal: AbortSignal) => Promise<void>;
  /** Where chunks are written before they are sent; it numbers them. */
  spool: LogSpool;
  /** How long a chunk waits for more lines when nothing is being sent; 50 ms by default. */
  flushMs?: number;
  /** How long a chunk waits at most while a post is under way; 1 s by default. */
  maxHoldMs?: number;
  /** Lines that close a chunk; 2,000 by default (the engine API takes up to 5,000). */
  maxLines?: number;
  /** Characters of line text that close a chunk; 1 Mi by default. */
  maxBytes?: number;
  retry?: RetryPolicy;
  /** One post's limit; 60 s by default. */
  postTimeoutMs?: number;
  logger?: Logger;
}

export interface DrainOptions {
  /** Give up (and stop sending) when the queue is not empty after this long. */
  timeoutMs?: number;
}

export const LOG_SEQUENCE_GAP = 'SLUICE_LOG_SEQUENCE_GAP';
const DEFAULT_RETRY: RetryPolicy = { attempts: Infinity, baseMs: 200, maxMs: 5_000 };
/** A line longer than this is sent as several, so one chunk always fits a request. */
const MAX_LINE_CHARS = 1024 * 1024;

type Queued =
  { kind: 'events'; events: EngineEvent[] } | { kind: 'log'; next: number; end: number };

/** Rejections that another attempt cannot fix: the request or the token is wrong. */
export function shouldRetry(err: unknown): boolean {
  return !(
    err instanceof InputError ||
    err instanceof AuthenticationError ||
    err instanceof NotAllowedError ||
    err instanceof NotFoundError ||
    err instanceof ConflictError
  );
}

/** The chunk a gap answer asks for, or undefined for any other failure. */
function expectedSeqOf(err: unknown): number | undefined {
  if (!(err instanceof ConflictError) || err.code !== LOG_SEQUENCE_GAP) return undefined;
  // The client keeps the server's details under `details.details`.
  const inner = err.details?.details;
  const details = typeof inner === 'object' && inner !== null ? inner : err.details;
  const expected = (details as { expectedSeq?: unknown } | undefined)?.expectedSeq;
  return typeof expected === 'number' && Number.isInteger(expected) ? expected : undefined;
}

export class BuildOutbox {
  readonly #options: Required<Omit<BuildOutboxOptions, 'logger' | 'spool'>>;
  readonly #spool: LogSpool;
  readonly #log: Logger;
  readonly #stop = new AbortController();
  #pending: LogLine[] = [];
  #pendingChars = 0;
  #timer: NodeJS.Timeout | undefined;
  /** When the first pending line came (Date.now()), for `maxHoldMs`. */
  #pendingSince = 0;
  #queue: Queued[] = [];
  #running: Promise<void> | undefined;
  #failure: Error | undefined;

  private constructor(options: BuildOutboxOptions) {
    // `?? default` per field: a caller passing `retry: undefined` gets the default, not no policy.
    this.#options = {
      post: options.post,
      flushMs: options.flushMs ?? 50,
      maxHoldMs: options.maxHoldMs ?? 1_000,
      maxLines: options.maxLines ?? 2_000,
      maxBytes: options.maxBytes ?? 1024 * 1024,
      retry: options.retry ?? DEFAULT_RETRY,
      postTimeoutMs: options.postTimeoutMs ?? 60_000,
    };
    this.#spool = options.spool;
    this.#log = options.logger ?? silentLogger;
    // Chunks an earlier engine process of this build spooled and may not have sent.
    const { from, to } = this.#spool.recovered;
    if (from < to) this.#queue.push({ kind: 'log', next: from, end: to });
  }

  static create(options: BuildOutboxOptions): BuildOutbox {
    return new BuildOutbox(options);
  }

  /** The failure that stopped sending for good, if any; later items are not sent. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  line(line: LogLine): void {
    const text = line.line;
    if (text.length <= MAX_LINE_CHARS) this.#add(line);
    else
      for (let at = 0; at < text.length;) {
        const end = pieceEnd(text, at);
        this.#add({ ...line, line: text.slice(at, end) });
        at = end;
      }
    const { maxLines, maxBytes, flushMs } = this.#options;
    if (this.#pending.length >= maxLines || this.#pendingChars >= maxBytes) this.flush();
    else this.#timer ??= setTimeout(() => this.#due(), flushMs);
  }

  /**
   * The chunk's `flushMs` is up: it closes now if nothing is being sent; else the end of the post
   * under way closes it (`#kick`), or `maxHoldMs` after its first line, whichever comes first.
   */
  #due(): void {
    this.#timer = undefined;
    if (this.#running === undefined) return this.flush();
    const left = this.#pendingSince + this.#options.maxHoldMs - Date.now();
    if (left <= 0) return this.flush();
    this.#timer = setTimeout(() => this.flush(), left);
  }

  #add(line: LogLine): void {
    if (this.#pending.length === 0) this.#pendingSince = Date.now();
    this.#pending.push(line);
    this.#pendingChars += line.line.length;
  }

  /** Spools the lines so far as one chunk, queued ahead of anything enqueued later. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0) return;
    const seq = this.#spool.append(this.#pending);
    this.#pending = [];
    this.#pendingChars = 0;
    const last = this.#queue.at(-1);
    if (last?.kind === 'log' && last.end === seq) last.end = seq + 1;
    else this.#queue.push({ kind: 'log', next: seq, end: seq + 1 });
    this.#kick();
  }

  /** Sends events after every line emitted before them. */
  events(events: EngineEvent[]): void {
    this.flush();
    this.#queue.push({ kind: 'events', events });
    this.#kick();
  }

  /**
   * Flushes and waits until everything queued was acknowledged. Throws the failure that stopped
   * sending, or, when `timeoutMs` passes first, stops sending and throws an UnavailableError
   * naming the chunks the control plane has not acknowledged.
   */
  async drain(options: DrainOptions = {}): Promise<void> {
    this.flush();
    const deadline = Date.now() + (options.timeoutMs ?? Infinity);
    while (this.#queue.length > 0 && this.#failure === undefined) {
      const left = deadline - Date.now();
      if (left <= 0 || this.#stop.signal.aborted) {
        this.stop();
        throw new UnavailableError(
          'SLUICE_LOG_NOT_ACKNOWLEDGED',
          `The control plane did not acknowledge the build log within ${formatDuration(options.timeoutMs ?? 0)}: ${this.#spool.unacknowledged} chunks of ${this.#spool.describe()} in ${this.#spool.dir} were not stored`,
        );
      }
      this.#kick();
      await raceTimeout(this.#running, left);
    }
    if (this.#failure !== undefined) throw this.#failure;
  }

  /**
   * Sends `events` at once, outside the queue, retrying until `timeoutMs`: the last report of a
   * build whose queue was drained or given up.
   */
  async sendNow(events: EngineEvent[], timeoutMs: number): Promise<void> {
    await this.#send({ kind: 'events', events }, AbortSignal.timeout(timeoutMs));
  }

  /** Stops sending: a post under way is aborted, nothing more is tried. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#stop.abort();
  }

  #kick(): void {
    if (this.#running !== undefined || this.#failure !== undefined || this.#stop.signal.aborted)
      return;
    if (this.#queue.length === 0) return;
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
      // Lines that came while posting and whose `flushMs` is up go out now as one chunk.
      if (this.#pending.length > 0 && Date.now() - this.#pendingSince >= this.#options.flushMs)
        this.flush();
    });
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    while (this.#queue.length > 0 && !signal.aborted) {
      const head = this.#queue[0]!;
      try {
        if (head.kind === 'events')
          await this.#send({ kind: 'events', events: head.events }, signal);
        else if (!(await this.#shipChunk(head, signal))) continue;
        this.#queue.shift();
      } catch (err) {
        if (signal.aborted) return;
        this.#failure = err instanceof Error ? err : new Error(String(err));
        this.#log.error('the control plane refused what the engine sent; sending stopped', {
          kind: head.kind,
          error: describeError(err),
        });
        return;
      }
    }
  }

  /** Sends the head range's next chunk; true once the range is done. */
  async #shipChunk(head: Queued & { kind: 'log' }, signal: AbortSignal): Promise<boolean> {
    const seq = head.next;
    const chunk = await this.#spool.read(seq);
    try {
      await this.#send({ kind: 'log', seq, lines: chunk.lines }, signal);
      await this.#spool.acknowledge(seq);
      head.next = seq + 1;
    } catch (err) {
      const expected = expectedSeqOf(err);
      if (expected === undefined) throw err;
      this.#rewind(head, seq, expected, err);
    }
    return head.next >= head.end;
  }

  /** The server answered that it expects chunk `expected` before `seq`. */
  #rewind(head: Queued & { kind: 'log' }, seq: number, expected: number, err: unknown): void {
    if (expected > seq) {
      // It holds more than this engine thought: those chunks need no resend.
      head.next = expected;
      return;
    }
    if (expected === seq || expected < this.#spool.firstSeq) throw err;
    this.#log.warn('the control plane misses log chunks; resending them', { from: expected, seq });
    head.next = expected;
  }

  /** Posts `item`, retrying failures that may pass with backoff until `signal` aborts. */
  async #send(item: OutboxItem, signal: AbortSignal): Promise<void> {
    const { retry, postTimeoutMs } = this.#options;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#options.post(
          item,
          AbortSignal.any([signal, AbortSignal.timeout(postTimeoutMs)]),
        );
      } catch (err) {
        if (signal.aborted) throw signal.reason ?? err;
        if (attempt >= retry.attempts || !shouldRetry(err)) throw err;
        const delay = backoffDelay(attempt, retry);
        this.#log.warn('posting to the control plane failed; retrying', {
          kind: item.kind,
          ...(item.kind === 'log' ? { seq: item.seq } : {}),
          attempt,
          delayMs: delay,
          error: describeError(err),
        });
        await abortableSleep(delay, signal);
      }
    }
  }
}

/** Where the piece of `text` that starts at `at` ends: at most MAX_LINE_CHARS, pairs kept whole. */
function pieceEnd(text: string, at: number): number {
  let end = Math.min(text.length, at + MAX_LINE_CHARS);
  const code = text.charCodeAt(end - 1);
  if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--;
  return end;
}

/** Waits for `promise` (if any) or `ms`, whichever comes first. */
async function raceTimeout(promise: Promise<void> | undefined, ms: number): Promise<void> {
  if (promise === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.min(ms, 2 ** 31 - 1));
  });
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
