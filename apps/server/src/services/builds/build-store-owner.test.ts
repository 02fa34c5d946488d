import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The one file allowed to write `builds` (see its module comment). */
const OWNER = 'build-store.ts';
/**
 * The files that may read it: the store's read half, and the metrics scrape, which counts the
 * unfinished builds by status in SQL of its own (observability imports no service).
 */
const READERS = ['builds/build-rows.ts', OWNER, 'observability/server-metrics.ts'];

/** Kysely's writes of the table, and SQL text writing it, in code with comments removed. */
const WRITES = [
  /\b(insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(\s*['"`]builds\b/,
  /\b(insert\s+into|update|delete\s+from|merge\s+into)\s+"?builds"?\b/i,
];

/** Kysely's reads of the table, and SQL text reading it. */
const READS = [
  /\b(selectFrom|innerJoin|leftJoin)\(\s*['"`]builds\b/,
  /\b(from|join)\s+"?builds"?\b/i,
];

function writesBuilds(source: string): boolean {
  return WRITES.some((pattern) => pattern.test(withoutComments(source)));
}

function readsBuilds(source: string): boolean {
  return READS.some((pattern) => pattern.test(withoutComments(source)));
}

function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
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

test('only the build store reads the builds table (and the metrics scrape)', () => {
  const readers = serverSources()
    .filter((file) => !READERS.some((reader) => file.endsWith(`/${reader}`)))
    .filter((file) => readsBuilds(readFileSync(file, 'utf8')))
    .map((file) => relative(process.cwd(), file));
  assert.deepEqual(readers, [], 'read builds through builds/build-rows.ts');
});

test('the checks find each kind of write and read, and not other tables or prose', () => {
  for (const read of [
    "db.selectFrom('builds')",
    "trx.selectFrom('pipelines').innerJoin('builds', 'builds.pipeline_id', 'pipelines.id')",
    'sql`select count(*) from builds`',
  ])
    assert.ok(readsBuilds(read), read);
  assert.ok(!readsBuilds("db.selectFrom('build_steps')"));
  assert.ok(!readsBuilds('// read from builds in the store'));
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
