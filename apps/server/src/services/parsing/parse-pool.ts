/**
 * Parses off the request path: pipelines, step-type documents and branch filters. A pipeline at
 * the size limit (1 MiB, some 14,000 steps) is about a second of synchronous work, a step type
 * of 1 MB (a long list in an `x-` field) ten; done in a handler it held up every other request,
 * `/healthz` included. Documents up to `inlineChars` (a few milliseconds) are parsed in place;
 * larger ones in a small pool of worker threads, one job per worker at a time. A branch filter
 * that is a regular expression is always matched in a worker: RE2 is linear in the branch's
 * length, but its program grows with counted repetitions (`[a-z]{0,200}`), and a 160-character
 * filter took 0.6 s per branch name on the thread that ran it (`branch-filter-check.ts`).
 *
 * Workers start on demand and end after `idleMs` without work, and never keep the process alive
 * while idle, so the pool needs no closing. A worker that dies (out of memory, a crash) fails its
 * job with SLUICE_PIPELINE_PARSER_FAILED naming the reason, and the next job gets a new worker.
 * Beyond `queueLimit` waiting jobs the answer is 503 SLUICE_PIPELINE_PARSER_BUSY.
 *
 * The worker is this same module, started with a marker in `workerData`: it works from the
 * compiled files and from the esbuild bundle of the CLI alike (no second entry point to ship).
 * @module
 */
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';
import { InternalError, UnavailableError } from '@sluice/errors';
import { stepTypeFromData } from '@sluice/pipeline';
import type { Logger } from '@sluice/log';
import { checkBranchFilterNow, isPlainBranchFilter } from './branch-filter-check.js';
import type { BranchFilterAnswer } from './branch-filter-check.js';
import { documentDigest, parseJob, parseStepTypeNow, stepTypeData } from './parse-jobs.js';
import type {
  ParseRequest,
  PipelineParseJob,
  PipelineParseResult,
  StepTypeParse,
  StepTypeReply,
} from './parse-jobs.js';

export type { PipelineParseJob, PipelineParseResult, StepTypeParse } from './parse-jobs.js';

/** What is counted for `/metrics`: each document parsed, and where. */
export type ParseCounter = (kind: 'pipeline' | 'step-type', where: 'inline' | 'worker') => void;

export interface ParsePoolOptions {
  log: Logger;
  /** Called for every document parsed (not for one answered from memory). */
  counted?: ParseCounter;
  /** Workers at most (default: half the CPUs, 1 to 2). */
  size?: number;
  /** Documents up to this many characters are parsed in place (default 16,384). */
  inlineChars?: number;
  /** An idle worker ends after this long (default 30 s). */
  idleMs?: number;
  /** Jobs that may wait for a worker (default 32). */
  queueLimit?: number;
  /** Each worker's heap limits (default: 512 MB of old generation). */
  resourceLimits?: ResourceLimits;
}

const ROLE = 'sluice-pipeline-parser';
/** Parsed documents kept in memory, by their total size: eight documents at the size limit. */
const RECENT_CHARS_LIMIT = 8 * 1024 * 1024;

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}

interface Waiting {
  request: ParseRequest;
  /** What the job reads, for errors: a pipeline's file, a step type's source. */
  what: string;
  resolve: (reply: unknown) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  current: Waiting | undefined;
  idle: NodeJS.Timeout | undefined;
}

type Reply = PipelineParseResult | StepTypeReply | BranchFilterAnswer | { failure: string };

export class ParsePool {
  readonly #options: Required<Omit<ParsePoolOptions, 'log' | 'counted'>>;
  readonly #log: Logger;
  readonly #counted: ParseCounter;
  readonly #slots = new Set<Slot>();
  readonly #queue: Waiting[] = [];
  readonly #recent = new Map<string, { result: PipelineParseResult; chars: number }>();
  #recentChars = 0;

