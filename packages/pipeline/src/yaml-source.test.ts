/**
 * Odd YAML that once crashed, hung or printed to the process: recursive aliases, alias bombs,
 * keys that are maps, merge keys over scalars, deep nesting, tagged values, BOM and CRLF.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';

function issuesOf(lines: string[]): string[] {
  const result = parsePipeline(lines.join('\n') + '\n');
  assert.equal(result.ok, false, 'expected the pipeline to be rejected');
  return result.issues.map((i) => `${i.line}:${i.column} ${i.message}`);
}

test('an alias inside the value it names is reported, not followed forever', () => {
  // A parallel step whose children are the steps map itself used to overflow the stack.
  const issues = issuesOf([
    "version: '1.0'",
    'steps: &steps',
    '  build:',
    '    type: parallel',
    '    steps: *steps',
  ]);
  assert.deepEqual(issues, [
    '5:12 Alias "*steps" is inside the value it refers to, which would repeat forever',
  ]);
});

test('an alias without an anchor is placed at the alias', () => {
  const issues = issuesOf(["version: '1.0'", 'steps:', '  build:', '    image: *nope']);
  assert.deepEqual(issues, ['4:12 Alias "*nope" has no anchor "&nope" before it']);
});

test('an alias bomb is stopped before it expands, at the biggest alias', () => {
  const ten = (item: string) => `[${Array(10).fill(item).join(', ')}]`;
  // Counting every node, pair and key: a = 11, b = 111, c = 1111, d = 11111, e = 111111;
  // the root adds its own 1, three per scalar pair, two per pair key and value, and the steps
  // map (9): 1 + 3 + 13 + 113 + 1113 + 11113 + 111113 + 9 = 123478.
  const issues = issuesOf([
    "version: '1.0'",
    `a: &a ${ten('x')}`,
    `b: &b ${ten('*a')}`,
    `c: &c ${ten('*b')}`,
    `d: &d ${ten('*c')}`,
    `e: &e ${ten('*d')}`,
    'steps:',
    '  build:',
    '    image: alpine',
  ]);
  assert.deepEqual(issues, [
    '6:8 Aliases expand the file to 123478 values, more than 100000; "*d" alone repeats 11111',
  ]);
});

test('keys that are lists or maps are reported, without a warning on the process', async () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  try {
    const issues = issuesOf([
      "version: '1.0'",
      'steps:',
      '  ? [build]',
      '  : image: alpine',
      '  ? {name: test}',
      '  : image: alpine',
    ]);
    assert.deepEqual(issues, [
      '3:5 A key must be a name, got a list',
      '5:5 A key must be a name, got a map',
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings, []);
  } finally {
    process.off('warning', onWarning);
  }
});

test('a merge key over a scalar is placed at the scalar', () => {
  const issues = issuesOf([
    "version: '1.0'",
    'steps:',
    '  build:',
    '    <<: alpine',
    '    image: x',
  ]);
  assert.deepEqual(issues, ['4:9 Merge key "<<" takes a map or a list of maps, got "alpine"']);
});

test('deeply nested flow lists stop at the first level past the limit', () => {
  // The root map is level 1, steps 2, build 3, so the n-th "[" is level 3 + n: the 98th is
  // level 101. "    image: " is 11 characters, so the n-th "[" is at column 11 + n = 109.
  const issues = issuesOf([
    "version: '1.0'",
    'steps:',
    '  build:',
    `    image: ${'['.repeat(150)}${']'.repeat(150)}`,
  ]);
  assert.deepEqual(issues, ['4:109 Values are nested more than 100 levels deep']);
});

test('deeply nested block maps stop at the first level past the limit', () => {
  // Line 5 holds a key of build (level 3); the map on line n >= 6 is level n - 2 and its key
  // one deeper, n - 1, so the key on line 102 is level 101. Line n is indented n - 1 spaces,
  // so that key is at column n.
  const nested = Array.from({ length: 200 }, (_, i) => `${' '.repeat(4 + i)}k:`);
  const issues = issuesOf(["version: '1.0'", 'steps:', '  build:', '    image: alpine', ...nested]);
  assert.deepEqual(issues, ['102:102 Values are nested more than 100 levels deep']);
});

test('nesting that exhausts the YAML parser itself is one issue, not a crash', () => {
  // Where the parser's stack runs out depends on the caller's, so only the message is fixed.
  const nested = Array.from({ length: 5000 }, (_, i) => `${' '.repeat(4 + i)}k:`);
  const result = parsePipeline(["version: '1.0'", 'steps:', '  build:', ...nested].join('\n'));
  assert.equal(result.ok, false);
  assert.deepEqual(
    result.issues.map((i) => i.message),
    ['Values are nested too deeply to read'],
  );
});

test('tagged values are named by what they are', () => {
  // A tagged node's position is its value's, after the tag.
  const issues = issuesOf([
    "version: '1.0'",
    'steps:',
    '  set: !!set {? image}',
    '  omap: !!omap [image: alpine]',
    '  bytes:',
    '    image: !!binary aGVsbG8=',
  ]);
  assert.deepEqual(issues, [
    '3:14 Step "set" must be a map of fields, got a !!set',
    '4:16 Step "omap" must be a map of fields, got an !!omap',
    '6:21 "image" must be a string, got binary data',
  ]);
});

test('a byte order mark and CRLF line ends do not move positions', () => {
  // The mark is invisible in an editor, so the quote of '2.0' is still column 10.
  const text =
    "\uFEFFversion: '2.0'\r\nsteps:\r\n  build:\r\n    image: alpine\r\n    when:\r\n" +
    "      condition:\r\n        all:\r\n          incomplete: '1 +'\r\n    comands: [x]\r\n";
  const result = parsePipeline(text);
  assert.equal(result.ok, false);
  assert.deepEqual(
    result.issues.map((i) => `${i.line}:${i.column}`),
    ['1:10', '8:27', '9:5'],
  );
});

test('a step needs a name, and an empty key is placed at the key', () => {
  const issues = issuesOf(["version: '1.0'", 'steps:', '  ~:', '    imgae: x']);
  assert.deepEqual(issues, [
    '3:3 A step needs a name; this one has an empty key',
    '3:3 Missing required field "image" in freestyle step ""',
    '4:5 Unknown field "imgae" in freestyle step "" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "image"?',
  ]);
});

test('positions count lines in the text even where the parser loses track', () => {
  // The parser's own line counter missed the break inside "busybox\n    cmd" after the stray
  // "]", and put later errors on line 4 at columns past its end.
  const result = parsePipeline(
    ["version: '1.0'", 'steps:', '  build:', '   ] image: busybox', '    cmd: [x]'].join('\n'),
  );
  assert.equal(result.ok, false);
  const lines = ["version: '1.0'", 'steps:', '  build:', '   ] image: busybox', '    cmd: [x]'];
  for (const issue of result.issues) {
    assert.ok(issue.column <= (lines[issue.line - 1]?.length ?? 0) + 1, JSON.stringify(issue));
  }
});
