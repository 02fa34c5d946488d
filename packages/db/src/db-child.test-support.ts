/**
 * A child process for crash and lock tests: opens the database named by the JSON options in
 * argv[2], commits `rows` rows to `settings` one by one, leaves one more row in a transaction
 * that never ends, prints `ready`, and waits to be killed.
 * @module
 */
import { openDatabase } from './open-database.js';
import { jsonb } from './jsonb.js';
import type { OpenDatabaseOptions } from './database.js';

interface ChildArgs {
  options: OpenDatabaseOptions;
  rows: number;
}

async function main(args: ChildArgs): Promise<void> {
  const database = await openDatabase({ ...args.options, migrate: false });
  for (let i = 0; i < args.rows; i++) {
    await database.db
      .insertInto('settings')
      .values({ key: `child-${i}`, value: jsonb({ i }) })
      .execute();
  }
  await database.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('settings')
      .values({ key: 'child-uncommitted', value: jsonb(true) })
      .execute();
    process.stdout.write('ready\n');
    await new Promise(() => undefined);
  });
}

main(JSON.parse(process.argv[2] ?? '{}') as ChildArgs).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}\n`);
  const code = (err as { code?: unknown }).code;
  process.stdout.write(`failed ${typeof code === 'string' ? code : 'unknown'}\n`);
  process.exit(1);
});
