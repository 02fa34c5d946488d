import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { entryPath, rewriteTar } from './tar-rewrite.js';

/** A real archive made by GNU tar in pax format (long names as pax `path` records). */
function archiveOf(files: Record<string, string>): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-tar-'));
  try {
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), content);
    }
    return execFileSync('tar', ['--format=pax', '-C', dir, '-cf', '-', '.']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function rewrite(
  archive: Buffer,
  options: Parameters<typeof rewriteTar>[1],
  chunkSize = 100,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let i = 0; i < archive.length; i += chunkSize)
    chunks.push(archive.subarray(i, i + chunkSize));
  const out: Buffer[] = [];
  for await (const chunk of rewriteTar(Readable.from(chunks), options)) out.push(chunk);
  return Buffer.concat(out);
}

function list(archive: Buffer): string[] {
  return execFileSync('tar', ['-tf', '-'], { input: archive })
    .toString()
    .split('\n')
    .filter((l) => l !== '' && !l.endsWith('/'))
    .map(entryPath)
    .sort();
}

const longName = `${'deep/'.repeat(30)}file.txt`;

test('excluded entries are dropped, long pax names included, data intact', async () => {
  const archive = archiveOf({
    Dockerfile: 'FROM x\n',
    'node_modules/a/index.js': 'x'.repeat(3000),
    [longName]: 'long',
    'src/app.js': 'y'.repeat(1025),
  });
  const out = await rewrite(archive, {
    exclude: (p) => p === 'node_modules' || p.startsWith('node_modules/') || p.startsWith('deep'),
  });
  assert.deepEqual(list(out), ['Dockerfile', 'src/app.js']);
  const app = execFileSync('tar', ['-xOf', '-', './src/app.js'], { input: out }).toString();
  assert.equal(app, 'y'.repeat(1025));
});

test('a long name survives when kept', async () => {
  const out = await rewrite(archiveOf({ [longName]: 'long' }), {});
  assert.deepEqual(list(out), [longName]);
});

test('added files replace entries of the same name and end the archive', async () => {
  const out = await rewrite(
    archiveOf({ '.dockerignore': 'old\n', 'a.txt': 'a' }),
    { add: [{ name: '.dockerignore', content: Buffer.from('new\n') }] },
    7,
  );
  assert.deepEqual(list(out), ['.dockerignore', 'a.txt']);
  const content = execFileSync('tar', ['-xOf', '-', '.dockerignore'], { input: out }).toString();
  assert.equal(content, 'new\n');
});
