/**
 * Positions deep inside a large pipeline: line:column and field path stay exact whatever the
 * style (block, flow, block scalar) and through anchors, aliases and merge keys, now that a
 * path is found through per-map key indexes and one alias walk instead of scans. Hundreds of
 * steps are enough to place problems among; size is bench/pipeline-validate's (1 MiB, timed) and
 * the server's api-pipeline-parse test's (1 MiB, a problem placed on its last step).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatPath } from './pipeline-issue.js';
import { parsePipeline } from './parse-pipeline.js';

/** Writes lines and remembers the 1-based line of the marked ones. */
function writer() {
  const lines: string[] = [];
  const marks = new Map<string, number>();
  return {
    lines,
    add(text: string, mark?: string) {
      lines.push(...text.split('\n'));
      if (mark !== undefined) marks.set(mark, lines.length);
    },
    line(mark: string): number {
      const at = marks.get(mark);
      assert.ok(at !== undefined, mark);
      return at;
    },
  };
}

/**
 * Good steps in three styles, so the problems sit among thousands of keys; every hundredth
 * merges `&base` (the library refuses an anchor used more than 1,000 times).
 */
function filler(w: ReturnType<typeof writer>, from: number, count: number): void {
  for (let i = from; i < from + count; i++) {
    if (i % 100 === 1) w.add(`  s${i}:\n    <<: *base\n    title: step ${i}`);
    else if (i % 2 === 0) w.add(`  s${i}: {image: alpine, commands: [echo ${i}]}`);
    else w.add(`  s${i}:\n    image: alpine\n    commands:\n      - |\n        echo ${i}`);
  }
}

function withBase(w: ReturnType<typeof writer>): void {
  w.add("version: '1.0'");
  w.add('x-base: &base');
  w.add('  image: alpine');
  w.add('  commands: [make]');
}

function located(text: string): string[] {
  const result = parsePipeline(text);
  assert.equal(result.ok, false);
  return result.issues.map((i) => `${i.line}:${i.column} ${formatPath(i.path)} ${i.message}`);
}

test('problems after hundreds of steps are placed exactly, in every style and through merges', () => {
  const w = writer();
  withBase(w);
  w.add('x-broken: &broken');
  w.add('  image: alpine');
  w.add('  timeout: [1]', 'anchored-timeout');
  w.add('steps:');
  filler(w, 0, 600);
  w.add('  flow: {image: alpine, comands: [x]}', 'flow');
  filler(w, 600, 300);
  w.add('  block:');
  w.add('    image: alpine');
  w.add('    environment:');
  w.add('      - A=1');
  w.add('    fail_fast: maybe', 'block');
  filler(w, 900, 300);
  w.add('  merged:');
  w.add('    <<: [*base, *broken]');
  w.add('    title: merged');
  filler(w, 1200, 300);
  w.add('  condition:');
  w.add('    image: alpine');
  w.add('    when:');
  w.add('      condition:');
  w.add('        all:');
  w.add('          bad: |');
  w.add("            '${{CF_BRANCH}}' == 'main' &&", 'condition');
  w.add('  last:');
  w.add('    image: alpine');
  w.add('    imagee: alpine', 'last');
  const issues = located(w.lines.join('\n') + '\n');
  const flowLine = w.line('flow');
  assert.deepEqual(issues, [
    `${w.line('anchored-timeout')}:12 steps.merged.timeout "timeout" must be a duration like 45m or 1.5h, got a list`,
    `${flowLine}:25 steps.flow.comands Unknown field "comands" in freestyle step "flow" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "commands"?`,
    `${w.line('block')}:16 steps.block.fail_fast "fail_fast" must be true, false or a map, got the string "maybe"`,
    `${w.line('condition')}:42 steps.condition.when.condition.all.bad Unexpected end of expression`,
    `${w.line('last')}:5 steps.last.imagee Unknown field "imagee" in freestyle step "last" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "image"?`,
  ]);
});

test('a value that is an alias is placed at its anchor; an alias to nothing at the alias', () => {
  const w = writer();
  withBase(w);
  w.add('steps:');
  filler(w, 0, 400);
  w.add('  template: &template');
  w.add('    image: alpine', 'template');
  w.add('    working_directory: [x]', 'anchored');
  filler(w, 400, 400);
  w.add('  copy: *template');
  w.add('  also:');
  w.add('    image: *nowhere', 'unknown-alias');
  const issues = located(w.lines.join('\n') + '\n');
  // An alias to a missing anchor is a structure problem: it is the only one reported.
  assert.deepEqual(issues, [
    `${w.line('unknown-alias')}:12  Alias "*nowhere" has no anchor "&nowhere" before it`,
  ]);
  w.lines.pop();
  w.lines.push('    image: *template');
  const rest = located(w.lines.join('\n') + '\n');
  const anchored = w.line('anchored');
  // Each problem is where the value is written: through `copy: *template` and
  // `image: *template` alike, in the anchored map.
  assert.deepEqual(rest, [
    `${w.line('template')}:5 steps.also.image "image" must be a string, got a map`,
    `${anchored}:24 steps.template.working_directory "working_directory" must be a string, got a list`,
    `${anchored}:24 steps.copy.working_directory "working_directory" must be a string, got a list`,
  ]);
});

test('a duplicate key among a thousand is placed at the duplicate and named', () => {
  const w = writer();
  withBase(w);
  w.add('steps:');
  filler(w, 0, 1000);
  w.add('  s17: {image: alpine}', 'duplicate');
  filler(w, 5000, 100);
  const issues = located(w.lines.join('\n') + '\n');
  // The first s17 is the one filler wrote.
  assert.deepEqual(issues, [
    `${w.line('duplicate')}:3  Duplicate key "s17"; it is also at line 53, column 3`,
  ]);
});

test('a duplicate key after a key with no value is placed at the duplicate, on its own line', () => {
  // The YAML library placed it at the end of the line above ("title:") and could not name it.
  const issues = located(
    [
      "version: '1.0'",
      'steps:',
      '  a:',
      '    image: alpine',
      '    title:',
      '    image: busybox',
    ].join('\n'),
  );
  assert.deepEqual(issues, ['6:5  Duplicate key "image"; it is also at line 4, column 5']);
});

test('duplicate keys in flow maps, with anchors, tags and quotes, are found as before', () => {
  const issues = located(
    [
      "version: '1.0'",
      'steps:',
      '  a: {image: alpine, "image": busybox}',
      '  b:',
      '    &x image: alpine',
      '    !!str image: busybox',
      '  c: {image: alpine, 1: x, "1": y, .nan: 1, .nan: 2, <<: {}, <<: {}}',
    ].join('\n'),
  );
  assert.deepEqual(issues, [
    '3:22  Duplicate key "image"; it is also at line 3, column 7',
    '6:11  Duplicate key "image"; it is also at line 5, column 8',
  ]);
});
