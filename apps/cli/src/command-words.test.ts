import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { checkCommandWords } from './command-words.js';

function tree(): Command {
  const program = new Command('sluice').option('--context <name>');
  const get = program.command('get');
  get.command('builds').alias('build').option('--status <s>');
  program.command('run').argument('[file]');
  return program;
}

test('known words pass, whatever their options and arguments', () => {
  for (const argv of [
    ['get', 'builds', '--status', 'failure'],
    ['get', 'build', 'bld_1'],
    ['--context', 'get', 'get', 'builds'],
    ['run', 'whatever.yml'],
    ['get', '--help'],
    [],
  ])
    assert.doesNotThrow(() => checkCommandWords(tree(), argv), argv.join(' '));
});

test('an unknown word is refused with the nearest command; a group needs a command', () => {
  assert.throws(
    () => checkCommandWords(tree(), ['gt', '--help']),
    (err: Error & { hint?: string }) =>
      /Unknown command "gt" for "sluice"/.test(err.message) && /sluice get/.test(err.hint ?? ''),
  );
  assert.throws(() => checkCommandWords(tree(), ['get', 'bilds']), /for "sluice get"/);
  assert.throws(() => checkCommandWords(tree(), ['get']), /sluice get needs one of: builds/);
});
