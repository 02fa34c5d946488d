/**
 * Registered step types kept parsed in memory. A document is parsed once (in a worker thread
 * when large: `ParsePool.parseStepType`) and found again by its name, version and digest, the
 * SHA-256 of its text stored beside it (migration 016). Whoever reads step types reads only
 * those three small columns (with the pipeline, when a build is created) and gets the parsed
 * documents from here: a 1 MB document is neither sent by the database nor parsed again for
 * each build, validation or listing. A change, through this server or another, is a new digest,
 * so what is served is always what is stored; only a digest not held yet (a document changed
 * through another server, or one dropped to stay within the memory bound) is read and parsed,
 * once however many requests ask for it at the same time.
 * @module
 */
import type { StepTypeDocument } from '@sluice/pipeline';
import type { EngineStepType } from '@sluice/protocol';
import type { StepTypeParse } from '../parsing/parse-jobs.js';

/** A registered step type as read with a pipeline or a list: its digest, not its document. */
export interface StepTypeKey {
  name: string;
  version: string;
  digest: string;
}

/** A stored step type with its document, for parsing. */
export interface StoredStepType extends StepTypeKey {
  document: string;
}

/** A registered step type, parsed. */
export interface ParsedStepType extends StepTypeKey {
  /** Null when the stored document no longer parses: it is left out of catalogs. */
  document: StepTypeDocument | null;
  /** What a build's engine gets: the same object every time. */
  engine: EngineStepType;
}

export type StepTypeParser = (text: string, source: string) => Promise<StepTypeParse>;

/** Reads the documents of `missing` (those still stored). */
export type StepTypeLoader = (missing: readonly StepTypeKey[]) => Promise<StoredStepType[]>;

/** Parsed documents kept, by the characters of their text: 32 step types of 1 MB. */
const CHARS_LIMIT = 32 * 1024 * 1024;

/** Where a registered step type is said to come from in a pipeline's issues. */
export function stepTypeSource(key: Pick<StepTypeKey, 'name' | 'version'>): string {
  return `control plane: ${key.name}:${key.version}`;
}

export class StepTypeCache {
  readonly #parse: StepTypeParser;
  /** By `keyOf`, the most recently used last. */
  readonly #entries = new Map<string, ParsedStepType>();
  readonly #parsing = new Map<string, Promise<ParsedStepType>>();
  /** Keys whose documents are being read; undefined: deleted meanwhile. */
  readonly #loading = new Map<string, Promise<ParsedStepType | undefined>>();
  #chars = 0;

  constructor(parse: StepTypeParser) {
    this.#parse = parse;
  }

  /**
   * The parsed step types of `keys`, in their order: from memory, else `load` reads the
   * documents of those missing and each is parsed. One deleted meanwhile is left out; one
   * replaced meanwhile comes as it is now.
   */
  async resolve(keys: readonly StepTypeKey[], load: StepTypeLoader): Promise<ParsedStepType[]> {
    const missing = keys.filter((key) => this.#held(key) === undefined);
    if (missing.length > 0) {
      const stored = load(missing);
      for (const key of missing) {
        const id = keyOf(key);
        const loading = stored
          .then((rows) => {
            const row = rows.find((r) => r.name === key.name && r.version === key.version);
            return row === undefined ? undefined : this.parse(row);
          })
          .finally(() => this.#loading.delete(id));
        this.#loading.set(id, loading);
      }
    }
    const entries = await Promise.all(
      keys.map((key) => this.#held(key) ?? Promise.resolve(undefined)),
    );
    return entries.filter((entry) => entry !== undefined);
  }

  /** `row` parsed and kept; a document already held or being parsed is not parsed again. */
  parse(row: StoredStepType): Promise<ParsedStepType> {
    const id = keyOf(row);
    const held = this.#entries.get(id);
    if (held !== undefined) return Promise.resolve(this.#touch(id, held));
    let parsing = this.#parsing.get(id);
    if (parsing === undefined) {
      parsing = this.#parseNow(row).finally(() => this.#parsing.delete(id));
      this.#parsing.set(id, parsing);
    }
    return parsing;
  }

  /** A document parsed by the caller (a new one, checked before it was stored): kept. */
  remember(entry: ParsedStepType): void {
    const id = keyOf(entry);
    const previous = this.#entries.get(id);
    if (previous !== undefined) {
      this.#entries.delete(id);
      this.#chars -= previous.engine.text.length;
    }
    this.#entries.set(id, entry);
    this.#chars += entry.engine.text.length;
    for (const [oldest, { engine }] of this.#entries) {
      if (this.#chars <= CHARS_LIMIT) break;
      this.#entries.delete(oldest);
      this.#chars -= engine.text.length;
    }
  }

  #held(key: StepTypeKey): Promise<ParsedStepType | undefined> | undefined {
    const id = keyOf(key);
    const entry = this.#entries.get(id);
    if (entry !== undefined) return Promise.resolve(this.#touch(id, entry));
    return this.#parsing.get(id) ?? this.#loading.get(id);
  }

  /** Most recently used last: the first entry is the one to drop. */
  #touch(id: string, entry: ParsedStepType): ParsedStepType {
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    return entry;
  }

  async #parseNow(row: StoredStepType): Promise<ParsedStepType> {
    const source = stepTypeSource(row);
    const parsed = await this.#parse(row.document, source);
    const entry = {
      name: row.name,
      version: row.version,
      digest: row.digest,
      // Stored documents were checked when they were put; one that no longer parses is left out.
      document: parsed.ok ? parsed.document : null,
      engine: Object.freeze({ source, text: row.document }),
    };
    this.remember(entry);
    return entry;
  }
}

function keyOf(key: StepTypeKey): string {
  return `${key.name}\0${key.version}\0${key.digest}`;
}
