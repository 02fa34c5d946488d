/**
 * Anchors in large files: what aliases add is limited, not the size of the file around them, an
 * anchor may be merged into more than a thousand steps, and the number of aliases has its own
 * limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';

const DEFAULTS = ['x-defaults: &defaults', '  image: alpine:3.19', '  commands: [make]'];

test('an anchor merged into 1,200 steps is read, and a problem beside it is placed exactly', () => {
  // The YAML library refused one anchor used more than 1,000 times as an alias bomb.
  const lines = ["version: '1.0'", ...DEFAULTS, 'steps:'];
  for (let i = 0; i < 1200; i++)
    lines.push(`  s${i}:`, '    <<: *defaults', `    title: step ${i}`);
  lines.push('  last:', '    <<: *defaults', '    retry: {maxAttempts: many}');
  const result = parsePipeline(lines.join('\n') + '\n');
  assert.deepEqual(
    result.issues.map((i) => `${i.line}:${i.column} ${i.message}`),
    [`${lines.length}:26 "maxAttempts" must be a whole number from 1 to 10, got the string "many"`],
  );
  const merged = parsePipeline(lines.slice(0, -3).join('\n') + '\n');
  assert.ok(merged.ok, merged.issues[0]?.message);
  const last = merged.pipeline.steps.at(-1);
  assert.equal(last?.name, 's1199');
  assert.deepEqual(last?.type === 'freestyle' && [last.image, last.commands], [
    'alpine:3.19',
    ['make'],
  ]);
});

test('aliases under the limit in a file that is past it with what is written are no alias bomb', () => {
  // What aliases add is limited to 100,000 values, not the file: here they add 90,070 (*a adds
  // 10 ten times, *b 110, *c 1,110, *d 11,110 seven times), and 1,500 steps of some 10 values
  // each, all written out, take the file past 100,000.
  const ten = (item: string) => `[${Array(10).fill(item).join(', ')}]`;
  const anchors = (repeats: number) => [
    "version: '1.0'",
    `x-a: &a ${ten('x')}`,
    `x-b: &b ${ten('*a')}`,
    `x-c: &c ${ten('*b')}`,
    `x-d: &d ${ten('*c')}`,
    `x-e: [${Array(repeats).fill('*d').join(', ')}]`,
    'steps:',
  ];
  const lines = anchors(7);
  for (let i = 0; i < 1500; i++) lines.push(`  s${i}: {image: alpine, commands: [echo ${i}]}`);
  const result = parsePipeline(lines.join('\n') + '\n');
  assert.ok(result.ok, result.issues[0]?.message);
  assert.equal(result.pipeline.steps.length, 1500);
  // An eighth *d, and what the aliases add is past the limit on its own.
  const over = parsePipeline([...anchors(8), '  s0: {image: alpine}'].join('\n') + '\n');
  assert.match(
    over.issues[0]?.message ?? '',
    /^Aliases expand the file to \d+ values, more than 100000;/,
  );
});

test('more than 20,000 aliases are refused at the first one over', () => {
  const many = Array.from({ length: 20_001 }, () => '*e').join(', ');
  const text = `version: '1.0'\nsteps:\n  a:\n    image: alpine\n    environment: &e [A=1]\n  b:\n    image: alpine\n    commands: [${many}]\n`;
  const result = parsePipeline(text);
  assert.equal(result.ok, false);
  // "    commands: [" is 15 characters; each "*e, " 4 more.
  assert.deepEqual(
    result.issues.map((i) => `${i.line}:${i.column} ${i.message}`),
    [
      `8:${16 + 20_000 * 4} The file uses more than 20000 aliases; write the values out or use fewer anchors`,
    ],
  );
});
