/**
 * Step types registered in the account: the documents typed steps (`type: account/name`) expand
 * from. A document is validated when registered (400 with every problem at line:column), off the
 * request path when large (`ParsePool`), and kept parsed (`StepTypeCache`): builds, validations
 * and listings read each row's name, version and digest and take the parsed document from
 * memory. The account's catalog is what the server parses pipelines with, and what a build's
 * engine gets, together with the built-in step types (built-in-step-types.ts) whose names the
 * account has not registered: an account's own `helm` wins over Sluice's. A change is announced
 * to every server (`sluice_step_types`), which parses it then rather than on its next build.
 * @module
 */
import { createHash } from 'node:crypto';
import { NotFoundError } from '@sluice/errors';
import { rememberParsedStepType } from '@sluice/pipeline';
import type { StepTypeDocument } from '@sluice/pipeline';
import { sql } from '@sluice/db';
import type { Executor, StepTypeRow } from '@sluice/db';
import type { EngineStepType, StepType } from '@sluice/protocol';
import { CONTROL_PLANE_LOCATION } from '../parsing/parse-jobs.js';
import { invalidDocument } from '../parsing/document-issues.js';
import { isoTime } from '../server-context.js';
import type { ServerContext } from '../server-context.js';
import { CHANNELS } from '../pg-notify.js';
import { userName } from '../identity/user-name.js';
import type { BuiltInStepType } from './built-in-step-types.js';
import { StepTypeCache, stepTypeSource } from './step-type-cache.js';
import type { ParsedStepType, StepTypeKey, StepTypeParser } from './step-type-cache.js';
import { stepTypesNamedIn } from './step-types-named.js';
import type { NamedStepType } from './step-types-named.js';

/**
 * The account's registered step types' keys (name, version, digest), in name and version
 * order, as a column of a statement on `pipelines` (the pipeline's account's): what
 * `documentsOf` takes. No document is read.
 */
export const ACCOUNT_STEP_TYPES = sql<StepTypeKey[]>`(select coalesce(json_agg(json_build_object(
    'name', st.name, 'version', st.version, 'digest', st.digest) order by st.name, st.version),
    '[]'::json) from step_types st where st.account_id = pipelines.account_id)`;

/** A step type with what a catalog and an engine need of it. */
type Usable = NamedStepType & { parsed: StepTypeDocument };

export class StepTypeService {
  readonly #ctx: ServerContext;
  readonly #cache: StepTypeCache;
  readonly #parse: StepTypeParser;
  /** Each built-in with the one frozen document every build gets (see `forBuild`). */
  readonly #builtIn: readonly (Usable & { listed: StepType })[];

