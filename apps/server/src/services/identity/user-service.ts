/**
 * The account's users: their role (`viewer`, `member`, `admin`) and, for members and viewers,
 * the projects they may use (docs/access.md). A change takes effect at the user's next request,
 * since every request reads the user with its token; removing a user revokes their tokens in
 * the same transaction. The account always keeps an admin.
 * @module
 */
import { ConflictError, InputError, NotFoundError } from '@sluice/errors';
import { jsonb } from '@sluice/db';
import type { Executor, UserRow } from '@sluice/db';
import type { Role, User } from '@sluice/protocol';
import { isoTime } from '../server-context.js';
import type { ServerContext } from '../server-context.js';
import type { IdentityService } from './identity-service.js';
import type { PasswordHasher } from './password-hasher.js';

export interface UserInput {
  role?: Role;
  /** Project names; null: every project. */
  projects?: readonly string[] | null;
  /** A password to sign in to the web UI with (hashed here); null removes it. */
  password?: string | null;
}

export class UserService {
  readonly #ctx: ServerContext;
  readonly #identity: IdentityService;
  readonly #passwords: PasswordHasher;

  constructor(ctx: ServerContext, identity: IdentityService, passwords: PasswordHasher) {
    this.#ctx = ctx;
    this.#identity = identity;
    this.#passwords = passwords;
  }

  /** The password column for `input`: hashed off the event loop; undefined leaves it as it is. */
  async #passwordColumn(input: UserInput): Promise<string | null | undefined> {
    if (input.password === undefined || input.password === null) return input.password;
    return this.#passwords.hash(input.password);
  }

  async list(accountId: string): Promise<User[]> {
    const rows = await this.#ctx.database.db
      .selectFrom('users')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('name')
      .execute();
    return rows.map(toUser);
  }

  /** A user of the account by name; 404 naming it otherwise. */
  async byName(
    accountId: string,
    name: string,
    executor: Executor = this.#ctx.database.db,
  ): Promise<UserRow> {
    const row = await executor
      .selectFrom('users')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (row === undefined)
      throw new NotFoundError('SLUICE_USER_NOT_FOUND', `User "${name}" does not exist`, {
        hint: 'See the users with: sluice get users',
      });
    return row;
  }

  async create(accountId: string, name: string, input: UserInput & { role: Role }): Promise<User> {
    const db = this.#ctx.database.db;
    const exists = await db
      .selectFrom('users')
      .select('id')
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (exists !== undefined)
      throw new ConflictError('SLUICE_USER_EXISTS', `User "${name}" already exists`, {
        hint: `Change their role with: sluice patch user ${name} --role ROLE`,
      });
    const row = await db
      .insertInto('users')
      .values({
        id: this.#ctx.ids.next('usr'),
        account_id: accountId,
        name,
        role: input.role,
        projects: grantsColumn(name, input.role, input.projects ?? null),
        password: await this.#passwordColumn(input),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toUser(row);
  }

  async update(accountId: string, name: string, input: UserInput): Promise<User> {
    const password = await this.#passwordColumn(input);
    return this.#ctx.database.db.transaction().execute(async (trx) => {
      const current = await this.byName(accountId, name, trx);
      const role = input.role ?? current.role;
      if (current.role === 'admin' && role !== 'admin')
        await assertAnotherAdmin(trx, accountId, current);
      // A new admin uses every project; a member keeps its grants unless given new ones.
      const projects =
        role === 'admin' && input.projects === undefined
          ? null
          : input.projects === undefined
            ? current.projects
            : input.projects;
      const row = await trx
        .updateTable('users')
        .set({ role, projects: grantsColumn(name, role, projects), password })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toUser(row);
    });
  }

  /** Removes the user and revokes their tokens at once (their next request is refused). */
  async delete(accountId: string, name: string): Promise<void> {
    await this.#ctx.database.db.transaction().execute(async (trx) => {
      const current = await this.byName(accountId, name, trx);
      if (current.role === 'admin') await assertAnotherAdmin(trx, accountId, current);
      await this.#identity.revokeSubject(trx, current.id);
      await trx.deleteFrom('users').where('id', '=', current.id).execute();
    });
  }
}

/**
 * Refuses to leave the account without an admin. The admins' rows are locked, so two admins
 * removing each other at once cannot both succeed.
 */
async function assertAnotherAdmin(trx: Executor, accountId: string, user: UserRow): Promise<void> {
  const admins = await trx
    .selectFrom('users')
    .select('id')
    .where('account_id', '=', accountId)
    .where('role', '=', 'admin')
    .forUpdate()
    .execute();
  if (admins.some((admin) => admin.id !== user.id)) return;
  throw new ConflictError(
    'SLUICE_USER_LAST_ADMIN',
    `User "${user.name}" is the account's last admin`,
    { hint: 'Make another user an admin first: sluice patch user NAME --role admin' },
  );
}

function grantsColumn(name: string, role: Role, projects: readonly string[] | null) {
  if (projects === null) return null;
  if (role === 'admin')
    throw new InputError(
      'SLUICE_USER_ADMIN_GRANTS',
      `User "${name}" would be an admin limited to projects ${projects.join(', ') || '(none)'}: an admin uses every project`,
      { hint: 'Leave out the projects, or give the role member or viewer' },
    );
  return jsonb([...new Set(projects)].sort());
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    projects: row.projects,
    hasPassword: row.password !== null,
    createdAt: isoTime(row.created_at) ?? '',
  };
}
