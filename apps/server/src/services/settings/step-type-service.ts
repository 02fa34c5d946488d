/**
 * Step types registered in the account: the documents typed steps (`type: account/name`) expand
 * from. A document is validated when registered (400 with every problem at line:column); the
 * account's catalog is what the server parses pipelines with, and what a build's engine gets,
 * together with the built-in step types (built-in-step-types.ts) whose names the account has not
 * registered: an account's own `helm` wins over Sluice's.
 * @module
 */
import { NotFoundError } from '@sluice/errors';
import { catalogFromDefinitions, parseStepTypeDocument } from '@sluice/pipeline';
import type { StepTypeCatalog, StepTypeDefinition } from '@sluice/pipeline';
import { sql } from '@sluice/db';
import type { Executor, StepTypeRow } from '@sluice/db';
import type { EngineStepType, StepType } from '@sluice/protocol';
import { invalidDocument } from '../projects/document-issues.js';
import { isoTime } from '../server-context.js';
import { userName } from '../identity/user-name.js';
import type { ServerContext } from '../server-context.js';
import type { BuiltInStepType } from './built-in-step-types.js';

/** A document with the name it is registered or shipped under. */
export interface NamedStepType {
  name: string;
  document: EngineStepType;
}

/** What a build needs of a registered step type's row. */
export type StoredStepType = Pick<StepTypeRow, 'name' | 'version' | 'document'>;

/**
 * The account's registered step types, in name and version order, as a column of a statement on
 * `pipelines` (the pipeline's account's): what `documentsOf` takes.
 */
export const ACCOUNT_STEP_TYPES = sql<StoredStepType[]>`(select coalesce(json_agg(json_build_object(
    'name', st.name, 'version', st.version, 'document', st.document) order by st.name, st.version),
    '[]'::json) from step_types st where st.account_id = pipelines.account_id)`;

/** What errors inside a registered document name as its place. */
const CONTROL_PLANE_LOCATION = 'control plane';

export class StepTypeService {
  readonly #ctx: ServerContext;
  /** Each built-in with the one frozen document every build gets (see `forEngine`). */
  readonly #builtIn: readonly (NamedStepType & { listed: StepType })[];

