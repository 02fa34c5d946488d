/**
 * The shape of the command line as a person meets it: unknown command words refused with the
 * nearest command (exit 2, with or without --help), the top-level help grouped by task, examples
 * under every command, and shell completion made from the command tree.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { runSluice } from './cli-harness.js';

test('unknown commands exit 2 with the nearest one, with or without --help', async () => {
  for (const args of [
    ['gt', 'builds'],
    ['gt', '--help'],
    ['get', 'bulds', '-h'],
  ]) {
    const result = await runSluice(args);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
    assert.match(result.stderr, /Did you mean "sluice get( builds)?"/);
    assert.equal(result.stdout, '', 'no help printed');
  }
  const help = await runSluice(['--help']);
  assert.equal(help.code, 0);
  for (const group of ['Run builds:', 'Manage pipelines and settings:', 'Local use:', 'Set up:'])
    assert.match(help.stdout, new RegExp(`^${group}$`, 'm'));
  for (const command of [
    ['run-pipeline'],
    ['get', 'builds'],
    ['auth', 'create-context'],
    ['run'],
  ]) {
    const own = await runSluice([...command, '--help']);
    assert.match(own.stdout, /\nExamples:\n {2}\$ sluice /, command.join(' '));
  }
});

test('bash completion completes command words and flags from the command tree', async () => {
  const script = (await runSluice(['completion', 'bash'])).stdout;
  const complete = (words: string[]) => {
    const program = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _sluice; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync('bash', ['-c', program], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout.trim().split('\n');
  };
  assert.deepEqual(complete(['sluice', 'run-p']), ['run-pipeline']);
  assert.deepEqual(complete(['sluice', 'get', 'bui']), ['builds', 'build']);
  assert.ok(complete(['sluice', 'get', 'builds', '--st']).includes('--status'));
  const zsh = (await runSluice(['completion', 'zsh'])).stdout;
  assert.match(zsh, /^#compdef sluice/);
  assert.equal((await runSluice(['completion', 'fish'])).code, 2);
});

test('--no-color and NO_COLOR give plain text even where colour was forced', async () => {
  const env = { NO_COLOR: '', FORCE_COLOR: '1' };
  const painted = await runSluice(['gt'], { env });
  assert.ok(painted.stderr.includes('\u001b[31m'), 'FORCE_COLOR paints the error red');
  const plain = await runSluice(['--no-color', 'gt'], { env });
  assert.ok(!plain.stderr.includes('\u001b['), plain.stderr);
  assert.ok(!(await runSluice(['gt'], { env: { NO_COLOR: '1' } })).stderr.includes('\u001b['));
});

test('a context is refused a token with a NUL byte or spaces, and nothing is written', async () => {
  const file = `/tmp/sluice-ctx-nul-${process.pid}.yaml`;
  for (const input of ['slu_u_a\u0000b', 'slu_u a b']) {
    const result = await runSluice(
      [
        'auth',
        'create-context',
        'x',
        '--url',
        'http://127.0.0.1:1',
        '--token-stdin',
        '--no-verify',
      ],
      { input, env: { SLUICE_CONFIG: file } },
    );
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /The token has characters no Sluice token has/);
  }
  assert.equal(
    (await runSluice(['auth', 'get-contexts'], { env: { SLUICE_CONFIG: file } })).stderr.includes(
      'No contexts',
    ),
    true,
  );
});

test('--version, -V and `version` print the version of package.json alone', async () => {
  const pkg = JSON.parse(
    readFileSync(new URL('../../../apps/cli/package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  for (const args of [['--version'], ['-V'], ['version']]) {
    const result = await runSluice(args);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${pkg.version}\n`, args.join(' '));
  }
  // With anything else on the line, the command tree parses it as before.
  assert.equal((await runSluice(['version', 'extra'])).code, 2);
});
