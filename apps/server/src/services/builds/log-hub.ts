/**
 * Build logs: chunks stored in the database as the engine posts them, followed live over
 * Server-Sent Events with `Last-Event-ID` resume, and downloadable whole. Chunks are numbered
 * from 0 and stored once and in order: a chunk already stored is ignored (the engine resends
 * after a failed post), and a chunk after a gap is refused with the chunk expected, so the
 * engine resends from there and a reader never skips a chunk that arrives late.
 * @module
 */
import { ConflictError } from '@sluice/errors';
import { sql } from '@sluice/db';
import type { Executor } from '@sluice/db';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type { LogChunk, LogLine } from '@sluice/protocol';
import { CHANNELS } from '../signals.js';
import { buildStatus } from './build-rows.js';
import type { ServerContext } from '../server-context.js';

/** Chunks read at a time. */
const PAGE_CHUNKS = 500;

export class LogHub {
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
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
    const size = lines.reduce((n, l) => n + l.line.length, 0);
    // One statement, so a chunk costs one round trip: it reads where the log ends, stores the
    // chunk only if it is the next one, and wakes the log's readers only if it stored it. Two
    // copies of one chunk at once (a resend racing its original): the first one wins.
    const { rows } = await sql<{ expected: number }>`
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
        (select pg_notify(${CHANNELS.logs}, ${buildId}) from stored) as woken
      from next`.execute(this.#ctx.database.db);
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

  async chunksAfter(buildId: string, afterSeq: number): Promise<LogChunk[]> {
    const rows = await this.#ctx.database.db
      .selectFrom('build_log_chunks')
      .select(['seq', 'lines'])
      .where('build_id', '=', buildId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(PAGE_CHUNKS)
      .execute();
    return rows.map((r) => ({
      seq: r.seq,
      lines: r.lines.map((l) => ({
        step: l.step === '' ? null : l.step,
        stream: l.stream as LogLine['stream'],
        line: l.line,
        at: l.at,
      })),
    }));
  }

  /**
   * The whole log as text, each line after `[step] ` when it has a step; with `step`, only that
   * step's lines, as they were printed.
   */
  async text(buildId: string, options: { step?: string | undefined } = {}): Promise<string> {
    const { step } = options;
    const out: string[] = [];
    let after = -1;
    for (;;) {
      const chunks = await this.chunksAfter(buildId, after);
      if (chunks.length === 0) return out.join('');
      for (const chunk of chunks) {
        for (const l of chunk.lines) {
          if (step === undefined) out.push(`${l.step ? `[${l.step}] ` : ''}${l.line}\n`);
          else if (l.step === step) out.push(`${l.line}\n`);
        }
        after = chunk.seq;
      }
    }
  }

  /**
   * Writes SSE to `write` from after `lastEventId` until the build has finished and every chunk
   * was sent, or `signal` aborts (the client went away).
   */
  async follow(
    buildId: string,
    lastEventId: number,
    write: (text: string) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let after = lastEventId;
    let live = false;
    while (!signal.aborted) {
      const since = this.#ctx.signals.generation(CHANNELS.logs, buildId);
      const chunks = await this.chunksAfter(buildId, after);
      for (const chunk of chunks) {
        write(`id: ${chunk.seq}\nevent: log\ndata: ${JSON.stringify(chunk)}\n\n`);
        after = chunk.seq;
      }
      // A full page: more may be stored already. Otherwise, once following live, every chunk
      // stored before `since` was sent and the build's end would have woken us since, so the
      // next look waits for a wake-up instead of asking again at once: a live log costs one
      // query per chunk per reader, not three. (Catching up, the end may have come before
      // `since`: the status is read first.)
      if (chunks.length >= PAGE_CHUNKS) continue;
      if (chunks.length > 0 && live) {
        await this.#ctx.signals.wait(CHANNELS.logs, buildId, 15_000, { signal, since });
        continue;
      }
      if (chunks.length > 0) continue;
      const build = await buildStatus(this.#ctx.database.db, buildId);
      if (build === undefined || FINISHED_STATUSES.includes(build.status)) {
        write(
          `event: end\ndata: ${JSON.stringify({ status: build?.status ?? 'unknown', reason: build?.reason ?? null })}\n\n`,
        );
        return;
      }
      write(': keep-alive\n\n');
      await this.#ctx.signals.wait(CHANNELS.logs, buildId, 15_000, { signal, since });
      live = true;
    }
  }
}

/** The seq of the build's next log chunk: one past the last stored, 0 for none. */
export async function nextLogSeq(executor: Executor, buildId: string): Promise<number> {
  const row = await executor
    .selectFrom('build_log_chunks')
    .select((eb) => eb.fn.max('seq').as('last'))
    .where('build_id', '=', buildId)
    .executeTakeFirst();
  const last = row?.last;
  return last === null || last === undefined ? 0 : Number(last) + 1;
}
