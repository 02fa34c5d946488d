/**
 * Runtime environments: specs validated by @sluice/runtime-spec (422 naming each bad field),
 * every change a new version (history kept), `extends` parents merged on request, one default
 * per account.
 * @module
 */
import { ConflictError, InputError, NotFoundError } from '@sluice/errors';
import { json } from '../json-columns.js';
import {
  formatRuntimeSpecIssue,
  mergePatch,
  resolveRuntimeSpec,
  systemRuntimeSpec,
  systemRuntimeSpecs,
  validateRuntimeSpec,
} from '@sluice/runtime-spec';
import type { RuntimeSpec, WorkflowLimits } from '@sluice/runtime-spec';
import { sql } from '@sluice/db';
import type { Executor, RuntimeEnvironmentRow } from '@sluice/db';
import type { RuntimeEnvironment } from '@sluice/protocol';
import { isoTime } from '../server-context.js';
import type { ServerContext } from '../server-context.js';

export class RuntimeService {
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  async create(
    accountId: string,
    input: { name: string; description?: string; spec: unknown },
    createdBy?: string,
  ): Promise<RuntimeEnvironment> {
    const existing = await this.#latest(accountId, input.name);
    if (existing !== undefined)
      throw new ConflictError(
        'SLUICE_RUNTIME_EXISTS',
        `Runtime environment "${input.name}" already exists`,
        { hint: 'Change it with PATCH (sluice patch re -f)' },
      );
    const created = await this.#write(
      accountId,
      input.name,
      1,
      input.spec,
      input.description ?? null,
      createdBy,
    );
    // An account's first runtime is its default: a build never waits for a default nobody set.
    const { numUpdatedRows } = await this.#ctx.database.db
      .updateTable('accounts')
      .set({ default_runtime: input.name })
      .where('id', '=', accountId)
      .where('default_runtime', 'is', null)
      .executeTakeFirst();
    return numUpdatedRows > 0n ? this.get(accountId, input.name, {}) : created;
  }

  async patch(
    accountId: string,
    name: string,
    patch: unknown,
    description: string | undefined,
    createdBy?: string,
  ): Promise<RuntimeEnvironment> {
    const current = await this.#require(accountId, name);
    const next = mergePatch(current.spec, patch);
    return this.#write(
      accountId,
      name,
      current.version + 1,
      next,
      description ?? current.description,
      createdBy,
    );
  }

  async #write(
    accountId: string,
    name: string,
    version: number,
    spec: unknown,
    description: string | null,
    createdBy: string | undefined,
  ): Promise<RuntimeEnvironment> {
    const checked = validateRuntimeSpec(spec);
    if (!checked.ok) {
      const list = checked.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
      throw new InputError(
        'SLUICE_RUNTIME_SPEC_INVALID',
        `Runtime environment "${name}" is invalid: ${list.join('; ')}`,
        { details: { unprocessable: true, issues: checked.issues } },
      );
    }
    await this.#ctx.database.db
      .insertInto('runtime_environments')
      .values({
        account_id: accountId,
        name,
        version,
        spec: json(checked.spec),
        description,
        created_by: createdBy ?? null,
      })
      .execute();
    return this.get(accountId, name, {});
  }

  async get(
    accountId: string,
    name: string,
    options: { version?: number; extend?: boolean },
  ): Promise<RuntimeEnvironment> {
    const builtIn = systemRuntimeSpec(name);
    if (
      builtIn !== undefined &&
      (options.version ?? 1) === 1 &&
      !(await this.#has(accountId, name))
    )
      return {
        name,
        version: 1,
        description: 'Built into Sluice, read only: a parent for runtime environments to extend',
        spec: builtIn,
        isDefault: false,
        createdAt: '',
        createdBy: null,
      };
    const row =
      options.version === undefined
        ? await this.#require(accountId, name)
        : await this.#version(accountId, name, options.version);
    const spec = options.extend
      ? await this.resolve(accountId, name, { spec: row.spec as RuntimeSpec })
      : row.spec;
    return this.#toApi(row, spec, await this.#defaultName(accountId));
  }

  /**
   * The spec merged over its `extends` chain (built-in `system/...` parents included); `spec`
   * stands in for the stored one of `name`, `executor` is the caller's transaction.
   * @throws InputError `SLUICE_RUNTIME_EXTENDS_INVALID` naming a missing runtime or parent
   */
  async resolve(
    accountId: string,
    name: string,
    options: { spec?: RuntimeSpec; executor?: Executor } = {},
  ): Promise<RuntimeSpec> {
    const { spec, executor = this.#ctx.database.db } = options;
    const stored = await storedRuntimeSpecs(executor, accountId);
    return resolveStoredRuntime(
      spec === undefined ? stored : new Map([...stored, [name, spec]]),
      name,
    );
  }

  async history(accountId: string, name: string): Promise<RuntimeEnvironment[]> {
    const rows = await this.#ctx.database.db
      .selectFrom('runtime_environments')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .orderBy('version', 'desc')
      .execute();
    if (rows.length === 0) throw notFound(name);
    const fallback = await this.#defaultName(accountId);
    return rows.map((r) => this.#toApi(r, r.spec, fallback));
  }

  async list(accountId: string): Promise<RuntimeEnvironment[]> {
    const rows = await this.#ctx.database.db
      .selectFrom('runtime_environments as r')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('version', '=', (eb) =>
        eb
          .selectFrom('runtime_environments as v')
          .select((v) => v.fn.max('v.version').as('m'))
          .whereRef('v.account_id', '=', 'r.account_id')
          .whereRef('v.name', '=', 'r.name'),
      )
      .orderBy('name')
      .execute();
    const fallback = await this.#defaultName(accountId);
    return rows.map((r) => this.#toApi(r, r.spec, fallback));
  }

  /**
   * Every distinct `workflowLimits` a runtime sets, of any account and version, and the built-in
   * runtimes': the limits any build can run under are among these over the defaults.
   */
  async workflowLimitsInUse(): Promise<WorkflowLimits[]> {
    const { rows } = await sql<{ limits: WorkflowLimits }>`select distinct
        spec -> 'runtimeScheduler' -> 'workflowLimits' as limits
      from runtime_environments
      where jsonb_typeof(spec -> 'runtimeScheduler' -> 'workflowLimits') = 'object'`.execute(
      this.#ctx.database.db,
    );
    const builtIn = systemRuntimeSpecs().map((spec) => spec.runtimeScheduler?.workflowLimits);
    return [...rows.map((row) => row.limits), ...builtIn.filter((l) => l !== undefined)];
  }

  async setDefault(accountId: string, name: string): Promise<RuntimeEnvironment> {
    await this.#require(accountId, name);
    await this.#ctx.database.db
      .updateTable('accounts')
      .set({ default_runtime: name })
      .where('id', '=', accountId)
      .execute();
    return this.get(accountId, name, {});
  }

  async delete(accountId: string, name: string): Promise<void> {
    await this.#require(accountId, name);
    await this.#ctx.database.db
      .deleteFrom('runtime_environments')
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .execute();
    await this.#ctx.database.db
      .updateTable('accounts')
      .set({ default_runtime: null })
      .where('id', '=', accountId)
      .where('default_runtime', '=', name)
      .execute();
  }

  async #latest(accountId: string, name: string): Promise<RuntimeEnvironmentRow | undefined> {
    return this.#ctx.database.db
      .selectFrom('runtime_environments')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Throws SLUICE_RUNTIME_NOT_FOUND unless the account has the runtime environment. */
  async assertExists(accountId: string, name: string): Promise<void> {
    await this.#require(accountId, name);
  }

  async #has(accountId: string, name: string): Promise<boolean> {
    return (await this.#latest(accountId, name)) !== undefined;
  }

  async #require(accountId: string, name: string): Promise<RuntimeEnvironmentRow> {
    const row = await this.#latest(accountId, name);
    if (row === undefined) throw notFound(name);
    return row;
  }

  async #version(accountId: string, name: string, version: number): Promise<RuntimeEnvironmentRow> {
    const row = await this.#ctx.database.db
      .selectFrom('runtime_environments')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .where('version', '=', version)
      .executeTakeFirst();
    if (row === undefined)
      throw new NotFoundError(
        'SLUICE_RUNTIME_NOT_FOUND',
        `Runtime environment "${name}" has no version ${version}`,
      );
    return row;
  }

  async #defaultName(accountId: string): Promise<string | null> {
    const account = await this.#ctx.database.db
      .selectFrom('accounts')
      .select('default_runtime')
      .where('id', '=', accountId)
      .executeTakeFirst();
    return account?.default_runtime ?? null;
  }

  #toApi(
    row: RuntimeEnvironmentRow,
    spec: unknown,
    defaultName: string | null,
  ): RuntimeEnvironment {
    return {
      name: row.name,
      version: row.version,
      description: row.description,
      spec: spec as Record<string, unknown>,
      isDefault: row.name === defaultName,
      createdAt: isoTime(row.created_at) ?? '',
      createdBy: row.created_by,
    };
  }
}

