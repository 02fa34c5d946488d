/**
 * Messages for the mistakes real pipelines make (issue 17): a badly indented key after a blank
 * line is placed at the key, a duplicate key names both places, and a matrix environment written
 * flat says how to nest it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';

function problems(lines: string[]): string[] {
  const result = parsePipeline(lines.join('\n') + '\n');
  assert.equal(result.ok, false);
  return result.issues.map((i) => `${i.line}:${i.column} ${i.message}`);
}

test('a key indented unlike its siblings is placed at the key, past blank and comment lines', () => {
  assert.deepEqual(
    problems([
      "version: '1.0'",
      'steps:',
      '  build:',
      '    image: alpine',
      '',
      '    # the commands',
      '   commands:',
      '      - make',
    ]),
    [
      '7:4 Key "commands" is not indented like the other keys of its map: it is at column 4, the key above it at column 5',
    ],
  );
});

test('a duplicate key names the key and where it was written first', () => {
  assert.deepEqual(
    problems([
      "version: '1.0'",
      'steps:',
      '  build:',
      '    image: alpine',
      '    commands: [make]',
      '    image: node',
    ]),
    ['6:5 Duplicate key "image"; it is also at line 4, column 5'],
  );
});
