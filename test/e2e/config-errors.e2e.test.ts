/**
 * Configuration errors as a person meets them: each entry point, started as a real process
 * with a bad value of each kind (not a number, out of range, not one of the words, not a URL,
 * missing), exits 2 before it starts anything, naming the variable and what it accepts, and
 * never echoing a secret.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runSluice, seededDataDir } from './cli-harness.js';

// A value that was accepted would start the process (a server, an engine retrying its control
// plane): the test then fails at this limit instead of holding the tier.
const LIMIT_MS = 120_000;
const SECRET = 'sk_do_not_echo_0123456789';
const dir = mkdtempSync(join(tmpdir(), 'sluice-config-errors-'));

interface Case {
  kind: string;
  env: Record<string, string>;
  /** Each must be in standard error. */
  expected: string[];
}

/** Unset whatever the machine running the tests has set, so each case sees only its own. */
const CLEAN: Record<string, string> = Object.fromEntries(
  Object.keys(process.env)
    .filter((name) => name.startsWith('SLUICE_') || name === 'DATABASE_URL')
    .map((name) => [name, '']),
);

async function refused(args: string[], base: Record<string, string>, each: Case[]) {
  for (const { kind, env, expected } of each) {
    const result = await runSluice(args, { env: { ...CLEAN, ...base, ...env } });
    const why = `${args.join(' ')} with ${kind}: exit ${result.code}\n${result.stderr}`;
    assert.equal(result.code, 2, why);
    for (const text of expected)
      assert.ok(result.stderr.includes(text), `${why}\nmissing: ${text}`);
    assert.ok(!(result.stdout + result.stderr).includes(SECRET), `${why}\nechoed a secret`);
    assert.ok(!/listening on|agent started|Build \d+ finished/.test(result.stdout), why);
  }
}

test(
  'sluice server refuses each kind of bad value, naming the variable',
  { timeout: LIMIT_MS },
  async () => {
    await refused(['server', '--port', '0', '--data-dir', join(dir, 'server')], {}, [
      {
        kind: 'not a number',
        env: { SLUICE_AGENT_OFFLINE_AFTER_MS: 'soon' },
        expected: ['SLUICE_AGENT_OFFLINE_AFTER_MS must be an integer of at least 0', '"soon"'],
      },
      {
        kind: 'a negative number',
        env: { SLUICE_TASK_LEASE_MS: '-1' },
        expected: [
          'SLUICE_TASK_LEASE_MS must be an integer of at least 0 (milliseconds), got "-1"',
        ],
      },
      {
        kind: 'out of range',
        env: { SLUICE_METRICS_PORT: '70000' },
        expected: ['SLUICE_METRICS_PORT) must be an integer from 0 to 65535, got "70000"'],
      },
      {
        kind: 'not a URL',
        env: { SLUICE_PUBLIC_URL: 'cp.example:8080' },
        expected: ['SLUICE_PUBLIC_URL must be an http(s) URL'],
      },
      {
        kind: 'a secret too short, and everything at once',
        env: { SLUICE_BOOTSTRAP_TOKEN: SECRET.slice(0, 10), SLUICE_LIMITS_INTERVAL_MS: '5' },
        expected: [
          'SLUICE_BOOTSTRAP_TOKEN must be text of at least 20 characters',
          'SLUICE_LIMITS_INTERVAL_MS must be an integer of at least 100',
        ],
      },
    ]);
  },
);

test(
  'sluice agent refuses each kind of bad value, naming the variable and its flag',
  { timeout: LIMIT_MS },
  async () => {
    const base = {
      SLUICE_SERVER_URL: 'http://127.0.0.1:9',
      SLUICE_AGENT_TOKEN: SECRET,
      SLUICE_LOCAL_RUNTIME: 'local',
      SLUICE_AGENT_STATE_DIR: join(dir, 'agent'),
    };
    await refused(['agent'], base, [
      {
        kind: 'not a number',
        env: { SLUICE_AGENT_CONCURRENCY: 'many' },
        expected: ['--concurrency (SLUICE_AGENT_CONCURRENCY) must be an integer from 1 to 1000'],
      },
      {
        kind: 'a negative number',
        env: { SLUICE_AGENT_POLL_WAIT: '-1' },
        expected: ['--poll-wait (SLUICE_AGENT_POLL_WAIT) must be a number from 0 to 60'],
      },
      {
        kind: 'not one of the words',
        env: { SLUICE_DIND_HOST_ALIAS: 'maybe' },
        expected: ['(SLUICE_DIND_HOST_ALIAS) must be one of 1, 0, true, false'],
      },
      {
        kind: 'not a URL',
        env: { SLUICE_SERVER_URL: 'cp:8080' },
        expected: ['--server-url (SLUICE_SERVER_URL) must be an http(s) URL, got "cp:8080"'],
      },
      {
        kind: 'a secret missing',
        env: { SLUICE_AGENT_TOKEN: '' },
        expected: ['--token (SLUICE_AGENT_TOKEN) is not set'],
      },
    ]);
  },
);

test(
  'sluice engine refuses each kind of bad value, naming the variable',
  { timeout: LIMIT_MS },
  async () => {
    const base = { SLUICE_SERVER_URL: 'http://127.0.0.1:9', SLUICE_ENGINE_TOKEN: SECRET };
    await refused(['engine'], base, [
      {
        kind: 'not a number',
        env: { SLUICE_DOCKER_WAIT_SECONDS: 'soon' },
        expected: [
          'SLUICE_DOCKER_WAIT_SECONDS must be a number from 0 to 86400 (seconds), got "soon"',
        ],
      },
      {
        kind: 'a number out of range',
        env: { SLUICE_LOG_DRAIN_SECONDS: '0' },
        expected: ['SLUICE_LOG_DRAIN_SECONDS must be a number from 1 to 86400 (seconds), got "0"'],
      },
      {
        kind: 'not a URL',
        env: { SLUICE_SERVER_URL: 'ftp://cp' },
        expected: ['SLUICE_SERVER_URL must be an http(s) URL, got "ftp://cp"'],
      },
      {
        kind: 'a secret missing',
        env: { SLUICE_ENGINE_TOKEN: '' },
        expected: ['SLUICE_ENGINE_TOKEN is not set'],
      },
    ]);
  },
);

test(
  'the commands that talk to a server refuse a bad SLUICE_SERVER, naming it',
  { timeout: LIMIT_MS },
  async () => {
    await refused(['get', 'builds'], { SLUICE_TOKEN: SECRET }, [
      {
        kind: 'not a URL',
        env: { SLUICE_SERVER: 'cp:8080' },
        expected: ['--server (SLUICE_SERVER) must be an http(s) URL, got "cp:8080"'],
      },
    ]);
  },
);

test('sluice server on a port in use says so in one line, with what to pass instead', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as AddressInfo;
  try {
    // The database opens before the port is bound: a migrated one spares ~10 s of first start.
    const dataDir = await seededDataDir(join(dir, 'port-in-use'));
    const result = await runSluice(['server', '--port', String(port), '--data-dir', dataDir], {
      env: CLEAN,
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`error: Port 127\\.0\\.0\\.1:${port} is in use\\n`));
    assert.match(result.stderr, /hint: Pick another with --port \(or SLUICE_PORT\), or --port 0/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    taken.close();
  }
});
