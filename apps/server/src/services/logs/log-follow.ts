/**
 * One reader following a build's log over Server-Sent Events, written at the reader's pace: an
 * event is written only once the socket has taken the one before (`drain`), so a reader that
 * does not read holds one event of the server's memory, not the log. A reader behind the live
 * window catches up from the database a page at a time (pages bounded in bytes, a few reads at
 * once for the whole process), then follows the build's `LiveLog` with every other reader. A
 * reader that falls out of the window gets a `behind` event with the last id it was sent and the
 * stream ends: it resumes with `Last-Event-ID` (from the database), and the window never grows
 * for it.
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { LiveLog, LiveLogs, LogEnd } from './live-log.js';
import type { EventPage } from './log-pages.js';

export const READER_BEHIND = 'SLUICE_LOG_READER_BEHIND';

/**
 * What a live reader may have queued from the window before the server waits for its socket.
 * The window's events are buffers shared by every reader (a socket queues a reference, not a
 * copy), so a reader behind by several chunks gets them in one write rather than one drain
 * each, for no memory of its own.
 */
const WINDOW_QUEUE_BYTES = 256 * 1024;

export interface FollowDeps {
  lives: LiveLogs;
  /** A page of stored chunks after `after`, read in one of the process's catch-up slots. */
  read(buildId: string, after: number): Promise<EventPage>;
  /** How the build ended, or undefined while it has not. */
  ended(buildId: string): Promise<LogEnd | undefined>;
  /** How long a reader told to resume may take to read its last events before it is cut off. */
  endGraceMs: number;
}

/** Why a follow ended. */
export type FollowOutcome = 'end' | 'behind' | 'gone';

/**
 * Writes the log of `buildId` after `after` to `res` as SSE until the build has ended and every
 * chunk was sent (`end`), the reader fell out of the live window (`behind`), or `signal` aborts
 * (`gone`). Ends `res` in the first two cases.
 */
export async function followLog(
  deps: FollowDeps,
  res: ServerResponse,
  options: { buildId: string; after: number; signal: AbortSignal },
): Promise<FollowOutcome> {
  const { buildId, signal } = options;
  const out = new EventWriter(res, signal);
  let pos = options.after;
  let live: LiveLog | undefined;
  try {
    while (!out.gone) {
      const shared = live ?? deps.lives.peek(buildId);
      if (shared?.covers(pos)) {
        live ??= deps.lives.attach(buildId, pos);
        return await fromWindow(live, pos, out, deps);
      }
      // Behind the window (or no window yet): a page from the database.
      const page = await deps.read(buildId, pos);
      for (const { seq, event } of page.events) {
        if (!(await out.write(event))) return 'gone';
        pos = seq;
      }
      if (page.events.length > 0) continue;
      const end = await deps.ended(buildId);
      if (end !== undefined) {
        // A chunk stored after the read above and before the end: read once more.
        if ((await deps.read(buildId, pos)).events.length > 0) continue;
        return out.finish(endEvent(end), 'end');
      }
      // Caught up (`sluice logs` without -f stops at the first keep-alive): now live.
      if (!(await out.write(': keep-alive\n\n'))) return 'gone';
      live = deps.lives.attach(buildId, pos);
    }
    return 'gone';
  } finally {
    if (live !== undefined) deps.lives.detach(live);
  }
}

async function fromWindow(
  live: LiveLog,
  after: number,
  out: EventWriter,
  deps: FollowDeps,
): Promise<FollowOutcome> {
  let pos = after;
  // A reader with nothing to send gets a keep-alive at once: it says "caught up".
  let ticks = -1;
  while (!out.gone && !live.closed) {
    if (!live.covers(pos)) {
      const behind = { code: READER_BEHIND, lastEventId: pos, message: behindMessage(pos) };
      out.finish(`event: behind\ndata: ${JSON.stringify(behind)}\n\n`, 'behind', deps.endGraceMs);
      return 'behind';
    }
    const entry = live.after(pos);
    if (entry !== undefined) {
      // Waits for the socket, or for the window to move on (this reader may fall out of it).
      if (out.queued >= WINDOW_QUEUE_BYTES) {
        // Drained: write in one of the window's slices, not in the drain's own callback (a
        // thousand sockets draining at once would otherwise all write in one turn).
        if (await out.until(live.changed(), true)) await live.turn();
        continue;
      }
      out.send(entry.event);
      pos = entry.seq;
      ticks = live.ticks;
      continue;
    }
    if (live.end !== undefined) return out.finish(endEvent(live.end), 'end');
    if (live.ticks !== ticks && !out.blocked) {
      out.send(': keep-alive\n\n');
      ticks = live.ticks;
    }
    await out.until(live.changed());
  }
  return 'gone';
}

function behindMessage(pos: number): string {
  return `The reader fell behind the live log by more than the server keeps for it; resume after event ${pos} (Last-Event-ID)`;
}

function endEvent(end: LogEnd): string {
  return `event: end\ndata: ${JSON.stringify({ status: end.status, reason: end.reason })}\n\n`;
}

/**
 * Writes to a response only when its socket has taken what came before. Waits settle when the
 * reader goes away too, without a promise per wait left on anything long-lived.
 */
class EventWriter {
  readonly #res: ServerResponse;
  readonly #wakers = new Set<() => void>();
  #gone = false;

  constructor(res: ServerResponse, signal: AbortSignal) {
    this.#res = res;
    const done = () => {
      this.#gone = true;
      for (const wake of [...this.#wakers]) wake();
    };
    if (signal.aborted || res.destroyed) done();
    signal.addEventListener('abort', done, { once: true });
    res.once('close', done);
  }

  get gone(): boolean {
    return this.#gone;
  }

  /** The socket has not taken the last write yet. */
  get blocked(): boolean {
    return this.#res.writableNeedDrain;
  }

  /** Bytes written that the socket has not taken yet. */
  get queued(): number {
    return this.#res.writableLength;
  }

  /** Writes `text` once the socket is ready for it; false if the reader went away. */
  async write(text: string): Promise<boolean> {
    while (!this.#gone && this.blocked) await this.until(undefined, true);
    if (this.#gone) return false;
    this.send(text);
    return true;
  }

  /**
   * Resolves when `other` does, the socket drains (with `drain`), or the reader goes away;
   * true when it was the drain.
   */
  until(other: Promise<void> | undefined, drain = false): Promise<boolean> {
    if (this.#gone) return Promise.resolve(false);
    const res = this.#res;
    return new Promise<boolean>((resolve) => {
      const done = (drained: boolean) => {
        this.#wakers.delete(woken);
        if (drain) res.off('drain', onDrain);
        resolve(drained);
      };
      const woken = () => done(false);
      const onDrain = () => done(true);
      this.#wakers.add(woken);
      if (drain) res.once('drain', onDrain);
      void other?.then(woken);
    });
  }

  send(data: string | Buffer): void {
    this.#res.write(data);
  }

  /**
   * Writes `text` and ends the stream. A reader that does not read it within `graceMs` is cut
   * off, so what is queued for it is freed.
   */
  finish<T>(text: string, outcome: T, graceMs?: number): T {
    const res = this.#res;
    res.end(text);
    if (graceMs !== undefined && !res.writableFinished) {
      const timer = setTimeout(() => res.destroy(), graceMs);
      timer.unref();
      res.once('close', () => clearTimeout(timer));
    }
    return outcome;
  }
}
