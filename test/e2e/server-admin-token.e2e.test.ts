/**
 * `sluice server` as a person starts and stops it: the first admin's token shown once on a
 * terminal or written to a private file off one, and a server started by `npx` stopped with it.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@sluice/protocol';
import { REPO_ROOT, SLUICE_BIN, seededDataDir, startSluice } from './cli-harness.js';

test('sluice server off a terminal writes the new admin token to a 0600 file and prints only where it is', async () => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-admin-token-'));
  const dataDir = join(root, 'data');
  const server = startSluice(['server', '--port', '0', '--data-dir', dataDir], {
    env: { SLUICE_BOOTSTRAP_TOKEN: '', DATABASE_URL: '' },
  });
  try {
    await server.waitForOutput('Admin token', 60_000);
    const stdout = server.stdout();
    const file = join(dataDir, 'admin-token');
    assert.match(stdout, new RegExp(`Admin token: in ${file} \\(mode 0600`));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const token = readFileSync(file, 'utf8').trim();
    assert.match(token, /^slu_u_/);
    assert.ok(!stdout.includes(token) && !server.stderr().includes(token), 'never printed');
    const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1] ?? '';
    const me = await createClient({ baseUrl: url, token }).call('me');
    assert.equal(me.user.name, 'admin');
    assert.equal(statSync(dataDir).mode & 0o777, 0o700, 'the data directory is private');
    assert.equal(statSync(join(dataDir, 'pgdata')).mode & 0o777, 0o700, 'so is the database');
  } finally {
    server.child.kill('SIGTERM');
    await server.done;
    rmSync(root, { recursive: true, force: true });
  }
});

test('sluice server on a terminal shows the new admin token once and writes no file', async () => {
  // A migrated database with no user yet: the first start's database is the test above's.
  const dataDir = await seededDataDir(mkdtempSync(join(tmpdir(), 'sluice-admin-token-tty-')));
  // `script` gives the server a pseudo-terminal as stdout, as a person's shell would.
  const command = `${process.execPath} ${SLUICE_BIN} server --port 0 --data-dir ${dataDir}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: { ...process.env, NO_COLOR: '1', SLUICE_BOOTSTRAP_TOKEN: '', DATABASE_URL: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise((resolve) => child.once('close', resolve));
  try {
    const deadline = Date.now() + 60_000;
    while (!/Admin token \(shown once, keep it safe\): slu_u_\S+/.test(out)) {
      assert.ok(Date.now() < deadline, `no admin token shown: ${out}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(!existsSync(join(dataDir, 'admin-token')), 'no file when it was shown');
  } finally {
    child.stdin.write('\u0003'); // Ctrl-C through the terminal, as a person stops it.
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('sluice server started by npx stops when npx is sent SIGTERM, not left running', async () => {
  const dataDir = await seededDataDir(mkdtempSync(join(tmpdir(), 'sluice-npx-server-')));
  // npm runs the command through `sh -c`, which dies of the SIGTERM npm passes it without
  // passing it on: the server must notice that its launcher is gone.
  const npx = spawn(
    'npx',
    ['--offline', 'sluice', 'server', '--port', '0', '--data-dir', dataDir],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, SLUICE_BOOTSTRAP_TOKEN: '', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  npx.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  // The pipe closes when its last writer, the server's own process, has exited.
  const closed = new Promise((resolve) => npx.stdout.once('close', resolve));
  try {
    const deadline = Date.now() + 60_000;
    while (!out.includes('listening on')) {
      assert.ok(Date.now() < deadline, `the server did not start: ${out}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    npx.kill('SIGTERM');
    const outcome = await Promise.race([
      closed.then(() => 'exited'),
      new Promise((resolve) => setTimeout(resolve, 20_000, 'still running')),
    ]);
    assert.equal(outcome, 'exited', `the server outlived npx: ${out}`);
    assert.match(out, /Stopping the server/, 'it stopped in order, as on its own SIGTERM');
  } finally {
    spawn('pkill', ['-f', `--data-dir ${dataDir}`]);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
