import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { ensureDockerEngine } from './docker-engine.js';
import { createGitRepo } from './git-repo.js';
import { runCommand } from './run-command.js';
import { ensureTestImages, imageExists, TEST_IMAGES } from './test-images.js';

before(
  async () => {
    await ensureDockerEngine();
    await ensureTestImages();
  },
  { timeout: 300_000 },
);

async function dockerRun(args: readonly string[]): Promise<string> {
  const result = await runCommand('docker', ['run', '--rm', ...args]);
  assert.equal(result.code, 0, `docker run ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

test('the test images exist and carry their input hash label', async () => {
  for (const image of Object.values(TEST_IMAGES)) {
    assert.equal(await imageExists(image), true, image);
    const label = await runCommand('docker', [
      'image',
      'inspect',
      '--format',
      '{{ index .Config.Labels "io.sluice.image-hash" }}',
      image,
    ]);
    assert.match(label.stdout.trim(), /^[0-9a-f]{64}$/);
  }
  assert.equal(await imageExists('sluice/no-such-image:0'), false);
});

test('a second ensureTestImages rebuilds nothing', async () => {
  const { lines, images } = await ensureTestImages();
  assert.deepEqual(images, [TEST_IMAGES.shell, TEST_IMAGES.git, TEST_IMAGES.http]);
  assert.deepEqual(lines, [
    `${TEST_IMAGES.shell} up to date`,
    `${TEST_IMAGES.git} up to date`,
    `${TEST_IMAGES.http} up to date`,
  ]);
});

test('sluice/busybox:1 runs a shell with /tmp and root in /etc/passwd', async () => {
  assert.equal(await dockerRun([TEST_IMAGES.shell, 'sh', '-c', 'echo hi']), 'hi\n');
  const out = await dockerRun([
    TEST_IMAGES.shell,
    'sh',
    '-c',
    'id -un; stat -c %a /tmp; touch /tmp/x && echo ok',
  ]);
  assert.equal(out, 'root\n1777\nok\n');
});

test('sluice/git:1 has the host git version', async () => {
  const host = await runCommand('git', ['--version']);
  assert.equal(await dockerRun([TEST_IMAGES.git, 'git', '--version']), host.stdout);
});

test('sluice/http:1 has the host curl and jq, and curl finds the CA certificates', async () => {
  const curl = await runCommand('curl', ['--version']);
  const script =
    "curl --version | head -n 1; jq -n --arg a '\"x\"' '{a: $a}' -c; ls /etc/ssl/certs";
  const out = await dockerRun([TEST_IMAGES.http, 'sh', '-c', script]);
  assert.equal(out, `${curl.stdout.split('\n')[0]}\n{"a":"\\"x\\""}\nca-certificates.crt\n`);
});

test('sluice/git:1 clones a bind-mounted repo over file:// and checks out each branch', async () => {
  const readme = '# Hello from the testkit\n';
  const repo = await createGitRepo({
    files: { 'README.md': readme, 'src/app.txt': 'main\n' },
    branches: { feature: { 'src/app.txt': 'feature\n' } },
  });
  try {
    const script = [
      'git clone -q file:///src /w/main && cat /w/main/README.md && git -C /w/main rev-parse HEAD',
      'git clone -q -b feature file:///src /w/feature && cat /w/feature/src/app.txt && git -C /w/feature rev-parse HEAD',
    ].join(' && ');
    const out = await dockerRun([
      '-v',
      `${repo.path}:/src:ro`,
      TEST_IMAGES.git,
      'sh',
      '-c',
      script,
    ]);
    assert.equal(out, `${readme}${repo.commits['main']}\nfeature\n${repo.commits['feature']}\n`);
    assert.equal(await readFile(`${repo.path}/HEAD`, 'utf8'), 'ref: refs/heads/main\n');
  } finally {
    await repo.cleanup();
  }
});
