/**
 * The engine's log spool: every chunk of log lines is appended to a file before it is shipped,
 * and stays on disk until the control plane has acknowledged it, so a control plane that is
 * down for minutes costs memory for nothing but the newest chunks and loses no line.
 *
 * A spool is a directory of segment files (`000000000001.seg`, …), each a run of records
 * `{"seq":N,"lines":[…]}\n` with consecutive seqs. Records are appended by one `write` each, in
 * seq order; a segment that reached `segmentBytes` is sealed and a new one started, and a sealed
 * segment whose every chunk is acknowledged is deleted. Opening a spool that an earlier engine
 * process left (it was killed) recovers it: complete records are kept, a torn last record (the
 * process died inside a write) is cut off, and numbering goes on after the last record. Writes
 * are not fsynced: the spool survives the engine process, not the machine.
 * @module
 */
import { mkdir, open, readdir, readFile, rm, rmdir, truncate, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeError } from '@sluice/errors';
import { silentLogger } from '@sluice/log';
import type { Logger } from '@sluice/log';
import type { LogLine } from '@sluice/protocol';

export interface SpooledChunk {
  seq: number;
  lines: LogLine[];
}

export interface LogSpoolOptions {
  /** A segment this large is sealed; 1 MiB by default. */
  segmentBytes?: number;
  /** Chunks kept in memory besides the disk (the newest ones), in bytes; 8 MiB by default. */
  memoryBytes?: number;
  /** The first seq to give when the spool holds nothing newer: the control plane's next seq. */
  startSeq?: number;
  logger?: Logger;
}

interface Segment {
  id: number;
  path: string;
  firstSeq: number;
  /** -1 while empty. */
  lastSeq: number;
  bytes: number;
}

interface Held {
  chunk: SpooledChunk;
  bytes: number;
  written: boolean;
  /** Settles once its write is done (or failed): every earlier chunk's is done by then. */
  done: Promise<void>;
}

const SEGMENT = /^(\d{12})\.seg$/;

/** Whether `name` is the name of a spool's segment file. */
export function isSegmentName(name: string): boolean {
  return SEGMENT.test(name);
}

export class LogSpool {
  readonly dir: string;
  readonly #segmentBytes: number;
  readonly #memoryBytes: number;
  readonly #log: Logger;
  readonly #segments: Segment[];
  /** The newest chunks, and any whose write failed, by seq. */
  readonly #held = new Map<number, Held>();
  #heldBytes = 0;
  #nextSeq: number;
  #acked = -1;
  #nextSegmentId: number;
  #file: FileHandle | undefined;
  #writes: Promise<void> = Promise.resolve();
  /** After a failed write the spool keeps chunks in memory only, so the disk holds no hole. */
  #diskFailed = false;
  /** The chunks recovered from an earlier engine process: `from` up to `to` (exclusive). */
  readonly recovered: { from: number; to: number };
  #cache: { segment: Segment; lastSeq: number; chunks: Map<number, SpooledChunk> } | undefined;

  private constructor(dir: string, segments: Segment[], options: LogSpoolOptions) {
    this.dir = dir;
    this.#segmentBytes = options.segmentBytes ?? 1024 * 1024;
    this.#memoryBytes = options.memoryBytes ?? 8 * 1024 * 1024;
    this.#log = options.logger ?? silentLogger;
    this.#segments = segments;
    const last = segments.at(-1);
    this.#nextSeq = Math.max(last === undefined ? 0 : last.lastSeq + 1, options.startSeq ?? 0);
    this.#nextSegmentId = (last?.id ?? 0) + 1;
    this.recovered = {
      from: segments[0]?.firstSeq ?? 0,
      to: last === undefined ? 0 : last.lastSeq + 1,
    };
  }

