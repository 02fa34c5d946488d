/**
 * Reading a build's stored log a page at a time, a page bounded by bytes rather than by chunks:
 * a chunk holds up to 5,000 lines and can weigh a mebibyte, so a page of N chunks could weigh N
 * mebibytes. A page holds the chunks after a seq whose stored sizes add up to the budget (the
 * first one whatever its size), read in one statement that walks the primary key and stops at
 * the budget. Also the encodings both log routes send: an SSE event per chunk, `[step] line`
 * text.
 * @module
 */
import { sql } from '@sluice/db';
import type { Executor } from '@sluice/db';
import type { LogChunk, LogLine } from '@sluice/protocol';

/** What a page of the log may weigh, by the chunks' stored sizes; 256 KiB by default. */
export const DEFAULT_PAGE_BYTES = 256 * 1024;
/** A page never holds more chunks than this, however small they are. */
const PAGE_CHUNKS = 500;
/** The largest seq PostgreSQL's `integer` holds: "no upper bound". */
export const LAST_SEQ = 2 ** 31 - 1;

export interface LogPageOptions {
  /** Chunks after this seq (-1: from the first). */
  after: number;
  /** Chunks up to this seq at most (inclusive); LAST_SEQ by default. */
  upTo?: number;
  /** The page's budget in stored bytes; DEFAULT_PAGE_BYTES by default. */
  bytes?: number;
}

/** Chunks in order, and whether more were stored than the page could hold. */
export interface LogPage {
  chunks: LogChunk[];
  more: boolean;
}

/** A page of chunks as Server-Sent Events. */
export interface EventPage {
  events: { seq: number; event: string }[];
  more: boolean;
}

interface StoredLine {
  step: string;
  stream: string;
  line: string;
  at: string;
}

/**
 * The chunks after `after` (up to `upTo`) that fit `bytes`, in order; always at least one when
 * there is one. No chunks: nothing is stored after `after`.
 */
export async function readLogPage(
  executor: Executor,
  buildId: string,
  options: LogPageOptions,
): Promise<LogPage> {
  const { rows, more } = await readPage<StoredLine[]>(executor, buildId, options, 'json');
  return { chunks: rows.map((r) => ({ seq: r.seq, lines: r.lines.map(toLogLine) })), more };
}

/**
 * `readLogPage` as SSE events, made from the stored JSON text without parsing it: a reader
 * catching up costs the text of what it reads, not its lines as objects and back.
 */
export async function readEventPage(
  executor: Executor,
  buildId: string,
  options: LogPageOptions,
): Promise<EventPage> {
  const { rows, more } = await readPage<string>(executor, buildId, options, 'text');
  return { events: rows.map((r) => ({ seq: r.seq, event: storedEvent(r.seq, r.lines) })), more };
}

async function readPage<L>(
  executor: Executor,
  buildId: string,
  options: LogPageOptions,
  linesAs: 'json' | 'text',
): Promise<{ rows: { seq: number; lines: L }[]; more: boolean }> {
  const upTo = options.upTo ?? LAST_SEQ;
  const budget = options.bytes ?? DEFAULT_PAGE_BYTES;
  // `sizes` reads sizes only (no lines) in key order, up to PAGE_CHUNKS of them; the chunks that
  // start within the budget are read whole. `scanned` beyond those kept: the page is cut short.
  const { rows } = await sql<{ seq: number; lines: L; scanned: number | string }>`
    with sizes as (
      select seq, sum(byte_size) over (order by seq) - byte_size as before
      from build_log_chunks
      where build_id = ${buildId} and seq > ${options.after} and seq <= ${upTo}
      order by seq
      limit ${PAGE_CHUNKS}
    )
    select c.seq, ${linesAs === 'text' ? sql`c.lines::text` : sql`c.lines`} as lines, (select count(*) from sizes) as scanned
    from build_log_chunks c
    where c.build_id = ${buildId} and c.seq > ${options.after}
      and c.seq <= (select max(seq) from sizes where before < ${budget})
    order by c.seq`.execute(executor);
  const scanned = Number(rows[0]?.scanned ?? 0);
  return { rows, more: rows.length < scanned || scanned === PAGE_CHUNKS };
}

/**
 * A chunk's event from its lines as PostgreSQL prints the stored JSON (`"step": ""` for a line
 * of no step, which the API says as null). Inside a JSON string every quote is escaped, so the
 * text `"step": ""` can only be that key and value.
 */
function storedEvent(seq: number, linesJson: string): string {
  const lines = linesJson.replaceAll('"step": ""', '"step": null');
  return `id: ${seq}\nevent: log\ndata: {"seq":${seq},"lines":${lines}}\n\n`;
}

function toLogLine(l: StoredLine): LogLine {
  return {
    step: l.step === '' ? null : l.step,
    stream: l.stream as LogLine['stream'],
    line: l.line,
    at: l.at,
  };
}

/** The seq of the build's next log chunk: one past the last stored, 0 for none. */
export async function nextLogSeq(executor: Executor, buildId: string): Promise<number> {
  return (await logTotals(executor, buildId)).nextSeq;
}

/** Where the build's stored log ends: its next seq, and the bytes of line text stored. */
export async function logTotals(
  executor: Executor,
  buildId: string,
): Promise<{ nextSeq: number; bytes: number }> {
  const row = await executor
    .selectFrom('build_log_chunks')
    .select((eb) => [eb.fn.max('seq').as('last'), eb.fn.sum<string>('byte_size').as('bytes')])
    .where('build_id', '=', buildId)
    .executeTakeFirst();
  const last = row?.last;
  return {
    nextSeq: last === null || last === undefined ? 0 : Number(last) + 1,
    bytes: Number(row?.bytes ?? 0),
  };
}

/** One chunk as a Server-Sent Event: its seq is the event id, so `Last-Event-ID` resumes. */
export function logEvent(chunk: LogChunk): string {
  return `id: ${chunk.seq}\nevent: log\ndata: ${JSON.stringify({ seq: chunk.seq, lines: chunk.lines })}\n\n`;
}

/**
 * A chunk's lines as text: each after `[step] ` when it has one; with `step`, only that step's
 * lines, as printed.
 */
export function logText(chunk: LogChunk, step: string | undefined): string {
  let out = '';
  for (const l of chunk.lines) {
    if (step === undefined) out += `${l.step ? `[${l.step}] ` : ''}${l.line}\n`;
    else if (l.step === step) out += `${l.line}\n`;
  }
  return out;
}

/** What a chunk's lines weigh as stored (`byte_size`): their text in UTF-8. */
export function storedSize(lines: readonly { line: string }[]): number {
  let size = 0;
  for (const l of lines) size += Buffer.byteLength(l.line);
  return size;
}
