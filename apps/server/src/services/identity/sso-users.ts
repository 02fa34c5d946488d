/**
 * Users who sign in through the identity provider: found by the provider's issuer and their
 * subject there (never by name, which a provider may let people change), made at their first
 * sign-in in the server's account, and given at every sign-in the role their groups make now,
 * so a group changed at the provider takes effect at the next sign-in. A name already used by
 * a user the provider did not make is refused, not taken over. The account's last admin stays
 * an admin whatever the groups say (as `sluice patch user` refuses to demote them), and the
 * sign-in says so: no group change at the provider can leave an account without one.
 * @module
 */
import { createHash } from 'node:crypto';
import { ConflictError } from '@sluice/errors';
import type { Executor } from '@sluice/db';
import { UserName } from '@sluice/protocol';
import type { Role } from '@sluice/protocol';
import type { ServerContext } from '../server-context.js';

export interface ProviderIdentity {
  issuer: string;
  subject: string;
  /** What the provider calls them: `preferred_username`, else `email`, else the subject. */
  claimedName: string;
  role: Role;
}

export interface SsoUser {
  id: string;
  accountId: string;
  name: string;
  role: Role;
  /** The role before this sign-in; undefined at the first. */
  previousRole: Role | undefined;
  /** The groups gave a lower role, but the user is the account's last admin and stays one. */
  keptLastAdmin?: true;
}

/** Makes or updates the user of `identity` in the server's account, in one transaction. */
export async function signInProviderUser(
  ctx: ServerContext,
  identity: ProviderIdentity,
): Promise<SsoUser> {
  return ctx.database.db.transaction().execute(async (trx) => {
    const found = await trx
      .selectFrom('users')
      .select(['id', 'account_id', 'name', 'role'])
      .where('oidc_issuer', '=', identity.issuer)
      .where('oidc_subject', '=', identity.subject)
      .forUpdate()
      .executeTakeFirst();
    if (found !== undefined) {
      if (found.role === 'admin' && identity.role !== 'admin') {
        const admins = await trx
          .selectFrom('users')
          .select('id')
          .where('account_id', '=', found.account_id)
          .where('role', '=', 'admin')
          .forUpdate()
          .execute();
        if (admins.every((admin) => admin.id === found.id))
          return {
            id: found.id,
            accountId: found.account_id,
            name: found.name,
            role: 'admin',
            previousRole: 'admin',
            keptLastAdmin: true,
          };
      }
      // Grants an administrator gave stay; an admin has none (an admin uses every project).
      if (found.role !== identity.role)
        await trx
          .updateTable('users')
          .set(
            identity.role === 'admin'
              ? { role: identity.role, projects: null }
              : { role: identity.role },
          )
          .where('id', '=', found.id)
          .execute();
      return {
        id: found.id,
        accountId: found.account_id,
        name: found.name,
        role: identity.role,
        previousRole: found.role,
      };
    }
    const accountId = await serverAccount(trx);
    const name = userNameOf(identity);
    const taken = await trx
      .selectFrom('users')
      .select('id')
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (taken !== undefined)
      throw new ConflictError(
        'SLUICE_OIDC_USER_NAME_TAKEN',
        `User name "${name}" is taken by a user who does not sign in through ${identity.issuer}`,
        {
          hint: `An administrator can remove the other user (sluice delete user ${name}), then sign in again`,
        },
      );
    const id = ctx.ids.next('usr');
    await trx
      .insertInto('users')
      .values({
        id,
        account_id: accountId,
        name,
        role: identity.role,
        oidc_issuer: identity.issuer,
        oidc_subject: identity.subject,
      })
      .execute();
    return { id, accountId, name, role: identity.role, previousRole: undefined };
  });
}

/** The one account a server has (made at its first start). */
export async function serverAccount(executor: Executor): Promise<string> {
  const row = await executor
    .selectFrom('accounts')
    .select('id')
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The provider's name for them, made a valid user name; a name from the subject otherwise. */
export function userNameOf(identity: Pick<ProviderIdentity, 'claimedName' | 'subject'>): string {
  const cleaned = identity.claimedName
    .toLowerCase()
    .replace(/[^a-z0-9._@+-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '')
    .slice(0, 100);
  if (UserName.safeParse(cleaned).success) return cleaned;
  return `sso-${createHash('sha256').update(identity.subject).digest('hex').slice(0, 12)}`;
}