  /** Opens (creating it 0700) or recovers the spool in `dir`. */
  static async open(dir: string, options: LogSpoolOptions = {}): Promise<LogSpool> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return new LogSpool(dir, await recoverSegments(dir, options.logger ?? silentLogger), options);
  }

  /** The seq the next appended chunk gets. */
  get nextSeq(): number {
    return this.#nextSeq;
  }

  /** The oldest chunk still held (acknowledged chunks of the newest segment are kept). */
  get firstSeq(): number {
    return Math.min(this.#segments[0]?.firstSeq ?? this.#nextSeq, ...this.#held.keys());
  }

  /** Chunks appended and not acknowledged yet. */
  get unacknowledged(): number {
    return this.#nextSeq - Math.max(this.#acked + 1, this.firstSeq);
  }

  /**
   * Gives `lines` the next seq and queues their write; returns the seq at once, so a caller
   * never waits for the disk. The chunk can be read back right away.
   */
  append(lines: LogLine[]): number {
    const seq = this.#nextSeq++;
    const record = `${JSON.stringify({ seq, lines })}\n`;
    const bytes = Buffer.byteLength(record);
    const held: Held = { chunk: { seq, lines }, bytes, written: false, done: Promise.resolve() };
    this.#writes = held.done = this.#writes.then(() => this.#write(held, record));
    this.#held.set(seq, held);
    this.#heldBytes += held.bytes;
    return seq;
  }

  /** Resolves once every chunk appended so far was written (or kept in memory). */
  flushed(): Promise<void> {
    return this.#writes;
  }

  /** Chunk `seq`, from memory or disk; `seq` must be at least `firstSeq` and below `nextSeq`. */
  async read(seq: number): Promise<SpooledChunk> {
    const held = this.#held.get(seq)?.chunk;
    if (held !== undefined) return held;
    // Not in memory: written and let go, so its segment's bounds are up to date.
    const segment = this.#segments.find((s) => s.firstSeq <= seq && seq <= s.lastSeq);
    if (segment === undefined)
      throw new Error(`Log chunk ${seq} is not in the spool ${this.dir} (${this.describe()})`);
    if (this.#cache?.segment !== segment || this.#cache.lastSeq < seq)
      this.#cache = {
        segment,
        lastSeq: segment.lastSeq,
        chunks: parseSegment(await readFile(segment.path, 'utf8')).chunks,
      };
    const chunk = this.#cache.chunks.get(seq);
    if (chunk === undefined) throw new Error(`Log chunk ${seq} is missing from ${segment.path}`);
    return chunk;
  }

  /**
   * The control plane stored every chunk up to `seq`: sealed segments it covers go. Waits for
   * the write of chunk `seq` only, not for those of chunks appended since: a step printing fast
   * appends while chunks are sent, and waiting for every write tied each post to the disk and
   * let the unsent chunks outgrow memory, to be read back from disk.
   */
  async acknowledge(seq: number): Promise<void> {
    if (seq <= this.#acked) return;
    this.#acked = seq;
    const own = this.#held.get(seq);
    for (const [s, held] of this.#held) {
      if (s > seq) break;
      this.#release(s, held);
    }
    if (own !== undefined && !own.written) await own.done;
    await this.#dropAcknowledgedSegments();
  }

  /** `chunks A–B held (N unacknowledged)`, for messages. */
  describe(): string {
    if (this.#nextSeq === this.firstSeq) return 'no chunk held';
    return `chunks ${this.firstSeq}–${this.#nextSeq - 1} held (${this.unacknowledged} unacknowledged)`;
  }

  async close(): Promise<void> {
    await this.#writes;
    await this.#file?.close();
    this.#file = undefined;
  }

  /**
   * Closes the spool and deletes its directory: every chunk reached the control plane. The
   * directory of spools goes too once it is empty (no other build's spool is in it).
   */
  async remove(): Promise<void> {
    await this.close();
    await rm(this.dir, { recursive: true, force: true });
    await rmdir(dirname(this.dir)).catch(() => {});
  }

  async #write(held: Held, record: string): Promise<void> {
    if (this.#diskFailed) return;
    try {
      const segment = await this.#activeSegment(held.chunk.seq);
      // appendFile writes the whole record (a plain write may stop short).
      await this.#file?.appendFile(record);
      segment.lastSeq = held.chunk.seq;
      segment.bytes += held.bytes;
      held.written = true;
      if (held.chunk.seq <= this.#acked) this.#release(held.chunk.seq, held);
      this.#evict();
    } catch (err) {
      this.#diskFailed = true;
      this.#log.error('the log spool cannot be written; chunks stay in memory', {
        dir: this.dir,
        seq: held.chunk.seq,
        error: describeError(err),
      });
    }
  }

  /** The segment to append chunk `seq` to, sealing a full one first. */
  async #activeSegment(seq: number): Promise<Segment> {
    const current = this.#file === undefined ? undefined : this.#segments.at(-1);
    if (current !== undefined && current.bytes < this.#segmentBytes) return current;
    await this.#file?.close();
    this.#file = undefined;
    const id = this.#nextSegmentId++;
    const segment: Segment = {
      id,
      path: join(this.dir, `${String(id).padStart(12, '0')}.seg`),
      firstSeq: seq,
      lastSeq: -1,
      bytes: 0,
    };
    this.#file = await open(segment.path, 'a', 0o600);
    this.#segments.push(segment);
    await this.#dropAcknowledgedSegments();
    return segment;
  }

  async #dropAcknowledgedSegments(): Promise<void> {
    const active = this.#file === undefined ? undefined : this.#segments.at(-1);
    while (this.#segments.length > 0) {
      const oldest = this.#segments[0]!;
      if (oldest === active || oldest.lastSeq > this.#acked) return;
      this.#segments.shift();
      if (this.#cache?.segment === oldest) this.#cache = undefined;
      await unlink(oldest.path).catch(() => {});
    }
  }

  /** Lets go of the oldest written chunks while memory holds more than its share. */
  #evict(): void {
    for (const [seq, held] of this.#held) {
      if (this.#heldBytes <= this.#memoryBytes) return;
      if (held.written) this.#release(seq, held);
    }
  }

  #release(seq: number, held: Held): void {
    if (!held.written) return;
    this.#held.delete(seq);
    this.#heldBytes -= held.bytes;
  }
}

/** The records of a segment's text, and the length of its part that holds whole records. */
function parseSegment(text: string): { chunks: Map<number, SpooledChunk>; goodLength: number } {
  const chunks = new Map<number, SpooledChunk>();
  let offset = 0;
  let previous: number | undefined;
  for (;;) {
    const end = text.indexOf('\n', offset);
    if (end < 0) break;
    let chunk: SpooledChunk;
    try {
      chunk = JSON.parse(text.slice(offset, end)) as SpooledChunk;
    } catch {
      break;
    }
    if (!Number.isInteger(chunk.seq) || !Array.isArray(chunk.lines)) break;
    if (previous !== undefined && chunk.seq !== previous + 1) break;
    chunks.set(chunk.seq, chunk);
    previous = chunk.seq;
    offset = end + 1;
  }
  return { chunks, goodLength: offset };
}

/** The segments an earlier engine process left, their torn or broken tails cut off. */
async function recoverSegments(dir: string, log: Logger): Promise<Segment[]> {
  const names = (await readdir(dir)).filter((n) => SEGMENT.test(n)).sort();
  const segments: Segment[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const text = await readFile(path, 'utf8');
    const { chunks, goodLength } = parseSegment(text);
    const seqs = [...chunks.keys()];
    const first = seqs[0];
    const follows = first === undefined || segments.length === 0 || first === nextOf(segments);
    if (first === undefined || !follows) {
      // Empty, or not following the previous segment: nothing after a break can be trusted.
      await unlink(path);
      if (first !== undefined)
        log.warn('a log spool segment does not follow on; dropped', { path });
      continue;
    }
    const bytes = Buffer.byteLength(text.slice(0, goodLength));
    if (goodLength < text.length) {
      log.warn('a torn record at the end of a log spool segment was cut off', { path });
      await truncate(path, bytes);
    }
    segments.push({
      id: Number(SEGMENT.exec(name)?.[1]),
      path,
      firstSeq: first,
      lastSeq: seqs.at(-1)!,
      bytes,
    });
  }
  return segments;
}

function nextOf(segments: Segment[]): number {
  return (segments.at(-1)?.lastSeq ?? -1) + 1;
}
