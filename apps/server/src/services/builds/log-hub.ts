/**
 * Build logs: chunks stored in the database as the engine posts them, followed live over
 * Server-Sent Events with `Last-Event-ID` resume, and downloadable whole. Chunks are numbered
 * from 0 and stored once and in order: a chunk already stored is ignored (the engine resends
 * after a failed post), and a chunk after a gap is refused with the chunk expected, so the
 * engine resends from there and a reader never skips a chunk that arrives late.
 * @module
 */
import { ConflictError } from '@sluice/errors';
import { jsonb } from '@sluice/db';
import type { Executor } from '@sluice/db';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type { LogChunk, LogLine } from '@sluice/protocol';
import { CHANNELS } from '../signals.js';
import { buildStatus } from './build-rows.js';
import type { ServerContext } from '../server-context.js';

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
    await this.#ctx.database.db.transaction().execute(async (trx) => {
      const expected = await nextLogSeq(trx, buildId);
      if (chunk.seq < expected) return;
      if (chunk.seq > expected) {
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
      // Two copies of one chunk at once (a resend racing its original): the first one wins.
      await trx
        .insertInto('build_log_chunks')
        .values({ build_id: buildId, seq: chunk.seq, lines: jsonb(lines), byte_size: size })
        .onConflict((oc) => oc.columns(['build_id', 'seq']).doNothing())
        .execute();
      await this.#ctx.signals.publish(trx, CHANNELS.logs, buildId);
    });
  }

  async chunksAfter(buildId: string, afterSeq: number): Promise<LogChunk[]> {
    const rows = await this.#ctx.database.db
      .selectFrom('build_log_chunks')
      .select(['seq', 'lines'])
      .where('build_id', '=', buildId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(500)
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

  async text(buildId: string): Promise<string> {
    const out: string[] = [];
    let after = -1;
    for (;;) {
      const chunks = await this.chunksAfter(buildId, after);
      if (chunks.length === 0) return out.join('');
      for (const chunk of chunks) {
        for (const l of chunk.lines) out.push(`${l.step ? `[${l.step}] ` : ''}${l.line}\n`);
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
    while (!signal.aborted) {
      const since = this.#ctx.signals.generation(CHANNELS.logs, buildId);
      const chunks = await this.chunksAfter(buildId, after);
      for (const chunk of chunks) {
        write(`id: ${chunk.seq}\nevent: log\ndata: ${JSON.stringify(chunk)}\n\n`);
        after = chunk.seq;
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
