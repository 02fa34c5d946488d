import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The one file allowed to write `builds` (see its module comment). */
const OWNER = 'build-store.ts';

/** Kysely's writes of the table, and SQL text writing it, in code with comments removed. */
const WRITES = [
  /\b(insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(\s*['"`]builds\b/,
  /\b(insert\s+into|update|delete\s+from|merge\s+into)\s+"?builds"?\b/i,
];

function writesBuilds(source: string): boolean {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return WRITES.some((pattern) => pattern.test(code));
}

/** The server's own sources (apps/server/src), found from this file's place in dist or src. */
function serverSources(): string[] {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  const files: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !/\.(test|test-support)\.ts$/.test(entry.name))
        files.push(path);
    }
  };
  walk(join(dir, 'src'));
  return files;
}

test('only the build store writes the builds table', () => {
  const files = serverSources();
  assert.ok(files.length > 50, `the server's sources were found (${files.length})`);
  const writers = files
    .filter((file) => !file.endsWith(`/${OWNER}`) && writesBuilds(readFileSync(file, 'utf8')))
    .map((file) => relative(process.cwd(), file));
  assert.deepEqual(writers, [], `write builds through ${OWNER}, not from these files`);
  const owner = files.find((file) => file.endsWith(`/${OWNER}`));
  assert.ok(owner !== undefined && writesBuilds(readFileSync(owner, 'utf8')));
});

test('the check finds each kind of write, and not reads or prose', () => {
  for (const write of [
    "await trx.insertInto('builds').values(row)",
    "trx\n  .updateTable(\n    'builds'\n  )",
    'db.deleteFrom("builds")',
    'sql`UPDATE builds SET status = ${s}`',
    'sql`insert into "builds" (id) values (1)`',
    'sql`delete from builds where id = 1`',
  ])
    assert.ok(writesBuilds(write), write);
  for (const other of [
    "db.selectFrom('builds')",
    "trx.updateTable('build_steps')",
    "trx.insertInto('builds_archive')",
    '/** The store: every update builds need goes there. */',
    '// delete from builds happens in the store',
  ])
    assert.ok(!writesBuilds(other), other);
});
