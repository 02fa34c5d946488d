import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  catalogFromDefinitions,
  catalogFromDocuments,
  loadStepTypeCatalog,
} from './load-step-type-catalog.js';

function stepType(name: string, version: string, image = 'sluice/busybox:1'): string {
  return [
    "version: '1.0'",
    'kind: step-type',
    'metadata:',
    `  name: ${name}`,
    `  version: ${version}`,
    'spec:',
    '  steps:',
    `    run: { image: ${image}, commands: [echo] }`,
    '',
  ].join('\n');
}

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-step-types-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a directory is read with its sub-directories; .yml and .yaml, nothing else', (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'acme', 'deep'), { recursive: true });
  mkdirSync(join(dir, '.hidden'));
  writeFileSync(join(dir, 'a.yml'), stepType('acme/a', '1.0.0'));
  writeFileSync(join(dir, 'acme', 'b.yaml'), stepType('acme/b', '2.0.0'));
  writeFileSync(join(dir, 'acme', 'deep', 'b-1.yml'), stepType('acme/b', '1.0.0'));
  writeFileSync(join(dir, 'acme', 'README.md'), '# not a step type');
  writeFileSync(join(dir, '.hidden', 'c.yml'), stepType('acme/c', '1.0.0'));
  const catalog = loadStepTypeCatalog([dir], { fs });
  assert.deepEqual(catalog.locations, [dir]);
  assert.deepEqual(
    catalog.list().map((d) => `${d.name}@${d.version}`),
    ['acme/a@1.0.0', 'acme/b@2.0.0', 'acme/b@1.0.0'],
  );
  assert.equal(catalog.find('acme/b')?.version, '2.0.0');
  assert.equal(catalog.find('acme/b', '1.0.0')?.source, join(dir, 'acme', 'deep', 'b-1.yml'));
  assert.equal(catalog.find('acme/b', '3.0.0'), undefined);
  assert.deepEqual(catalog.problems, []);
});

test('the first directory wins for the same name@version; a missing one is still a location', (t) => {
  const [repo, shared] = [join(tempDir(t), 'repo'), tempDir(t)];
  const missing = join(shared, 'does-not-exist');
  mkdirSync(repo);
  writeFileSync(join(repo, 'x.yml'), stepType('acme/x', '1.0.0', 'repo-image'));
  writeFileSync(join(shared, 'x.yml'), stepType('acme/x', '1.0.0', 'shared-image'));
  writeFileSync(join(shared, 'x-newer.yml'), stepType('acme/x', '1.1.0', 'shared-image'));
  const extra = [{ name: 'acme/x', version: '1.1.0', source: 'control plane', text: 'unused' }];
  const catalog = loadStepTypeCatalog([missing, repo, shared], { fs, extra });
  assert.deepEqual(catalog.locations, [missing, repo, shared, 'control plane']);
  assert.match(catalog.find('acme/x', '1.0.0')?.text ?? '', /repo-image/);
  assert.equal(catalog.find('acme/x')?.source, join(shared, 'x-newer.yml'));
  assert.deepEqual(catalog.problems, []);
});

test('files that cannot be indexed are kept as problems; a broken one with a name is indexed', (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'bad-yaml.yml'), 'metadata: [\n');
  writeFileSync(join(dir, 'pipeline.yml'), "version: '1.0'\nsteps: {}\n");
  writeFileSync(join(dir, 'no-name.yml'), "version: '1.0'\nkind: step-type\nmetadata: {}\n");
  writeFileSync(
    join(dir, 'broken.yml'),
    stepType('acme/broken', '1.0.0').replace('steps:', 'stepz:'),
  );
  const catalog = loadStepTypeCatalog([dir], { fs });
  assert.deepEqual(
    catalog.list().map((d) => d.name),
    ['acme/broken'],
  );
  assert.deepEqual(
    catalog.problems.map((p) => `${p.file.slice(dir.length + 1)}:${p.line}:${p.column}`),
    ['bad-yaml.yml:2:1', 'no-name.yml:3:11', 'pipeline.yml:1:1'],
  );
  assert.match(catalog.problems[2]?.message ?? '', /^Not a step-type document: "kind" is null/);
});

test('symbolic links to step-type files and directories are followed', (t) => {
  const [dir, shared] = [tempDir(t), tempDir(t)];
  mkdirSync(join(shared, 'team'));
  writeFileSync(join(shared, 'one.yml'), stepType('acme/one', '1.0.0'));
  writeFileSync(join(shared, 'team', 'two.yml'), stepType('acme/two', '1.0.0'));
  symlinkSync(join(shared, 'one.yml'), join(dir, 'one.yml'));
  symlinkSync(join(shared, 'team'), join(dir, 'team'));
  symlinkSync(join(shared, 'nowhere'), join(dir, 'dangling'));
  const catalog = loadStepTypeCatalog([dir], { fs });
  assert.deepEqual(
    catalog.list().map((d) => d.name),
    ['acme/one', 'acme/two'],
  );
  assert.deepEqual(catalog.problems, []);
});

test('a file given where a directory is expected is not a crash', (t) => {
  const file = join(tempDir(t), 'x.yml');
  writeFileSync(file, stepType('acme/x', '1.0.0'));
  const catalog = loadStepTypeCatalog([file], { fs });
  assert.deepEqual(catalog.list(), []);
});

test('definitions from the control plane form one location', () => {
  const catalog = catalogFromDefinitions(
    [
      { name: 'acme/x', version: '1.0.0', source: 'control plane', text: 'a' },
      { name: 'acme/x', version: '1.0.0', source: 'control plane', text: 'b' },
    ],
    'control plane (acme)',
  );
  assert.deepEqual(catalog.locations, ['control plane (acme)']);
  assert.equal(catalog.find('acme/x')?.text, 'a');
});

test('documents held by the control plane: those that parse form the catalog, the others are named', () => {
  const { catalog, refused } = catalogFromDocuments(
    [
      { text: stepType('acme/good', '1.0.0'), source: 'control plane: acme/good:1.0.0' },
      { text: 'kind: step-type\nspec: [', source: 'control plane: acme/broken:1.0.0' },
    ],
    'control plane',
  );
  assert.deepEqual(catalog.locations, ['control plane']);
  assert.equal(catalog.find('acme/good')?.version, '1.0.0');
  assert.equal(catalog.find('acme/broken'), undefined);
  assert.deepEqual(refused, ['control plane: acme/broken:1.0.0']);
});
