import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '@sluice/testkit';
import { runSluice } from './cli-harness.js';

const dir = await makeTempDir('sluice-e2e-validate-');
after(() => dir.cleanup());

function write(name: string, text: string): string {
  const path = join(dir.path, name);
  writeFileSync(path, text);
  return path;
}

test('a valid example validates with exit code 0', async () => {
  const result = await runSluice(['validate', 'examples/hello/codefresh.yml']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /examples\/hello\/codefresh\.yml is valid: 3 steps/);
});

test('every problem is printed with file:line:column, a suggestion and a caret', async () => {
  const file = write(
    'broken.yml',
    [
      'version: "1.0"',
      'steps:',
      '  build:',
      '    image: alpine',
      '    comands:',
      '      - make',
      '  deploy:',
      '    type: freestle',
      '    image: alpine',
      '',
    ].join('\n'),
  );
  const result = await runSluice(['validate', file]);
  assert.equal(result.code, 1);
  assert.ok(
    result.stderr.includes(
      `${file}:5:5: warning: Unknown field "comands" in freestyle step "build" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "commands"? (at steps.build.comands)`,
    ),
    result.stderr,
  );
  assert.ok(
    result.stderr.includes(
      `${file}:8:11: error: Unknown step type "freestle"; did you mean "freestyle"? (at steps.deploy.type)`,
    ),
    result.stderr,
  );
  assert.match(result.stderr, /5 \| {5}comands:\n\s+\| {5}\^/);
  assert.match(result.stderr, /1 error, 1 warning/);
});

test('-o json lists the issues for tools', async () => {
  const file = write('bad-version.yml', 'version: "2.0"\nsteps:\n  a:\n    image: x\n');
  const result = await runSluice(['validate', file, '-o', 'json']);
  assert.equal(result.code, 1);
  const report = JSON.parse(result.stdout) as {
    valid: boolean;
    issues: { line: number; column: number; message: string }[];
  };
  assert.equal(report.valid, false);
  assert.deepEqual(
    report.issues.map((i) => [i.line, i.column]),
    [[1, 10]],
  );
  assert.match(report.issues[0]?.message ?? '', /"version" must be "1.0"/);
});

test('several files are checked in one run: each reported under its name, exit 1 if any fails', async () => {
  const bad = write('several-bad.yml', 'version: "2.0"\nsteps:\n  a:\n    image: x\n');
  const good = 'examples/hello/codefresh.yml';
  const text = await runSluice(['validate', good, bad]);
  assert.equal(text.code, 1, text.stderr);
  assert.match(text.stdout, /examples\/hello\/codefresh\.yml is valid: 3 steps/);
  assert.ok(text.stderr.includes(`${bad}:1:10: error:`), text.stderr);

  const json = await runSluice(['validate', good, bad, '-o', 'json']);
  assert.equal(json.code, 1, json.stderr);
  const list = JSON.parse(json.stdout) as {
    kind: string;
    items: { file: string; valid: boolean; issues: { line: number }[] }[];
  };
  assert.equal(list.kind, 'List');
  assert.deepEqual(
    list.items.map((i) => [i.file, i.valid, i.issues.map((issue) => issue.line)]),
    [
      [good, true, []],
      [bad, false, [1]],
    ],
  );
  const missing = await runSluice(['validate', good, 'no/such/file.yml']);
  assert.equal(missing.code, 66, 'a missing file among several fails the command');
  assert.equal(missing.stdout, '', 'nothing is reported before every file is read');
});

test('a missing file names the file and exits 66', async () => {
  const result = await runSluice(['validate', 'no/such/file.yml']);
  assert.equal(result.code, 66);
  assert.match(result.stderr, /Pipeline file no\/such\/file.yml does not exist/);
});

test('an unknown command exits 2 and says which word is not a command', async () => {
  const result = await runSluice(['frobnicate']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /Unknown command "frobnicate" for "sluice"/);
});
