import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '@sluice/testkit';
import { gitIntegrationsForRun } from './git-integrations.js';

test('--git-integrations FILE gives integrations by name, a flag of the same name wins', async () => {
  const dir = await makeTempDir('sluice-git-integrations-');
  try {
    writeFileSync(join(dir.path, 'token.txt'), 'file-token\n');
    writeFileSync(join(dir.path, 'id_key'), '-----BEGIN OPENSSH PRIVATE KEY-----\nAAA\n');
    writeFileSync(
      join(dir.path, 'git.yml'),
      [
        'github-main: { kind: github, token: yaml-token }',
        'lab: { kind: gitlab, url: "https://gitlab.example.com", username: ci, tokenFile: token.txt }',
        'box: { kind: git, url: "ssh://git.example.com", sshKeyFile: id_key }',
      ].join('\n'),
    );
    const settings = gitIntegrationsForRun({
      flags: ['github-main=token:flag-token'],
      file: 'git.yml',
      cwd: dir.path,
    });
    assert.deepEqual(settings, [
      { name: 'github-main', kind: 'github', url: '', token: 'flag-token' },
      {
        name: 'lab',
        kind: 'gitlab',
        url: 'https://gitlab.example.com',
        username: 'ci',
        token: 'file-token',
      },
      {
        name: 'box',
        kind: 'git',
        url: 'ssh://git.example.com',
        sshKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nAAA\n',
      },
    ]);
  } finally {
    await dir.cleanup();
  }
});

test('a bad git integrations file or flag is refused naming the file, the integration and the field', async () => {
  const dir = await makeTempDir('sluice-git-integrations-');
  try {
    const refused = (yaml: string, pattern: RegExp) => {
      writeFileSync(join(dir.path, 'git.yml'), yaml);
      assert.throws(
        () => gitIntegrationsForRun({ flags: [], file: 'git.yml', cwd: dir.path }),
        (err: Error & { code?: string }) =>
          err.code === 'SLUICE_CLI_BAD_GIT_INTEGRATION' &&
          pattern.test(err.message) &&
          !err.message.includes('s3cret'),
      );
    };
    refused('gh: { kind: svn, token: s3cret }', /git\.yml: gh\.kind: "svn" is not one of github/);
    refused('gh: { kind: github, tokn: s3cret }', /git\.yml: gh\.tokn: unknown field/);
    refused(
      'gh: { kind: github }',
      /git\.yml: gh: give exactly one of token, tokenFile and sshKeyFile/,
    );
    refused(
      'gh: { kind: github, tokenFile: missing.txt }',
      /gh\.tokenFile: cannot read .*missing\.txt: ENOENT/,
    );
    refused('- a\n- b', /expected a map of integration name/);
    assert.throws(
      () => gitIntegrationsForRun({ flags: ['gh=token:a', 'gh=token:b'], cwd: dir.path }),
      /--git-integration names "gh" twice/,
    );
  } finally {
    await dir.cleanup();
  }
});
