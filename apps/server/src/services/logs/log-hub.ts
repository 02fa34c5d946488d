/**
 * Build logs: chunks stored in the database as the engine posts them, followed live over
 * Server-Sent Events with `Last-Event-ID` resume, and downloadable as text (whole or from a
 * chunk on). Chunks are numbered from 0 and stored once and in order: a chunk already stored is
 * ignored (the engine resends after a failed post), and a chunk after a gap is refused with the
 * chunk expected, so the engine resends from there and a reader never skips a chunk that
 * arrives late. Readers cost the server what they read, not what the log holds: both routes
 * read pages bounded in bytes and write them as the socket takes them (`log-follow.ts`), and
 * live readers share one read per new chunk (`live-log.ts`).
 * @module
 */
import type { ServerResponse } from 'node:http';
import { ConflictError } from '@sluice/errors';
import { sql } from '@sluice/db';
import { SERVER_DEFAULTS } from '@sluice/config/defaults';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type { LogChunk } from '@sluice/protocol';
import { CHANNELS } from '../pg-notify.js';
import { buildStatus } from '../builds/build-rows.js';
import type { ServerContext } from '../server-context.js';
import type { LogReaderCounts } from '../../observability/server-metrics.js';
import { LiveLogs } from './live-log.js';
import type { LogEnd } from './live-log.js';
import { followLog } from './log-follow.js';
import type { FollowDeps, FollowOutcome } from './log-follow.js';
import {
  LAST_SEQ,
  logEvent,
  logText,
  nextLogSeq,
  readEventPage,
  readLogPage,
  storedSize,
} from './log-pages.js';
import type { EventPage } from './log-pages.js';
import { ReadSlots } from './read-slots.js';

export { nextLogSeq } from './log-pages.js';

/** Database reads at once for readers catching up on stored logs (the live reads are apart). */
const CATCH_UP_SLOTS = 4;
/** Time between a live log's ticks: a re-read and keep-alives (clients take 45 s of silence as a drop). */
const TICK_MS = 15_000;
/** A reader told to resume that does not read that for this long is cut off. */
const END_GRACE_MS = 10_000;

/** What the log's readers hold of this server process now, for `/metrics` and tests. */
export type LogReaderStats = LogReaderCounts;

export interface LogHubOptions {
  /** The window of recent chunks per followed build, in bytes; the server setting by default. */
  windowBytes?: number;
  tickMs?: number;
}

export class LogHub {
  readonly #ctx: ServerContext;
  readonly #slots = new ReadSlots(CATCH_UP_SLOTS);
  readonly #lives: LiveLogs;
  readonly #follow: FollowDeps;
  readonly #unlisten: () => void;
  /** Ends every follow when the server closes, so clients resume on another server process. */
  readonly #closing = new AbortController();
  readonly #streams = new Set<ServerResponse>();
  #behind = 0;
  #downloads = 0;
  #downloadsWaiting = 0;

