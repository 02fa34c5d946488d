import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { InputError } from '@sluice/errors';
import { createTestDatabase, runPsql, startPostgres } from './postgres.js';
import { runCommand } from './run-command.js';

test(
  'a throwaway cluster answers psql, creates databases and is removed by stop',
  { timeout: 120_000 },
  async () => {
    const server = await startPostgres({ local: true });
    const dir = server.dir;
    assert.ok(dir !== undefined && existsSync(dir));
    try {
      assert.match(server.url, /^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
      const selectOne = await runCommand('psql', ['-X', '-At', '-d', server.url, '-c', 'select 1']);
      assert.equal(selectOne.code, 0, selectOne.stderr);
      assert.equal(selectOne.stdout, '1\n');
      assert.equal(await runPsql(server.url, 'show fsync'), 'off');

      const url = await createTestDatabase(server.url, 'sluice_test_one');
      assert.equal(await runPsql(url, 'select current_database()'), 'sluice_test_one');
      await runPsql(url, 'create table marker (id int); insert into marker values (42)');
      const copy = await createTestDatabase(server.url, 'sluice_test_copy', {
        template: 'sluice_test_one',
      });
      assert.equal(await runPsql(copy, 'select id from marker'), '42');
      await assert.rejects(createTestDatabase(server.url, 'bad-name; drop'), InputError);
    } finally {
      await server.stop();
    }
    assert.equal(existsSync(dir), false);
    const after = await runCommand('psql', ['-X', '-At', '-d', server.url, '-c', 'select 1']);
    assert.notEqual(after.code, 0);
    await server.stop();
  },
);

test(
  'a cluster whose owner was SIGKILLed is stopped and removed by the next start',
  { timeout: 120_000 },
  async () => {
    // The owner: a process that starts a cluster, says where, and waits to be killed.
    const module = JSON.stringify(new URL('./postgres.js', import.meta.url).href);
    const owner = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { startPostgres } = await import(${module});
         const server = await startPostgres({ local: true });
         process.stdout.write(JSON.stringify({ dir: server.dir, url: server.url }) + '\\n');
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [line] = (await once(createInterface({ input: owner.stdout }), 'line')) as [string];
    const orphan = JSON.parse(line) as { dir: string; url: string };
    owner.kill('SIGKILL');
    await once(owner, 'exit');
    const alive = await runCommand('psql', ['-X', '-At', '-d', orphan.url, '-c', 'select 1']);
    assert.equal(alive.stdout, '1\n', 'the orphan cluster runs before the sweep');

    const server = await startPostgres({ local: true });
    try {
      assert.equal(existsSync(orphan.dir), false, 'the orphan directory is still there');
      const gone = await runCommand('psql', ['-X', '-At', '-d', orphan.url, '-c', 'select 1']);
      assert.notEqual(gone.code, 0, 'the orphan cluster still answers');
      assert.ok(existsSync(server.dir ?? ''), 'the new cluster runs');
    } finally {
      await server.stop();
    }
  },
);
