/**
 * Who did something, as people read it: the user's name, recorded on what they answered or
 * registered (a name stays readable after the user is gone; ids do not).
 * @module
 */
import type { Executor } from '@sluice/db';

export async function userName(executor: Executor, userId: string | undefined): Promise<string> {
  if (userId === undefined) return 'unknown';
  const user = await executor
    .selectFrom('users')
    .select('name')
    .where('id', '=', userId)
    .executeTakeFirst();
  return user?.name ?? userId;
}