  constructor(ctx: ServerContext, builtIn: readonly BuiltInStepType[] = []) {
    this.#ctx = ctx;
    this.#builtIn = builtIn.map((stepType) => ({
      name: stepType.name,
      document: rememberDefinition(stepType),
      listed: builtInStepType(stepType),
    }));
  }

  /**
   * The account's step types as its pipelines see them: its own, every version, and the built-in
   * ones whose names it has not registered, in name order.
   */
  async list(accountId: string): Promise<StepType[]> {
    const rows = await this.#rows(this.#ctx.database.db, accountId);
    const own = new Set(rows.map((row) => row.name));
    const builtIn = this.#builtIn.filter(({ name }) => !own.has(name));
    return [...rows.map(toStepType), ...builtIn.map(({ listed }) => listed)].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  }

  /** Every version of `name` in `list`; 404 when the account has none, nor a built-in one. */
  async get(accountId: string, name: string): Promise<StepType[]> {
    const items = (await this.list(accountId)).filter((stepType) => stepType.name === name);
    if (items.length === 0)
      throw new NotFoundError('SLUICE_STEP_TYPE_NOT_FOUND', `Step type ${name} does not exist`, {
        hint: 'List them with sluice get step-types',
      });
    return items;
  }

  /**
   * Registers a document: a new name or version, or replaces the same name and version.
   * `userId` is recorded by name as `createdBy`.
   */
  async put(accountId: string, yaml: string, userId: string | undefined): Promise<StepType> {
    const definition = validDefinition(yaml);
    const values = {
      document: yaml,
      created_by: await userName(this.#ctx.database.db, userId),
      created_at: new Date(this.#ctx.clock()),
    };
    const row = await this.#ctx.database.db
      .insertInto('step_types')
      .values({
        account_id: accountId,
        name: definition.name,
        version: definition.version,
        ...values,
      })
      .onConflict((oc) => oc.columns(['account_id', 'name', 'version']).doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toStepType(row);
  }

  async delete(accountId: string, name: string, version: string): Promise<void> {
    const result = await this.#ctx.database.db
      .deleteFrom('step_types')
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .where('version', '=', version)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n)
      throw new NotFoundError(
        'SLUICE_STEP_TYPE_NOT_FOUND',
        `Step type ${name}:${version} is not registered`,
        { hint: 'List them with sluice get step-types' },
      );
  }

  /** The documents as a build's engine gets them: the account's, then the built-in ones it lacks. */
  async forEngine(accountId: string, executor?: Executor): Promise<EngineStepType[]> {
    return this.documentsOf(await this.#rows(executor ?? this.#ctx.database.db, accountId));
  }

  /**
   * `forEngine` from the account's rows read by the caller's own statement (`ACCOUNT_STEP_TYPES`),
   * so creating a build reads them with its pipeline instead of in a round trip of its own.
   */
  documentsOf(rows: readonly StoredStepType[]): EngineStepType[] {
    return this.#namedOf(rows).map(({ document }) => document);
  }

  /**
   * What a build's engine gets for `yaml`: of `forEngine`, only the step types the pipeline may
   * name (`stepTypesNamedIn`), so a build that uses none carries none of the built-in ones' 60 KB.
   */
  async forBuild(accountId: string, yaml: string): Promise<EngineStepType[]> {
    return stepTypesNamedIn(yaml, await this.#named(this.#ctx.database.db, accountId));
  }

  async #named(executor: Executor, accountId: string): Promise<NamedStepType[]> {
    return this.#namedOf(await this.#rows(executor, accountId));
  }

  #namedOf(rows: readonly StoredStepType[]): NamedStepType[] {
    const own = new Set(rows.map((row) => row.name));
    return [
      ...rows.map((row) => ({
        name: row.name,
        document: { source: sourceOf(row), text: row.document },
      })),
      // The same objects every time, so the parse pool hashes their 60 KB once (`documentDigest`).
      ...this.#builtIn.filter(({ name }) => !own.has(name)),
    ];
  }

  /** What the account's pipelines are parsed with. */
  async catalog(accountId: string, executor?: Executor): Promise<StepTypeCatalog> {
    return stepTypeCatalog(await this.forEngine(accountId, executor));
  }

  #rows(executor: Executor, accountId: string) {
    return executor
      .selectFrom('step_types')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('name')
      .orderBy('version')
      .execute();
  }
}

/**
 * A `type:` value in YAML text (block or flow style, the key or the value quoted), as a step
 * type's name: what a pipeline names its typed steps by, without the version.
 */