  private constructor(options: ParsePoolOptions) {
    this.#log = options.log.child({ component: 'parse-pool' });
    this.#counted = options.counted ?? (() => undefined);
    this.#options = {
      size: options.size ?? Math.min(2, Math.max(1, Math.floor(availableParallelism() / 2))),
      inlineChars: options.inlineChars ?? 16_384,
      idleMs: options.idleMs ?? 30_000,
      queueLimit: options.queueLimit ?? 32,
      resourceLimits: options.resourceLimits ?? { maxOldGenerationSizeMb: 512 },
    };
  }

  static create(options: ParsePoolOptions): ParsePool {
    return new ParsePool(options);
  }

  /**
   * The document's issues, every one with line:column; `ok` when it validates. A document parsed
   * recently (the same text, file name and step types: every build of a pipeline until it is
   * edited) is answered from memory; the answer is frozen, so no caller can change another's.
   */
  async parse(job: PipelineParseJob): Promise<PipelineParseResult> {
    const hash = createHash('sha256').update(job.file).update('\0').update(job.yaml);
    for (const document of job.stepTypes) hash.update('\0').update(documentDigest(document));
    const key = hash.digest('base64');
    const cached = this.#recent.get(key);
    if (cached !== undefined) {
      // Most recently used last: the first entry is the one to drop.
      this.#recent.delete(key);
      this.#recent.set(key, cached);
      return cached.result;
    }
    const result = deepFreeze(await this.#parseNow(job));
    this.#remember(key, { result, chars: job.yaml.length });
    return result;
  }

  /**
   * A step-type document parsed (its definition remembered as parsed, so expanding a typed step
   * with it reads no YAML), or its issues. Large ones are parsed in a worker.
   */
  async parseStepType(text: string, source: string): Promise<StepTypeParse> {
    const inWorker = text.length > this.#options.inlineChars;
    this.#counted('step-type', inWorker ? 'worker' : 'inline');
    const reply = inWorker
      ? ((await this.#inWorker({ kind: 'step-type', text, source }, source)) as StepTypeReply)
      : parseStepTypeNow(text, source);
    return reply.ok
      ? { ok: true, document: stepTypeFromData(reply.data), warnings: reply.warnings }
      : reply;
  }

  /**
   * Whether `branch` passes `filter` (undefined: only whether the filter may be stored), a
   * regular expression in a worker, which keeps what it compiled.
   */
  async checkBranchFilter(filter: string, branch?: string): Promise<BranchFilterAnswer> {
    if (isPlainBranchFilter(filter)) return checkBranchFilterNow(filter, branch);
    return (await this.#inWorker(
      { kind: 'branch-filter', filter, branch },
      'a branch filter',
    )) as BranchFilterAnswer;
  }

  #remember(key: string, entry: { result: PipelineParseResult; chars: number }): void {
    this.#recent.set(key, entry);
    this.#recentChars += entry.chars;
    for (const [oldest, { chars }] of this.#recent) {
      if (this.#recentChars <= RECENT_CHARS_LIMIT) break;
      this.#recent.delete(oldest);
      this.#recentChars -= chars;
    }
  }

  async #parseNow(job: PipelineParseJob): Promise<PipelineParseResult> {
    const inWorker = job.yaml.length > this.#options.inlineChars;
    this.#log.debug('pipeline parse started', { file: job.file, chars: job.yaml.length, inWorker });
    this.#counted('pipeline', inWorker ? 'worker' : 'inline');
    if (!inWorker) return parseJob(job);
    const request: ParseRequest = {
      kind: 'pipeline',
      yaml: job.yaml,
      file: job.file,
      stepTypes: job.stepTypes.map(stepTypeData),
    };
    return (await this.#inWorker(request, job.file)) as PipelineParseResult;
  }

  #inWorker(request: ParseRequest, what: string): Promise<unknown> {
    if (this.#queue.length >= this.#options.queueLimit)
      return Promise.reject(
        new UnavailableError(
          'SLUICE_PIPELINE_PARSER_BUSY',
          `${this.#queue.length} large documents are already waiting to be parsed`,
          { hint: 'Try again in a few seconds' },
        ),
      );
    return new Promise((resolve, reject) => {
      this.#queue.push({ request, what, resolve, reject });
      this.#dispatch();
    });
  }

  /** Ends every worker; jobs still waiting fail as unavailable. */
  async close(): Promise<void> {
    for (const waiting of this.#queue.splice(0))
      waiting.reject(
        new UnavailableError('SLUICE_PIPELINE_PARSER_CLOSED', 'The pipeline parser was closed'),
      );
    await Promise.all([...this.#slots].map((slot) => this.#end(slot)));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const slot = [...this.#slots].find((s) => s.current === undefined) ?? this.#spawn();
      if (slot === undefined) return;
      const waiting = this.#queue.shift() as Waiting;
      clearTimeout(slot.idle);
      slot.current = waiting;
      slot.worker.ref();
      slot.worker.postMessage(waiting.request);
    }
  }

  #spawn(): Slot | undefined {
    if (this.#slots.size >= this.#options.size) return undefined;
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { role: ROLE },
      resourceLimits: this.#options.resourceLimits,
    });
    const slot: Slot = { worker, current: undefined, idle: undefined };
    this.#slots.add(slot);
    worker.on('message', (reply: Reply) => this.#finish(slot, reply));
    worker.on('error', (err) => this.#lost(slot, err.message, err));
    worker.on('exit', (code) => this.#lost(slot, `it exited with code ${code}`));
    return slot;
  }

  #finish(slot: Slot, reply: Reply): void {
    const waiting = slot.current;
    slot.current = undefined;
    slot.worker.unref();
    slot.idle = setTimeout(() => void this.#end(slot), this.#options.idleMs).unref();
    if ('failure' in reply)
      waiting?.reject(
        new InternalError(
          'SLUICE_PIPELINE_PARSER_FAILED',
          `Parsing ${waiting.what} failed: ${reply.failure}`,
        ),
      );
    else waiting?.resolve(reply);
    this.#dispatch();
  }

  /** The worker is gone: its job fails with the reason, the next gets a new worker. */
  #lost(slot: Slot, reason: string, cause?: Error): void {
    if (!this.#slots.delete(slot)) return;
    clearTimeout(slot.idle);
    const waiting = slot.current;
    if (waiting !== undefined) {
      this.#log.error('pipeline parser worker died', { file: waiting.what, reason });
      waiting.reject(
        new InternalError(
          'SLUICE_PIPELINE_PARSER_FAILED',
          `The pipeline parser stopped while reading ${waiting.what}: ${reason}`,
          { cause, hint: 'A document this large or this deeply aliased may need to be split' },
        ),
      );
    }
    this.#dispatch();
  }

  async #end(slot: Slot): Promise<void> {
    if (!this.#slots.delete(slot)) return;
    clearTimeout(slot.idle);
    await slot.worker.terminate();
  }
}

/** The worker's side: one job per message, the answer in one message. */
function serveParses(): void {
  const port = parentPort;
  port?.on('message', (request: ParseRequest) => {
    let reply: Reply;
    try {
      reply = answer(request);
    } catch (err) {
      reply = { failure: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  });
}

function answer(request: ParseRequest): Reply {
  switch (request.kind) {
    case 'pipeline':
      return parseJob({ ...request, stepTypes: request.stepTypes.map(stepTypeFromData) });
    case 'step-type':
      return parseStepTypeNow(request.text, request.source);
    case 'branch-filter':
      return checkBranchFilterNow(request.filter, request.branch);
  }
}

if (!isMainThread && (workerData as { role?: unknown } | null)?.role === ROLE) serveParses();
