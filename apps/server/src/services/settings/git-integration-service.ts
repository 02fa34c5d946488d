/**
 * The account's git integrations. The token or SSH key is encrypted at rest with the server key
 * as registry passwords are (the account and name as associated data, so a row copied elsewhere
 * does not decrypt), never returned by the API and never logged; only the engine of a build whose
 * pipeline uses the integration gets it, decrypted, and masks it. An account has at most one default integration: its first one,
 * unless told otherwise, and whichever is later saved with `default: true`.
 * @module
 */
import { ConflictError, NotFoundError } from '@sluice/errors';
import { decryptSecret, encryptSecret } from '@sluice/pki';
import type { Executor, GitIntegrationRow } from '@sluice/db';
import type {
  CreateGitIntegration,
  EngineGitIntegration,
  GitIntegration,
  GitIntegrationKind,
  UpdateGitIntegration,
} from '@sluice/protocol';
import { fileLink, PROVIDER_URLS } from './git-host-links.js';
import { isoTime } from '../server-context.js';
import type { ServerContext } from '../server-context.js';

export class GitIntegrationService {
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  async list(accountId: string): Promise<GitIntegration[]> {
    const rows = await this.#rows(this.#ctx.database.db, accountId);
    return rows.map(toGitIntegration);
  }

  async get(accountId: string, name: string): Promise<GitIntegration> {
    const rows = await this.#rows(this.#ctx.database.db, accountId);
    return toGitIntegration(found(rows, name));
  }

  async create(accountId: string, input: CreateGitIntegration): Promise<GitIntegration> {
    const now = new Date(this.#ctx.clock());
    const row = await this.#ctx.database.db.transaction().execute(async (trx) => {
      const rows = await this.#rows(trx, accountId, { lock: true });
      if (rows.some((r) => r.name === input.name))
        throw new ConflictError(
          'SLUICE_GIT_INTEGRATION_EXISTS',
          `Git integration "${input.name}" already exists`,
          {
            hint: `Change it with PATCH, or delete it first: sluice delete git-integration ${input.name}`,
          },
        );
      const hasDefault = rows.some((r) => r.is_default);
      const isDefault = input.default ?? !hasDefault;
      if (isDefault && hasDefault) await clearDefault(trx, accountId, now);
      return trx
        .insertInto('git_integrations')
        .values({
          account_id: accountId,
          name: input.name,
          kind: input.kind,
          url: input.url ?? PROVIDER_URLS[input.kind] ?? '',
          username: input.username ?? null,
          ...this.#secret(accountId, input.name, input),
          is_default: isDefault,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    return toGitIntegration(row);
  }

  async update(
    accountId: string,
    name: string,
    input: UpdateGitIntegration,
  ): Promise<GitIntegration> {
    const now = new Date(this.#ctx.clock());
    const row = await this.#ctx.database.db.transaction().execute(async (trx) => {
      const current = found(await this.#rows(trx, accountId, { lock: true }), name);
      if (input.default === true && !current.is_default) await clearDefault(trx, accountId, now);
      const secret =
        input.token === undefined && input.sshKey === undefined
          ? {}
          : this.#secret(accountId, name, input);
      return trx
        .updateTable('git_integrations')
        .set({
          ...(input.url === undefined ? {} : { url: input.url }),
          ...(input.username === undefined ? {} : { username: input.username }),
          ...secret,
          ...(input.default === undefined ? {} : { is_default: input.default }),
          updated_at: now,
        })
        .where('account_id', '=', accountId)
        .where('name', '=', name)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    return toGitIntegration(row);
  }

  async delete(accountId: string, name: string): Promise<void> {
    const result = await this.#ctx.database.db
      .deleteFrom('git_integrations')
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) throw notFound(name);
  }

  /**
   * For a build's engine only: the tokens and keys decrypted, of the integrations `pick` chooses
   * (the ones its pipeline names: engine-grants.ts), or of all.
   */
  async forEngine(
    accountId: string,
    options: { pick?: (integration: { name: string; isDefault: boolean }) => boolean } = {},
  ): Promise<EngineGitIntegration[]> {
    const rows = (await this.#rows(this.#ctx.database.db, accountId)).filter(
      (row) => options.pick?.({ name: row.name, isDefault: row.is_default }) ?? true,
    );
    return rows.map((row) => {
      const secret = decryptSecret(row.secret_encrypted, this.#ctx.secretKey, {
        associatedData: associatedData(accountId, row.name),
      });
      return {
        name: row.name,
        kind: row.kind as GitIntegrationKind,
        url: row.url,
        ...(row.username === null ? {} : { username: row.username }),
        ...(row.auth === 'ssh-key' ? { sshKey: secret } : { token: secret }),
        default: row.is_default,
      };
    });
  }

  /**
   * The web page of a definition's file at its commit, through the integration named (else the
   * account's default); null when there is none, or its host's pages are not known.
   */
  async fileLink(
    accountId: string,
    integration: string | null,
    file: { repo: string; path: string; sha: string },
  ): Promise<string | null> {
    const rows = await this.#rows(this.#ctx.database.db, accountId);
    const row = rows.find((r) => (integration === null ? r.is_default : r.name === integration));
    if (row === undefined) return null;
    const host = { kind: row.kind as GitIntegrationKind, url: row.url };
    return fileLink(host, file.repo, file.sha, file.path);
  }

  #secret(
    accountId: string,
    name: string,
    input: { token?: string | undefined; sshKey?: string | undefined },
  ): { auth: 'token' | 'ssh-key'; secret_encrypted: string } {
    const auth = input.sshKey === undefined ? 'token' : 'ssh-key';
    const plain = input.sshKey ?? input.token ?? '';
    return {
      auth,
      secret_encrypted: encryptSecret(plain, this.#ctx.secretKey, {
        associatedData: associatedData(accountId, name),
      }),
    };
  }

  #rows(executor: Executor, accountId: string, options: { lock?: boolean } = {}) {
    const query = executor
      .selectFrom('git_integrations')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('name');
    return options.lock ? query.forUpdate().execute() : query.execute();
  }
}

async function clearDefault(trx: Executor, accountId: string, now: Date): Promise<void> {
  await trx
    .updateTable('git_integrations')
    .set({ is_default: false, updated_at: now })
    .where('account_id', '=', accountId)
    .where('is_default', '=', true)
    .execute();
}

function found(rows: GitIntegrationRow[], name: string): GitIntegrationRow {
  const row = rows.find((r) => r.name === name);
  if (row === undefined) throw notFound(name);
  return row;
}

function notFound(name: string): NotFoundError {
  return new NotFoundError(
    'SLUICE_GIT_INTEGRATION_NOT_FOUND',
    `Git integration "${name}" does not exist`,
    { hint: 'List them with sluice get git-integrations' },
  );
}

function associatedData(accountId: string, name: string): string {
  return `git-integration:${accountId}:${name}`;
}

function toGitIntegration(row: GitIntegrationRow): GitIntegration {
  return {
    name: row.name,
    kind: row.kind as GitIntegrationKind,
    url: row.url,
    username: row.username,
    auth: row.auth,
    default: row.is_default,
    createdAt: isoTime(row.created_at) ?? '',
    updatedAt: isoTime(row.updated_at) ?? '',
  };
}
