/**
 * The one writer of engine tokens (the `api_tokens` rows of kind `engine`, one per build, its
 * subject the build): stored with the build's election, revoked at its end, deleted with it.
 * The election and the delete are single statements of the store's, so the writes here are
 * pieces of SQL it embeds; identity's service writes the other kinds (user and agent tokens).
 * @module
 */
import { sql } from '@sluice/db';
import type { Executor } from '@sluice/db';
import type { EngineToken } from '../identity/identity-service.js';

/** A piece of SQL for a statement of the store's to embed. */
type SqlFragment = ReturnType<typeof sql>;

/**
 * The insert of `tokens`, kept only for the builds `elected` selects (their ids), so a build no
 * longer pending gets none.
 */
export function engineTokensInsert(
  tokens: readonly EngineToken['row'][],
  elected: SqlFragment,
): SqlFragment {
  const column = <K extends keyof EngineToken['row']>(key: K) => tokens.map((t) => t[key]);
  return sql`insert into api_tokens (id, account_id, kind, subject_id, name, token_hash, token_prefix)
    select t.id, t.account_id, 'engine', t.build_id, t.name, t.hash, t.prefix
    from unnest(${column('id')}::text[], ${column('accountId')}::text[],
      ${column('buildId')}::text[], ${column('name')}::text[],
      ${column('hash')}::text[], ${column('prefix')}::text[])
      as t(id, account_id, build_id, name, hash, prefix)
    where t.build_id in (${elected})`;
}

/** The delete of the engine tokens of the builds `victims` selects (their ids). */
export function engineTokensDelete(victims: SqlFragment): SqlFragment {
  return sql`delete from api_tokens t
    where t.kind = 'engine' and t.subject_id in (${victims})`;
}

/** The build's engine can no longer report (its end). */
export async function revokeEngineToken(trx: Executor, buildId: string, now: Date): Promise<void> {
  await trx
    .updateTable('api_tokens')
    .set({ revoked_at: now })
    .where('subject_id', '=', buildId)
    .where('kind', '=', 'engine')
    .where('revoked_at', 'is', null)
    .execute();
}
