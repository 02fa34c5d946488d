/**
 * Anchors in large files: what aliases add is limited, not the size of the file around them, an
 * anchor may be merged into thousands of steps, and the number of aliases has its own limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';

const DEFAULTS = ['x-defaults: &defaults', '  image: alpine:3.19', '  commands: [make]'];

test('an anchor merged into 5,000 steps is read, and a problem beside it is placed exactly', () => {
  // The YAML library refused one anchor used more than 1,000 times as an alias bomb.
  const lines = ["version: '1.0'", ...DEFAULTS, 'steps:'];
  for (let i = 0; i < 5000; i++)
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
  assert.equal(last?.name, 's4999');
  assert.deepEqual(last?.type === 'freestyle' && [last.image, last.commands], [
    'alpine:3.19',
    ['make'],
  ]);
});

test('one small alias in a large file is no alias bomb', () => {
  // 12,000 steps of 5 values each are some 120,000 values, all written out; the alias adds 3.
  const lines = ["version: '1.0'", ...DEFAULTS, 'steps:'];
  for (let i = 0; i < 12_000; i++) lines.push(`  s${i}: {image: alpine, commands: [echo ${i}]}`);
  lines.push('  merged:', '    <<: *defaults');
  const result = parsePipeline(lines.join('\n') + '\n');
  assert.ok(result.ok, result.issues[0]?.message);
  assert.equal(result.pipeline.steps.length, 12_001);
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