  constructor(ctx: ServerContext, options: { parse: StepTypeParser; builtIn?: BuiltInStepType[] }) {
    this.#ctx = ctx;
    this.#parse = options.parse;
    this.#cache = new StepTypeCache(options.parse);
    this.#builtIn = (options.builtIn ?? []).map((stepType) => ({
      name: stepType.name,
      document: Object.freeze({ source: stepType.source, text: stepType.text }),
      parsed: stepType.document,
      listed: builtInStepType(stepType),
    }));
    // A change through any server: parsed now, so the next build here finds it ready.
    ctx.signals.listen(CHANNELS.stepTypes, (accountId) => void this.#warm(accountId));
  }

  /**
   * The account's step types as its pipelines see them: its own, every version, and the built-in
   * ones whose names it has not registered, in name order.
   */
  async list(accountId: string): Promise<StepType[]> {
    const db = this.#ctx.database.db;
    const rows = await db
      .selectFrom('step_types')
      .select(['name', 'version', 'digest', 'created_at', 'created_by'])
      .where('account_id', '=', accountId)
      .orderBy('name')
      .orderBy('version')
      .execute();
    const parsed = await this.#parsed(db, accountId, rows);
    const own = new Set(rows.map((row) => row.name));
    const builtIn = this.#builtIn.filter(({ name }) => !own.has(name));
    const listed = rows.map((row) => toStepType(row, parsed));
    return [...listed, ...builtIn.map(({ listed }) => listed)].sort((a, b) =>
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
    const parsed = await this.#parse(yaml, CONTROL_PLANE_LOCATION);
    if (!parsed.ok)
      throw invalidDocument({
        code: 'SLUICE_STEP_TYPE_INVALID',
        what: 'The step-type document',
        issues: parsed.issues,
      });
    const { name, version } = parsed.document;
    const digest = createHash('sha256').update(yaml).digest('hex');
    const values = {
      document: yaml,
      digest,
      created_by: await userName(this.#ctx.database.db, userId),
      created_at: new Date(this.#ctx.clock()),
    };
    const row = await this.#ctx.database.db.transaction().execute(async (trx) => {
      const stored = await trx
        .insertInto('step_types')
        .values({ account_id: accountId, name, version, ...values })
        .onConflict((oc) => oc.columns(['account_id', 'name', 'version']).doUpdateSet(values))
        .returning(['name', 'version', 'digest', 'created_at', 'created_by'])
        .executeTakeFirstOrThrow();
      await this.#ctx.signals.publish(trx, CHANNELS.stepTypes, accountId);
      return stored;
    });
    // Issues inside it name it by what it is registered as, like those of a stored one.
    const source = stepTypeSource(row);
    const document = rememberParsedStepType({ ...parsed.document, source });
    const entry = { ...row, document, engine: Object.freeze({ source, text: yaml }) };
    this.#cache.remember(entry);
    return toStepType(row, [entry]);
  }

  async delete(accountId: string, name: string, version: string): Promise<void> {
    const deleted = await this.#ctx.database.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom('step_types')
        .where('account_id', '=', accountId)
        .where('name', '=', name)
        .where('version', '=', version)
        .executeTakeFirst();
      if (result.numDeletedRows > 0n)
        await this.#ctx.signals.publish(trx, CHANNELS.stepTypes, accountId);
      return result.numDeletedRows;
    });
    if (deleted === 0n)
      throw new NotFoundError(
        'SLUICE_STEP_TYPE_NOT_FOUND',
        `Step type ${name}:${version} is not registered`,
        { hint: 'List them with sluice get step-types' },
      );
  }

  /** What the account's pipelines are parsed with: its own, then the built-in ones it lacks. */
  async documents(accountId: string, executor?: Executor): Promise<StepTypeDocument[]> {
    const db = executor ?? this.#ctx.database.db;
    const usable = await this.#usable(db, accountId, await this.#keys(db, accountId));
    return usable.map(({ parsed }) => parsed);
  }

  /**
   * `documents` from the account's keys read by the caller's own statement
   * (`ACCOUNT_STEP_TYPES`), so creating a build reads them with its pipeline instead of in a
   * round trip of its own; `executor` reads a document not held yet.
   */
  async documentsOf(
    accountId: string,
    keys: readonly StepTypeKey[],
    executor: Executor,
  ): Promise<StepTypeDocument[]> {
    return (await this.#usable(executor, accountId, keys)).map(({ parsed }) => parsed);
  }

  /**
   * What a build's engine gets for `yaml`: the step types the pipeline may name
   * (`stepTypesNamedIn`), so a build that uses none carries none of the built-in ones' 60 KB.
   */
  async forBuild(accountId: string, yaml: string): Promise<EngineStepType[]> {
    const db = this.#ctx.database.db;
    return stepTypesNamedIn(
      yaml,
      await this.#usable(db, accountId, await this.#keys(db, accountId)),
    );
  }

  async #usable(
    executor: Executor,
    accountId: string,
    keys: readonly StepTypeKey[],
  ): Promise<Usable[]> {
    const own = new Set(keys.map((key) => key.name));
    const parsed = await this.#parsed(executor, accountId, keys);
    return [
      ...parsed.flatMap(({ name, document, engine }) =>
        document === null ? [] : [{ name, document: engine, parsed: document }],
      ),
      ...this.#builtIn.filter(({ name }) => !own.has(name)),
    ];
  }

  #parsed(executor: Executor, accountId: string, keys: readonly StepTypeKey[]) {
    return this.#cache.resolve(keys, (missing) =>
      executor
        .selectFrom('step_types')
        .select(['name', 'version', 'digest', 'document'])
        .where('account_id', '=', accountId)
        .where((eb) =>
          eb.or(missing.map((key) => eb.and({ name: key.name, version: key.version }))),
        )
        .execute(),
    );
  }

  #keys(executor: Executor, accountId: string): Promise<StepTypeKey[]> {
    return executor
      .selectFrom('step_types')
      .select(['name', 'version', 'digest'])
      .where('account_id', '=', accountId)
      .orderBy('name')
      .orderBy('version')
      .execute();
  }

  async #warm(accountId: string): Promise<void> {
    try {
      const db = this.#ctx.database.db;
      await this.#parsed(db, accountId, await this.#keys(db, accountId));
    } catch (err) {
      // The next build parses what this could not.
      this.#ctx.log.warn('step types not parsed ahead', { accountId, error: String(err) });
    }
  }
}

type ListedRow = Pick<StepTypeRow, 'name' | 'version' | 'digest' | 'created_at' | 'created_by'>;

function toStepType(row: ListedRow, parsed: readonly ParsedStepType[]): StepType {
  const entry = parsed.find((p) => p.name === row.name && p.version === row.version);
  return {
    name: row.name,
    version: row.version,
    origin: 'account',
    description: entry?.document?.description ?? null,
    yaml: entry?.engine.text ?? '',
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
