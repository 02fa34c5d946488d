/**
 * The engine's one ordered channel to the control plane: step events and log chunks are sent one
 * at a time, in the order they happened, so a `step-finished` never overtakes the step's last
 * lines. Log lines are batched (every `flushMs` or `maxLines`) into chunks numbered from 0 with
 * no gaps; a failed post is retried with backoff and the same seq (the server ignores a repeated
 * seq), so no line is dropped, duplicated or reordered.
 * @module
 */
import {
  AuthenticationError,
  describeError,
  InputError,
  NotAllowedError,
  NotFoundError,
} from '@sluice/errors';
import { silentLogger } from '@sluice/log';
import type { Logger } from '@sluice/log';
import type { EngineEvent, LogLine } from '@sluice/protocol';

export type OutboxItem =
  { kind: 'events'; events: EngineEvent[] } | { kind: 'log'; seq: number; lines: LogLine[] };

export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export interface BuildOutboxOptions {
  post: (item: OutboxItem) => Promise<void>;
  flushMs?: number;
  maxLines?: number;
  retry?: RetryPolicy;
  logger?: Logger;
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 10, baseMs: 200, maxMs: 5_000 };

/** Rejections that another attempt cannot fix: the request or the token is wrong. */
function shouldRetry(err: unknown): boolean {
  return !(
    err instanceof InputError ||
    err instanceof AuthenticationError ||
    err instanceof NotAllowedError ||
    err instanceof NotFoundError
  );
}

export class BuildOutbox {
  readonly #options: Required<Omit<BuildOutboxOptions, 'logger'>> & { logger: Logger };
  #pending: LogLine[] = [];
  #nextSeq = 0;
  #timer: NodeJS.Timeout | undefined;
  #chain: Promise<void> = Promise.resolve();
  #failure: Error | undefined;

  private constructor(options: BuildOutboxOptions) {
    // `?? default` per field: a caller passing `retry: undefined` gets the default, not no policy.
    this.#options = {
      post: options.post,
      flushMs: options.flushMs ?? 200,
      maxLines: options.maxLines ?? 200,
      retry: options.retry ?? DEFAULT_RETRY,
      logger: options.logger ?? silentLogger,
    };
  }

  static create(options: BuildOutboxOptions): BuildOutbox {
    return new BuildOutbox(options);
  }

  /** The first post that failed for good, if any; later posts are not attempted. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  line(line: LogLine): void {
    this.#pending.push(line);
    if (this.#pending.length >= this.#options.maxLines) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.#options.flushMs);
  }

  /** Sends the lines so far (their chunk goes ahead of anything enqueued later). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0) return;
    const lines = this.#pending;
    this.#pending = [];
    this.#enqueue({ kind: 'log', seq: this.#nextSeq++, lines });
  }

  /** Sends events after every line emitted before them. */
  events(events: EngineEvent[]): void {
    this.flush();
    this.#enqueue({ kind: 'events', events });
  }

  /** Flushes and waits until everything was sent; throws the post that failed for good. */
  async drain(): Promise<void> {
    this.flush();
    await this.#chain;
    if (this.#failure !== undefined) throw this.#failure;
  }

  #enqueue(item: OutboxItem): void {
    this.#chain = this.#chain.then(async () => {
      if (this.#failure !== undefined) return;
      try {
        await this.#send(item);
      } catch (err) {
        this.#failure = err instanceof Error ? err : new Error(String(err));
      }
    });
  }

  async #send(item: OutboxItem): Promise<void> {
    const { retry, logger } = this.#options;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#options.post(item);
      } catch (err) {
        if (attempt >= retry.attempts || !shouldRetry(err)) throw err;
        const delay = Math.min(retry.maxMs, retry.baseMs * 2 ** (attempt - 1));
        logger.warn('posting to the control plane failed; retrying', {
          kind: item.kind,
          attempt,
          delayMs: delay,
          error: describeError(err),
        });
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}