function notFound(name: string): NotFoundError {
  if (systemRuntimeSpec(name) !== undefined)
    return new NotFoundError(
      'SLUICE_RUNTIME_NOT_FOUND',
      `Runtime environment "${name}" is built into Sluice: it can be read and extended, not changed`,
      { hint: `Make a runtime environment of your own with extends: [${name}]` },
    );
  return new NotFoundError(
    'SLUICE_RUNTIME_NOT_FOUND',
    `Runtime environment "${name}" does not exist`,
    { hint: 'List them with GET /api/v1/runtime-environments' },
  );
}

/** An account's runtime environments by name, each at its latest version. */
export type StoredRuntimeSpecs = ReadonlyMap<string, RuntimeSpec>;

async function storedRuntimeSpecs(
  executor: Executor,
  accountId: string,
): Promise<StoredRuntimeSpecs> {
  const rows = await executor
    .selectFrom('runtime_environments')
    .select(['name', 'spec'])
    .distinctOn('name')
    .where('account_id', '=', accountId)
    .orderBy('name')
    .orderBy('version', 'desc')
    .execute();
  return new Map(rows.map((row) => [row.name, row.spec as RuntimeSpec]));
}

/**
 * `name` merged over its `extends` chain among `stored` (what a scheduling pass read with its
 * inputs) and the built-in `system/...` parents.
 * @throws InputError `SLUICE_RUNTIME_EXTENDS_INVALID` naming a missing runtime or parent
 */
export function resolveStoredRuntime(stored: StoredRuntimeSpecs, name: string): RuntimeSpec {
  const resolved = resolveRuntimeSpec(name, (n) => stored.get(n) ?? systemRuntimeSpec(n));
  if (!resolved.ok)
    throw new InputError(
      'SLUICE_RUNTIME_EXTENDS_INVALID',
      resolved.issues.map(formatRuntimeSpecIssue).join('; '),
    );
  return resolved.spec;
}
