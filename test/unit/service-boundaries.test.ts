// The server rules of scripts/check-boundaries.mjs, on tiny trees in a temporary directory: no
// folder cycles in apps/server/src/services, and one writer per table of the build aggregate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { treeWriter } from './script-rules.test-support.js';

type Graph = Map<string, string[]>;
interface ImportCycles {
  importGraph: (dir: string) => Graph;
}
interface FolderCycles {
  folderCycleProblems: (graph: Graph, options: { dir: string; root: string }) => string[];
}
interface TableWriters {
  tablesWritten: (source: string, tables: readonly string[]) => string[];
  tableWriterProblems: (
    dir: string,
    writers: Record<string, readonly string[]>,
    options: { root: string },
  ) => string[];
}

// From test/dist/unit/ back to the repository's scripts/lib/.
const lib = join(fileURLToPath(new URL('../../..', import.meta.url)), 'scripts/lib');
const load = async <T>(name: string) => (await import(pathToFileURL(join(lib, name)).href)) as T;
const { importGraph } = await load<ImportCycles>('import-cycles.mjs');
const { folderCycleProblems } = await load<FolderCycles>('folder-cycles.mjs');
const { tablesWritten, tableWriterProblems } = await load<TableWriters>('table-writers.mjs');

const tree = await treeWriter('sluice-service-boundaries-');

function folderProblems(dir: string): string[] {
  return folderCycleProblems(importGraph(dir), { dir: join(dir, 'services'), root: tree.root });
}

test('two service folders that import each other are refused, with a file import of each way', async () => {
  const dir = await tree('folder-cycle', {
    'services/builds/store.ts':
      "import type { Plan } from '../tasks/plan.js';\nexport type S = Plan;\n",
    'services/tasks/plan.ts':
      "import { rows } from '../builds/rows.js';\nexport type Plan = typeof rows;\n",
    'services/builds/rows.ts': 'export const rows = 1;\n',
    'services/context.ts': 'export const ctx = 1;\n',
    'server.ts': "import { rows } from './services/builds/rows.js';\nexport const s = rows;\n",
  });
  assert.deepEqual(folderProblems(dir), [
    'folder cycle in folder-cycle/services: builds -> tasks -> builds ' +
      '(builds/store.ts imports tasks/plan.ts; tasks/plan.ts imports builds/rows.ts); ' +
      'move the shared code below both folders, or have the lower one take an interface',
  ]);
});

test('a cycle through a top file of services/ is refused too', async () => {
  const dir = await tree('top-file-cycle', {
    'services/pool.ts':
      "import { check } from './triggers/check.js';\nexport const pool = check;\n",
    'services/triggers/service.ts': "import { pool } from '../pool.js';\nexport const t = pool;\n",
    'services/triggers/check.ts': 'export const check = 1;\n',
  });
  const problems = folderProblems(dir);
  assert.equal(problems.length, 1);
  assert.match(
    problems[0] ?? '',
    /: pool\.ts -> triggers -> pool\.ts \(pool\.ts imports triggers\/check\.ts;/,
  );
});

test('folders that import downwards pass, and tests may import across', async () => {
  const dir = await tree('layered', {
    'services/scheduling/scheduler.ts':
      "import { s } from '../builds/store.js';\nexport const x = s;\n",
    'services/builds/store.ts': "import { ctx } from '../context.js';\nexport const s = ctx;\n",
    'services/context.ts': 'export const ctx = 1;\n',
    'services/services.ts':
      "import { x } from './scheduling/scheduler.js';\nexport const all = x;\n",
    'services/builds/store.test.ts':
      "import { x } from '../scheduling/scheduler.js';\nexport const t = x;\n",
  });
  assert.deepEqual(folderProblems(dir), []);
});

const WRITERS = {
  builds: ['services/builds/build-store.ts'],
  tasks: ['services/builds/task-rows.ts'],
  build_control: ['services/builds/build-control.ts'],
};

test('a write of an aggregate table outside its writer is refused, whatever its form', async () => {
  const dir = await tree('writers', {
    'services/builds/build-store.ts': "await trx.updateTable('builds').set(row).execute();\n",
    'services/builds/task-rows.ts':
      'await sql`insert into tasks (id) values (${id})`.execute(trx);\n',
    'services/builds/build-control.ts':
      "await trx.insertInto('build_control').values(v).execute();\n",
    'services/tasks/task-queue.ts':
      "// trx.updateTable('builds') is the store's\nawait trx\n  .updateTable(\n    'tasks'\n  ).execute();\n",
    'services/limits/reaper.ts': 'await sql`DELETE FROM "builds" WHERE id = ${id}`.execute(db);\n',
    'services/builds/build-rows.ts': "db.selectFrom('builds').innerJoin('tasks', 'a', 'b');\n",
    'services/builds/build-store.test.ts': "await db.insertInto('tasks').values(row).execute();\n",
  });
  assert.deepEqual(tableWriterProblems(dir, WRITERS, { root: tree.root }), [
    'writers/services/limits/reaper.ts: writes builds, whose writer is services/builds/build-store.ts; ' +
      'call the writer instead, or move the write into it',
    'writers/services/tasks/task-queue.ts: writes tasks, whose writer is services/builds/task-rows.ts; ' +
      'call the writer instead, or move the write into it',
  ]);
});

test('a writer named in the table that writes nothing is refused as stale', async () => {
  const dir = await tree('stale', {
    'services/builds/build-store.ts': "await trx.updateTable('builds').set(row).execute();\n",
    'services/builds/task-rows.ts': "await trx.updateTable('tasks').set(row).execute();\n",
    'services/builds/build-control.ts': 'export const moved = true;\n',
  });
  assert.deepEqual(tableWriterProblems(dir, WRITERS, { root: tree.root }), [
    'stale/services/builds/build-control.ts: is the writer of build_control in ' +
      'scripts/check-boundaries.mjs but does not write it; update the table there',
  ]);
});

test('writes are told from reads, other tables and prose', () => {
  const tables = ['builds', 'build_steps', 'tasks'];
  for (const [source, written] of [
    ["db.insertInto('build_steps').values(rows)", ['build_steps']],
    ['sql`update builds b set reason = w.reason`', ['builds']],
    ['sql`with q as (insert into tasks (id) select 1) delete from builds`', ['builds', 'tasks']],
    ["db.selectFrom('builds').innerJoin('tasks', 'x', 'y')", []],
    ["trx.updateTable('builds_archive')", []],
    ['/** Every update builds need goes through the store. */', []],
    ['// delete from tasks happens in task-rows', []],
  ] as const)
    assert.deepEqual(tablesWritten(source, tables), written, source);
});
