/**
 * Parses pipelines off the request path. A pipeline at the size limit (1 MiB, some 14,000
 * steps) is about a second of synchronous work; done in a handler it held up every other request,
 * `/healthz` included. Documents up to `inlineChars` (a few milliseconds) are parsed in place;
 * larger ones in a small pool of worker threads, one document per worker at a time.
 *
 * Workers start on demand and end after `idleMs` without work, and never keep the process alive
 * while idle, so the pool needs no closing. A worker that dies (out of memory, a crash) fails its
 * document with SLUICE_PIPELINE_PARSER_FAILED naming the reason, and the next document gets a new
 * worker. Beyond `queueLimit` waiting documents the answer is 503 SLUICE_PIPELINE_PARSER_BUSY.
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
import { credentialUses, NO_CREDENTIAL_USES, parsePipeline } from '@sluice/pipeline';
import type { CredentialUses, PipelineIssue } from '@sluice/pipeline';
import type { Logger } from '@sluice/log';
import type { EngineStepType } from '@sluice/protocol';
import { plannedSteps } from '../builds/build-steps.js';
import type { PlannedStep } from '../builds/build-steps.js';
import { stepTypeCatalog } from '../settings/step-type-service.js';

export interface PipelineParseJob {
  yaml: string;
  /** Shown in issues. */
  file: string;
  /** The account's step-type documents, as registered. */
  stepTypes: readonly EngineStepType[];
}

export interface PipelineParseResult {
  ok: boolean;
  issues: PipelineIssue[];
  /** A build's step rows, when `ok` (else empty). */
  steps: PlannedStep[];
  /** The pipeline's `stages:`, in order, when `ok` (else empty). */
  stages: string[];
  /** The account's credentials it names, when `ok` (else none): what its engine is given. */
  uses: CredentialUses;
}

export interface PipelineParsePoolOptions {
  log: Logger;
  /** Workers at most (default: half the CPUs, 1 to 2). */
  size?: number;
  /** Documents up to this many characters are parsed in place (default 16,384). */
  inlineChars?: number;
  /** An idle worker ends after this long (default 30 s). */
  idleMs?: number;
  /** Documents that may wait for a worker (default 32). */
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
  job: PipelineParseJob;
  resolve: (result: PipelineParseResult) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  current: Waiting | undefined;
  idle: NodeJS.Timeout | undefined;
}

type Reply = PipelineParseResult | { failure: string };

export class PipelineParsePool {
  readonly #options: Required<Omit<PipelineParsePoolOptions, 'log'>>;
  readonly #log: Logger;
  readonly #slots = new Set<Slot>();
  readonly #queue: Waiting[] = [];
  readonly #recent = new Map<string, { result: PipelineParseResult; chars: number }>();
  #recentChars = 0;

  private constructor(options: PipelineParsePoolOptions) {
    this.#log = options.log.child({ component: 'pipeline-parse-pool' });
    this.#options = {
      size: options.size ?? Math.min(2, Math.max(1, Math.floor(availableParallelism() / 2))),
      inlineChars: options.inlineChars ?? 16_384,
      idleMs: options.idleMs ?? 30_000,
      queueLimit: options.queueLimit ?? 32,
      resourceLimits: options.resourceLimits ?? { maxOldGenerationSizeMb: 512 },
    };
  }

  static create(options: PipelineParsePoolOptions): PipelineParsePool {
    return new PipelineParsePool(options);
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

  #remember(key: string, entry: { result: PipelineParseResult; chars: number }): void {
    this.#recent.set(key, entry);
    this.#recentChars += entry.chars;
    for (const [oldest, { chars }] of this.#recent) {
      if (this.#recentChars <= RECENT_CHARS_LIMIT) break;
      this.#recent.delete(oldest);
      this.#recentChars -= chars;
    }
  }

  #parseNow(job: PipelineParseJob): Promise<PipelineParseResult> {
    const inWorker = job.yaml.length > this.#options.inlineChars;
    this.#log.debug('pipeline parse started', { file: job.file, chars: job.yaml.length, inWorker });
    if (!inWorker) return Promise.resolve(parseJob(job));
    if (this.#queue.length >= this.#options.queueLimit)
      return Promise.reject(
        new UnavailableError(
          'SLUICE_PIPELINE_PARSER_BUSY',
          `${this.#queue.length} large pipelines are already waiting to be parsed`,
          { hint: 'Try again in a few seconds' },
        ),
      );
    return new Promise((resolve, reject) => {
      this.#queue.push({ job, resolve, reject });
      this.#dispatch();
    });
  }

  /** Ends every worker; documents still waiting fail as unavailable. */
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
      slot.worker.postMessage(waiting.job);
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
          `Parsing pipeline ${waiting.job.file} failed: ${reply.failure}`,
        ),
      );
    else waiting?.resolve(reply);
    this.#dispatch();
  }

  /** The worker is gone: its document fails with the reason, the next gets a new worker. */
  #lost(slot: Slot, reason: string, cause?: Error): void {
    if (!this.#slots.delete(slot)) return;
    clearTimeout(slot.idle);
    const waiting = slot.current;
    if (waiting !== undefined) {
      this.#log.error('pipeline parser worker died', { file: waiting.job.file, reason });
      waiting.reject(
        new InternalError(
          'SLUICE_PIPELINE_PARSER_FAILED',
          `The pipeline parser stopped while reading ${waiting.job.file}: ${reason}`,
          { cause, hint: 'A pipeline this large or this deeply aliased may need to be split' },
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

function parseJob(job: PipelineParseJob): PipelineParseResult {
  const parsed = parsePipeline(job.yaml, {
    file: job.file,
    stepTypes: stepTypeCatalog(job.stepTypes),
  });
  if (!parsed.ok)
    return { ok: false, issues: parsed.issues, steps: [], stages: [], uses: NO_CREDENTIAL_USES };
  const { pipeline } = parsed;
  return {
    ok: true,
    issues: parsed.issues,
    steps: plannedSteps(pipeline.steps),
    stages: pipeline.stages,
    uses: credentialUses(pipeline),
  };
}

/** The worker's side: one document per message, the answer in one message. */
function serveParses(): void {
  const port = parentPort;
  port?.on('message', (job: PipelineParseJob) => {
    let reply: Reply;
    try {
      reply = parseJob(job);
    } catch (err) {
      reply = { failure: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  });
}

if (!isMainThread && (workerData as { role?: unknown } | null)?.role === ROLE) serveParses();

/** Digests of step-type documents by object: the built-ins are the same objects on every build. */
const documentDigests = new WeakMap<EngineStepType, string>();

function documentDigest(document: EngineStepType): string {
  let digest = documentDigests.get(document);
  if (digest === undefined) {
    digest = createHash('sha256')
      .update(document.source)
      .update('\0')
      .update(document.text)
      .digest('base64');
    documentDigests.set(document, digest);
  }
  return digest;
}