  constructor(ctx: ServerContext, options: LogHubOptions = {}) {
    this.#ctx = ctx;
    const ended = (buildId: string) => this.#ended(buildId);
    this.#lives = new LiveLogs({
      source: { read: (buildId, after) => this.#page(buildId, after), ended },
      windowBytes:
        options.windowBytes ??
        ctx.config.logReaderWindowBytes ??
        SERVER_DEFAULTS.logReaderWindowBytes,
      tickMs: options.tickMs ?? TICK_MS,
      log: ctx.log,
    });
    // `<build id> <seq>` for a chunk stored, `<build id>` for the build's end.
    this.#unlisten = ctx.signals.listen(CHANNELS.logs, (key) => {
      const [buildId = '', seq] = key.split(' ');
      this.#lives.woken(buildId, seq === undefined ? undefined : Number(seq));
    });
    this.#follow = {
      lives: this.#lives,
      read: (buildId, after) => this.#slots.run(() => this.#page(buildId, after)),
      ended,
      endGraceMs: END_GRACE_MS,
    };
  }

  /**
   * Stores `chunk` if it is the next one; ignores it if it is stored already. Throws a
   * ConflictError `SLUICE_LOG_SEQUENCE_GAP` (details: `expectedSeq`) if chunks before it are
   * missing. Once it returns, every chunk up to `chunk.seq` is stored.
   */
  async append(buildId: string, chunk: LogChunk): Promise<void> {
    const lines = chunk.lines.map((l) => ({
      step: l.step ?? '',
      stream: l.stream,
      line: l.line,
      at: l.at,
    }));
    const size = storedSize(lines);
    // One statement, so a chunk costs one round trip: it reads where the log ends, stores the
    // chunk only if it is the next one, and wakes the log's readers only if it stored it (the
    // wake-up says which chunk: a process that has it already reads nothing). Two copies of one
    // chunk at once (a resend racing its original): the first one wins.
    // This process's live readers of the build get the chunk as posted, without reading it.
    const storing = this.#lives.storing(buildId, chunk.seq);
    let rows: { expected: number; stored: number | null }[] = [];
    try {
      ({ rows } = await sql<{ expected: number; stored: number | null }>`
      with next as (
        select coalesce(max(seq) + 1, 0)::int as seq
        from build_log_chunks where build_id = ${buildId}
      ), stored as (
        insert into build_log_chunks (build_id, seq, lines, byte_size)
        select ${buildId}, ${chunk.seq}, ${JSON.stringify(lines)}::jsonb, ${size}
        from next where next.seq = ${chunk.seq}
        on conflict (build_id, seq) do nothing
        returning seq
      )
      select next.seq as expected,
        (select seq from stored) as stored,
        (select pg_notify(${CHANNELS.logs}, ${`${buildId} ${chunk.seq}`}) from stored) as woken
      from next`.execute(this.#ctx.database.db));
    } finally {
      storing.done(rows[0]?.stored === chunk.seq ? logEvent(chunk) : undefined);
    }
    const expected = rows[0]?.expected ?? 0;
    if (chunk.seq <= expected) return;
    this.#ctx.log.warn('a log chunk after a gap was refused', {
      buildId,
      seq: chunk.seq,
      expectedSeq: expected,
    });
    throw new ConflictError(
      'SLUICE_LOG_SEQUENCE_GAP',
      `Log chunk ${chunk.seq} of build ${buildId} comes after a gap: the next chunk expected is ${expected}`,
      {
        details: { expectedSeq: expected },
        hint: `Resend the log from chunk ${expected}`,
      },
    );
  }

  /**
   * The log as text, a page at a time, from chunk `from` (0 by default) up to `upTo`: each line
   * after `[step] ` when it has a step; with `step`, only that step's lines, as printed.
   */
  async *text(
    buildId: string,
    options: { step?: string | undefined; from?: number; upTo?: number } = {},
  ): AsyncGenerator<string> {
    let after = (options.from ?? 0) - 1;
    const upTo = options.upTo ?? LAST_SEQ;
    this.#downloads++;
    try {
      while (after < upTo) {
        const page = await this.#slots.run(() =>
          readLogPage(this.#ctx.database.db, buildId, { after, upTo }),
        );
        if (page.chunks.length === 0) return;
        let text = '';
        for (const chunk of page.chunks) text += logText(chunk, options.step);
        after = page.chunks.at(-1)?.seq ?? upTo;
        if (text === '') continue;
        // The next page is read when the reader has taken this one.
        this.#downloadsWaiting++;
        try {
          yield text;
        } finally {
          this.#downloadsWaiting--;
        }
      }
    } finally {
      this.#downloads--;
    }
  }

  /** The seq of the chunk the log stores next: a download's end, and where the next one starts. */
  nextSeq(buildId: string): Promise<number> {
    return nextLogSeq(this.#ctx.database.db, buildId);
  }

  /**
   * Writes SSE to `res` from after `lastEventId` until the build has finished and every chunk
   * was sent, the reader fell behind the live window (a `behind` event: it resumes), or
   * `signal` aborts (the client went away) or the server closes.
   */
  async follow(
    buildId: string,
    lastEventId: number,
    res: ServerResponse,
    signal: AbortSignal,
  ): Promise<FollowOutcome> {
    this.#streams.add(res);
    try {
      const outcome = await followLog(this.#follow, res, {
        buildId,
        after: lastEventId,
        signal: AbortSignal.any([signal, this.#closing.signal]),
      });
      if (outcome === 'behind') this.#behind++;
      return outcome;
    } finally {
      this.#streams.delete(res);
    }
  }

  stats(): LogReaderStats {
    let waitingForReader = 0;
    let queuedBytes = 0;
    for (const res of this.#streams) {
      if (res.writableNeedDrain) waitingForReader++;
      queuedBytes += res.writableLength;
    }
    return {
      streams: this.#streams.size,
      waitingForReader,
      queuedBytes,
      behind: this.#behind,
      downloads: this.#downloads,
      downloadsWaiting: this.#downloadsWaiting,
      liveBuilds: this.#lives.size,
      windowBytes: this.#lives.bytes,
    };
  }

  close(): void {
    this.#closing.abort();
    this.#unlisten();
    this.#lives.close();
  }

  #page(buildId: string, after: number): Promise<EventPage> {
    return readEventPage(this.#ctx.database.db, buildId, { after });
  }

  async #ended(buildId: string): Promise<LogEnd | undefined> {
    const build = await buildStatus(this.#ctx.database.db, buildId);
    if (build === undefined) return { status: 'unknown', reason: null };
    return FINISHED_STATUSES.includes(build.status) ? build : undefined;
  }
}
