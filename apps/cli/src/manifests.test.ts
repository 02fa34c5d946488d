import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseManifests } from './manifest-file.js';
import { pipelineManifest } from './manifests.js';

const PIPELINE = `apiVersion: sluice/v1
kind: Pipeline
metadata:
  name: build
  project: web
spec:
  yaml: |
    version: "1.0"
    steps: {}
`;

test('documents and lists parse in file order, with where a block-scalar pipeline starts', () => {
  const text = `apiVersion: sluice/v1\nkind: Project\nmetadata:\n  name: web\n---\n${PIPELINE}`;
  const parsed = parseManifests(text, 'f.yaml');
  assert.deepEqual(
    parsed.map((p) => p.manifest.kind),
    ['Project', 'Pipeline'],
  );
  // `yaml: |` is line 12, so the pipeline's line 1 is the file's line 13; it is indented 4.
  assert.deepEqual(parsed[1]?.yamlOrigin, { line: 12, indent: 4 });
  const list = parseManifests(
    `kind: List\nitems:\n  - apiVersion: sluice/v1\n    kind: Project\n    metadata: {name: a}\n`,
    'l.yaml',
  );
  assert.equal(list[0]?.manifest.metadata.name, 'a');
});

test('problems name file:line:column and the field', () => {
  const typo = PIPELINE.replace('  project: web', '  projcet: web');
  assert.throws(() => parseManifests(typo, 'f.yaml'), /f\.yaml:4:3: .*\(metadata\.project\)/);
  assert.throws(
    () => parseManifests(PIPELINE.replace('kind: Pipeline', 'kind: Pipline'), 'f.yaml'),
    /f\.yaml:2:7: .*\(kind\)/,
  );
  assert.throws(() => parseManifests('a: [\n', 'bad.yaml'), /bad\.yaml:\d+:\d+: /);
  assert.throws(() => parseManifests('', 'empty.yaml'), /nothing to apply/);
});

test('an alias bomb or a pipeline over 1 MiB is a problem of the file, at its place', () => {
  let bomb = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (const [name, previous] of ['ba', 'cb', 'dc', 'ed', 'fe', 'gf', 'hg', 'ih'])
    bomb += `${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]\n`;
  assert.throws(
    () => parseManifests(bomb, 'bomb.yaml'),
    (err: Error & { code?: string }) =>
      err.code === 'SLUICE_MANIFEST_INVALID' &&
      /^bomb\.yaml:\d+:\d+: Aliases expand/.test(err.message),
  );
  assert.throws(() => parseManifests('a: *nowhere\n', 'x.yaml'), /^InputError: x\.yaml:1:4: Alias/);
  const line = `    # ${'x'.repeat(94)}\n`;
  const big = PIPELINE + line.repeat(Math.ceil(1_100_000 / line.length));
  assert.throws(
    () => parseManifests(big, 'big.yaml'),
    (err: Error & { code?: string }) =>
      err.code === 'SLUICE_PIPELINE_TOO_LARGE' &&
      /^big\.yaml:7:9: the YAML of pipeline web\/build \(spec\.yaml\) is \d+ bytes; the limit is 1048576 bytes/.test(
        err.message,
      ),
  );
});

test('a pipeline from the API becomes a manifest that parses back; secrets lose their value', () => {
  const manifest = pipelineManifest({
    id: 'pip_1',
    project: 'web',
    name: 'build',
    yaml: 'version: "1.0"\n# kept\nsteps: {}\n',
    specTemplate: null,
    runtimeEnvironment: null,
    maxConcurrentBuilds: 2,
    retention: { days: 90, builds: 1000 },
    variables: [
      { name: 'A', value: '1', secret: false },
      { name: 'S', value: null, secret: true },
    ],
    createdAt: '',
    updatedAt: '',
  });
  assert.deepEqual(manifest.spec.variables, [
    { name: 'A', value: '1' },
    { name: 'S', secret: true },
  ]);
  assert.deepEqual(manifest.spec.retention, { days: 90, builds: 1000 });
  const back = parseManifests(JSON.stringify(manifest), 'm.json');
  assert.deepEqual(back[0]?.manifest, manifest);
});

test('a pipeline whose definition is in its repository: specTemplate, round-tripped; not both', () => {
  const specTemplate = {
    location: 'git' as const,
    repo: 'acme/web',
    path: '.sluice/ci.yml',
    revision: 'main',
    context: 'github',
  };
  const manifest = pipelineManifest({
    id: 'pip_2',
    project: 'web',
    name: 'from-repo',
    yaml: '',
    specTemplate,
    runtimeEnvironment: null,
    maxConcurrentBuilds: null,
    retention: null,
    variables: [],
    createdAt: '',
    updatedAt: '',
  });
  assert.deepEqual(manifest.spec.specTemplate, specTemplate);
  assert.equal(manifest.spec.yaml, undefined);
  // No retention of its own: none in the manifest, so applying it keeps the server's default.
  assert.equal('retention' in manifest.spec, false);
  assert.deepEqual(parseManifests(JSON.stringify(manifest), 'm.json')[0]?.manifest, manifest);
  // The path defaults as Codefresh's does.
  const short = PIPELINE.replace(
    / {2}yaml: \|[\s\S]*$/,
    '  specTemplate: {location: git, repo: acme/web}\n',
  );
  const parsed = parseManifests(short, 's.yaml')[0]?.manifest;
  assert.equal(parsed?.kind === 'Pipeline' ? parsed.spec.specTemplate?.path : '', 'codefresh.yml');
  // Both, or a path out of the repository, are refused at their place.
  const both = short.replace('  specTemplate:', '  yaml: "version: 1"\n  specTemplate:');
  assert.throws(
    () => parseManifests(both, 'b.yaml'),
    /b\.yaml:\d+:\d+: give the pipeline its definition once/,
  );
  const escape = short.replace('repo: acme/web', 'repo: acme/web, path: ../../etc/passwd');
  assert.throws(
    () => parseManifests(escape, 'e.yaml'),
    /e\.yaml:\d+:\d+: a path inside the repository.*specTemplate\.path/,
  );
  const credentials = short.replace(
    'repo: acme/web',
    'repo: "https://u:tok@git.example.com/a/b.git"',
  );
  assert.throws(() => parseManifests(credentials, 'c.yaml'), /without credentials/);
});