const TYPE_VALUE =
  /(?:^|[\s{,])["']?type["']?[ \t]*:[ \t]*["']?([a-z0-9][a-z0-9._-]*(?:\/[a-z0-9][a-z0-9._-]*)?)/gm;

/**
 * The documents among `documents` whose names `yaml` may use as a step's `type`, and those their
 * own templates name, in their order. Read from the text, so it may take a few too many (a
 * `type:` that is not a step's) but never too few: anchors, flow maps and quoting are all text
 * the pattern sees, and the control plane parsed the pipeline with every step type already.
 */
export function stepTypesNamedIn(
  yaml: string,
  stepTypes: readonly NamedStepType[],
): EngineStepType[] {
  const byName = new Map<string, EngineStepType[]>();
  for (const { name, document } of stepTypes)
    byName.set(name, [...(byName.get(name) ?? []), document]);
  const wanted = new Set<EngineStepType>();
  const pending = [yaml];
  for (let text = pending.pop(); text !== undefined; text = pending.pop())
    for (const [, name = ''] of text.matchAll(TYPE_VALUE))
      for (const document of byName.get(name) ?? [])
        if (!wanted.has(document)) {
          wanted.add(document);
          pending.push(document.text);
        }
  return stepTypes.flatMap(({ document }) => (wanted.has(document) ? [document] : []));
}

/** The catalog of registered documents (the engine builds the same from `EngineBuild.stepTypes`). */
export function stepTypeCatalog(documents: readonly EngineStepType[]): StepTypeCatalog {
  // Stored documents were checked when they were put; one that no longer parses is left out.
  const definitions = documents.flatMap((document) => definitionOf(document) ?? []);
  return catalogFromDefinitions(definitions, CONTROL_PLANE_LOCATION);
}

/**
 * What a catalog needs of each document read before (its name and version; a typed step's
 * expansion reads the text again), by source and text, the most recently used last: every
 * parse of a pipeline gets all of the account's documents and the built-ins, some 60 KB that
 * took ~40 ms of YAML parsing on each build. Bounded by the documents' total size.
 */
const knownDocuments = new Map<string, { definition: StepTypeDefinition | null; chars: number }>();
let knownChars = 0;
const KNOWN_CHARS_LIMIT = 16 * 1024 * 1024;

function definitionOf({ source, text }: EngineStepType): StepTypeDefinition | undefined {
  const key = `${source}\0${text}`;
  const known = knownDocuments.get(key);
  if (known !== undefined) {
    knownDocuments.delete(key);
    knownDocuments.set(key, known);
    return known.definition ?? undefined;
  }
  const parsed = parseStepTypeDocument(text, source);
  const definition = parsed.ok
    ? Object.freeze({
        name: parsed.definition.name,
        version: parsed.definition.version,
        source,
        text,
      })
    : null;
  remember(key, definition);
  return definition ?? undefined;
}

/** A built-in, parsed as it was loaded: its frozen document, its definition remembered. */
function rememberDefinition({ name, version, source, text }: BuiltInStepType): EngineStepType {
  remember(`${source}\0${text}`, Object.freeze({ name, version, source, text }));
  return Object.freeze({ source, text });
}

function remember(key: string, definition: StepTypeDefinition | null): void {
  const previous = knownDocuments.get(key);
  if (previous !== undefined) {
    // Each server of a process remembers its built-ins again: the entry moves to the end.
    knownDocuments.delete(key);
    knownChars -= previous.chars;
  }
  knownDocuments.set(key, { definition, chars: key.length });
  knownChars += key.length;
  for (const [oldest, { chars }] of knownDocuments) {
    if (knownChars <= KNOWN_CHARS_LIMIT) break;
    knownDocuments.delete(oldest);
    knownChars -= chars;
  }
}

function validDefinition(yaml: string): StepTypeDefinition {
  const parsed = parseStepTypeDocument(yaml, CONTROL_PLANE_LOCATION);
  if (parsed.ok) return parsed.definition;
  throw invalidDocument({
    code: 'SLUICE_STEP_TYPE_INVALID',
    what: 'The step-type document',
    issues: parsed.issues,
  });
}

function sourceOf(row: StoredStepType): string {
  return `${CONTROL_PLANE_LOCATION}: ${row.name}:${row.version}`;
}

function toStepType(row: StepTypeRow): StepType {
  const parsed = parseStepTypeDocument(row.document, sourceOf(row));
  return {
    name: row.name,
    version: row.version,
    origin: 'account',
    description: (parsed.ok ? parsed.definition.description : undefined) ?? null,
    yaml: row.document,
    createdAt: isoTime(row.created_at) ?? '',
    createdBy: row.created_by,
  };
}

function builtInStepType(stepType: BuiltInStepType): StepType {
  return Object.freeze({
    name: stepType.name,
    version: stepType.version,
    origin: 'built-in',
    description: stepType.description ?? null,
    yaml: stepType.text,
    createdAt: null,
    createdBy: null,
  });
}
