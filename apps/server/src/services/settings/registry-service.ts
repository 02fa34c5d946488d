/**
 * The account's Docker registries. A password is encrypted at rest with the server key (the
 * account and registry name as associated data, so a row copied elsewhere does not decrypt),
 * never returned by the API and never logged; only the engine of a build whose pipeline uses
 * the registry gets it, decrypted, and masks it. An account has at most one default registry: its first one, unless told
 * otherwise, and whichever is later put with `default: true`.
 * @module
 */
import { NotFoundError } from '@sluice/errors';
import { decryptSecret, encryptSecret } from '@sluice/pki';
import type { Executor, RegistryRow } from '@sluice/db';
import type { EngineRegistry, PutRegistry, Registry } from '@sluice/protocol';
import type { z } from 'zod';
import { isoTime } from '../server-context.js';
import type { ServerContext } from '../server-context.js';

type PutRegistryInput = z.output<typeof PutRegistry>;

export class RegistryService {
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  async list(accountId: string): Promise<Registry[]> {
    const rows = await this.#rows(this.#ctx.database.db, accountId);
    return rows.map(toRegistry);
  }

  /** Creates or replaces `name`; `default` absent keeps a replaced registry's own. */
  async put(accountId: string, name: string, input: PutRegistryInput): Promise<Registry> {
    const now = new Date(this.#ctx.clock());
    const row = await this.#ctx.database.db.transaction().execute(async (trx) => {
      const rows = await this.#rows(trx, accountId, { lock: true });
      const current = rows.find((r) => r.name === name);
      const hasOtherDefault = rows.some((r) => r.is_default && r.name !== name);
      const isDefault = input.default ?? current?.is_default ?? !hasOtherDefault;
      if (isDefault && hasOtherDefault) {
        await trx
          .updateTable('registries')
          .set({ is_default: false, updated_at: now })
          .where('account_id', '=', accountId)
          .where('is_default', '=', true)
          .execute();
      }
      const values = {
        domain: input.domain,
        username: input.username ?? null,
        password_encrypted:
          input.password === undefined
            ? null
            : encryptSecret(input.password, this.#ctx.secretKey, {
                associatedData: associatedData(accountId, name),
              }),
        is_default: isDefault,
        updated_at: now,
      };
      return trx
        .insertInto('registries')
        .values({ account_id: accountId, name, created_at: now, ...values })
        .onConflict((oc) => oc.columns(['account_id', 'name']).doUpdateSet(values))
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    return toRegistry(row);
  }

  async delete(accountId: string, name: string): Promise<void> {
    const result = await this.#ctx.database.db
      .deleteFrom('registries')
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n)
      throw new NotFoundError('SLUICE_REGISTRY_NOT_FOUND', `Registry "${name}" does not exist`, {
        hint: 'List them with sluice get registries',
      });
  }

  /**
   * For a build's engine only: the passwords decrypted, of the registries `pick` chooses (the
   * ones its pipeline names: engine-grants.ts), or of all.
   */
  async forEngine(
    accountId: string,
    options: {
      pick?: (registry: { name: string; domain: string; isDefault: boolean }) => boolean;
    } = {},
  ): Promise<EngineRegistry[]> {
    const rows = (await this.#rows(this.#ctx.database.db, accountId)).filter(
      (row) =>
        options.pick?.({ name: row.name, domain: row.domain, isDefault: row.is_default }) ?? true,
    );
    return rows.map((row) => ({
      name: row.name,
      domain: row.domain,
      ...(row.username === null ? {} : { username: row.username }),
      ...(row.password_encrypted === null
        ? {}
        : {
            password: decryptSecret(row.password_encrypted, this.#ctx.secretKey, {
              associatedData: associatedData(accountId, row.name),
            }),
          }),
      default: row.is_default,
    }));
  }

  #rows(executor: Executor, accountId: string, options: { lock?: boolean } = {}) {
    const query = executor
      .selectFrom('registries')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('name');
    return options.lock ? query.forUpdate().execute() : query.execute();
  }
}

function associatedData(accountId: string, name: string): string {
  return `registry:${accountId}:${name}`;
}

function toRegistry(row: RegistryRow): Registry {
  return {
    name: row.name,
    domain: row.domain,
    username: row.username,
    hasPassword: row.password_encrypted !== null,
    default: row.is_default,
    createdAt: isoTime(row.created_at) ?? '',
    updatedAt: isoTime(row.updated_at) ?? '',
  };
}
