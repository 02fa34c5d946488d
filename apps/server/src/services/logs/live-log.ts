/**
 * The fan-out of a live build's log: while a build has readers following it in this process,
 * one `LiveLog` takes each newly stored chunk once and keeps the newest chunks, already encoded
 * as Server-Sent Events, in a window bounded in bytes. Every reader of the build writes from
 * that window, so a thousand readers cost one encoding and at most one database read per
 * chunk, not a thousand. A chunk this process stored comes as it was posted, without a read;
 * one stored by another server process (a replica) is read once, on the log's wake-up (its
 * `pg_notify` names the chunk, so a process that has it reads nothing), and a tick every
 * `tickMs` re-reads in case a wake-up was lost. A reader whose place falls out of the window
 * (it reads slower than the build prints, by more than the window) is told to resume from the
 * database: the window never grows for it. `LiveLogs` holds one per followed build, and drops
 * it when its last reader leaves.
 * @module
 */
import { describeError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import type { EventPage } from './log-pages.js';

/** How a followed build ended: its `end` event. */
export interface LogEnd {
  status: string;
  reason: string | null;
}

export interface LiveLogSource {
  /** The page of stored chunks after `after`, as events. */
  read(buildId: string, after: number): Promise<EventPage>;
  /** How the build ended, or undefined while it has not. */
  ended(buildId: string): Promise<LogEnd | undefined>;
}

export interface LiveLogsOptions {
  source: LiveLogSource;
  /** What a build's window of recent chunks may hold, in encoded bytes. */
  windowBytes: number;
  /** Time between ticks (a re-read, and a keep-alive for readers with nothing to send). */
  tickMs: number;
  log: Logger;
}

/**
 * Readers woken at a time: each then writes what it has not sent, synchronously. A thousand
 * readers of a chunk of a few hundred KiB would hold the event loop for the whole copy; in
 * slices, requests (the engine's next post among them) are served between them.
 */
const WAKE_SLICE = 16;

interface Entry {
  seq: number;
  event: Buffer;
}

export class LiveLog {
  readonly buildId: string;
  readonly #options: LiveLogsOptions;
  readonly #entries: Entry[] = [];
  #bytes = 0;
  /** The last seq read; the window holds the chunks up to it. */
  #head: number;
  #end: LogEnd | undefined;
  #ticks = 0;
  #readers = 0;
  #closed = false;
  #fetching: Promise<void> | undefined;
  #again = false;
  /** Readers waiting for the next change, and those being woken a slice at a time. */
  #waiting: (() => void)[] = [];
  #waking: (() => void)[] = [];

  constructor(buildId: string, head: number, options: LiveLogsOptions) {
    this.buildId = buildId;
    this.#head = head;
    this.#options = options;
  }

  /** The seq of the oldest chunk held; one past `head` when none is. */
  get firstSeq(): number {
    return this.#entries[0]?.seq ?? this.#head + 1;
  }

  get head(): number {
    return this.#head;
  }

  /** How the build ended, once every chunk it stored is in the window. */
  get end(): LogEnd | undefined {
    return this.#end;
  }

  /** What the window holds, encoded. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Counts the ticks, for keep-alives. */
  get ticks(): number {
    return this.#ticks;
  }

  /** Whether a reader that has sent up to `seq` can go on from the window. */
  covers(seq: number): boolean {
    return seq >= this.firstSeq - 1;
  }

  /** The chunk after `seq` as an event, if the window has it (`covers(seq)` must hold). */
  after(seq: number): Entry | undefined {
    return this.#entries[seq + 1 - this.firstSeq];
  }

  /** Resolves at the next change: chunks added, the end, a tick, or the close. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Resolves in the next slice of readers woken (for a reader whose socket drained). */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      const idle = this.#waking.length === 0;
      this.#waking.push(resolve);
      if (idle) setImmediate(() => this.#wakeSlice());
    });
  }

  /** Reads what was stored since `head`, once however many wake-ups come meanwhile. */
  wake(): void {
    if (this.#closed) return;
    if (this.#fetching !== undefined) {
      this.#again = true;
      return;
    }
    this.#fetching = this.#fetch()
      .catch((err: unknown) =>
        this.#options.log.warn('a live build log could not be read; retried at the next tick', {
          buildId: this.buildId,
          error: describeError(err),
        }),
      )
      .finally(() => (this.#fetching = undefined));
  }

  tick(): void {
    this.#ticks++;
    this.wake();
    this.#notify();
  }

  close(): void {
    this.#closed = true;
    this.#notify();
  }

  get closed(): boolean {
    return this.#closed;
  }

  async #fetch(): Promise<void> {
    const { source } = this.#options;
    let more = true;
    while (more && !this.#closed) {
      this.#again = false;
      const page = await source.read(this.buildId, this.#head);
      this.#add(page.events);
      if (page.events.length > 0) {
        more = page.more || this.#again;
        continue;
      }
      if (this.#end === undefined) {
        const end = await source.ended(this.buildId);
        if (end !== undefined) {
          // A chunk stored after the read above and before the end: read once more.
          const last = await source.read(this.buildId, this.#head);
          this.#add(last.events);
          if (last.events.length === 0) {
            this.#end = end;
            this.#notify();
          }
          more = last.events.length > 0;
          continue;
        }
      }
      more = this.#again;
    }
  }

  /** Chunk `seq`, the one after `head`, as its event. */
  push(seq: number, event: string): void {
    this.#add([{ seq, event }]);
  }

  #add(events: EventPage['events']): void {
    if (events.length === 0) return;
    for (const { seq, event: text } of events) {
      if (seq <= this.#head) continue;
      const event = Buffer.from(text);
      this.#entries.push({ seq, event });
      this.#bytes += event.length;
      this.#head = seq;
    }
    // The newest chunk stays whatever it weighs: a reader at the head must be able to go on.
    while (this.#bytes > this.#options.windowBytes && this.#entries.length > 1)
      this.#bytes -= this.#entries.shift()?.event.length ?? 0;
    this.#notify();
  }

  #notify(): void {
    const idle = this.#waking.length === 0;
    for (const wake of this.#waiting) this.#waking.push(wake);
    this.#waiting = [];
    if (idle) this.#wakeSlice();
  }

  #wakeSlice(): void {
    for (const wake of this.#waking.splice(0, WAKE_SLICE)) wake();
    if (this.#waking.length > 0) setImmediate(() => this.#wakeSlice());
  }

  /** @internal for LiveLogs */
  attach(): void {
    this.#readers++;
  }

  /** @internal for LiveLogs; true when it was the last reader. */
  detach(): boolean {
    return --this.#readers === 0;
  }
}

/** One `LiveLog` per build followed in this process, fed by the log's wake-ups. */
export class LiveLogs {
  readonly #options: LiveLogsOptions;
  readonly #logs = new Map<string, LiveLog>();
  /** `<build id> <seq>` of the chunks this process is storing. */
  readonly #storing = new Set<string>();
  readonly #timer: NodeJS.Timeout;

  constructor(options: LiveLogsOptions) {
    this.#options = options;
    this.#timer = setInterval(() => {
      for (const live of this.#logs.values()) live.tick();
    }, options.tickMs);
    this.#timer.unref();
  }

  /**
   * Chunk `seq` was stored for `buildId` (by any server process), or, without `seq`, the build
   * ended: its live log reads what it does not have.
   */
  woken(buildId: string, seq?: number): void {
    const live = this.#logs.get(buildId);
    if (live === undefined || (seq !== undefined && seq <= live.head)) return;
    // This process is storing it: the store hands it over (its wake-up can come first).
    if (seq !== undefined && this.#storing.has(`${buildId} ${seq}`)) return;
    live.wake();
  }

  /**
   * This process is storing chunk `seq` of `buildId`: call `done` with its event once it is
   * stored, and the live log takes it as it is; without (not stored: a resend, a gap, a
   * failure), the live log reads what it may have missed.
   */
  storing(buildId: string, seq: number): { done(event?: string): void } {
    const key = `${buildId} ${seq}`;
    this.#storing.add(key);
    return {
      done: (event) => {
        this.#storing.delete(key);
        const live = this.#logs.get(buildId);
        if (live === undefined) return;
        // In order only: after a chunk it has not read (stored elsewhere), it reads.
        if (event !== undefined && seq === live.head + 1) live.push(seq, event);
        else if (event === undefined || seq > live.head) live.wake();
      },
    };
  }

  /** The build's live log, if it has readers here. */
  peek(buildId: string): LiveLog | undefined {
    return this.#logs.get(buildId);
  }

  /**
   * Joins the build's live log, starting one after `head` (the last chunk the caller read) if
   * there is none; leave with `detach`.
   */
  attach(buildId: string, head: number): LiveLog {
    let live = this.#logs.get(buildId);
    if (live === undefined) {
      live = new LiveLog(buildId, head, this.#options);
      this.#logs.set(buildId, live);
      // A chunk stored between the caller's read and now woke nobody here.
      live.wake();
    }
    live.attach();
    return live;
  }

  detach(live: LiveLog): void {
    if (!live.detach()) return;
    live.close();
    if (this.#logs.get(live.buildId) === live) this.#logs.delete(live.buildId);
  }

  /** Builds followed here. */
  get size(): number {
    return this.#logs.size;
  }

  /** What their windows hold, encoded. */
  get bytes(): number {
    let bytes = 0;
    for (const live of this.#logs.values()) bytes += live.bytes;
    return bytes;
  }

  close(): void {
    clearInterval(this.#timer);
    for (const live of this.#logs.values()) live.close();
    this.#logs.clear();
  }
}
