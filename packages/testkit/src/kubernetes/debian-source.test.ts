import { test } from 'node:test';
import assert from 'node:assert/strict';
import { debSrcStanzas } from './debian-source.js';

const DEB822 = `Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
`;

test('a deb822 bookworm stanza becomes a deb-src stanza for bookworm main only', () => {
  const out = debSrcStanzas([{ name: 'debian.sources', text: DEB822 }], { suite: 'bookworm' });
  assert.equal(
    out,
    [
      'Types: deb-src',
      'URIs: http://deb.debian.org/debian',
      'Suites: bookworm',
      'Components: main',
      'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg',
      '',
    ].join('\n'),
  );
});

test('one-line sources are read too, with signed-by, and mirrors are listed once', () => {
  const list = [
    '# a comment',
    'deb [arch=amd64 signed-by=/etc/apt/keyrings/debian.gpg] http://mirror.example/debian bookworm main contrib',
    'deb http://mirror.example/debian bookworm main',
    'deb http://other.example/debian trixie main',
  ].join('\n');
  const out = debSrcStanzas([{ name: 'sources.list', text: list }], { suite: 'bookworm' });
  assert.equal(out.match(/^Types: deb-src$/gm)?.length, 1);
  assert.match(out, /^URIs: http:\/\/mirror\.example\/debian$/m);
  assert.match(out, /^Signed-By: \/etc\/apt\/keyrings\/debian\.gpg$/m);
  assert.doesNotMatch(out, /other\.example/);
});

test('disabled stanzas, other suites and other files give nothing', () => {
  const disabled = `Types: deb\nURIs: http://x/debian\nSuites: bookworm\nComponents: main\nEnabled: no\n`;
  const files = [
    { name: 'off.sources', text: disabled },
    {
      name: 'node.sources',
      text: 'Types: deb\nURIs: https://deb.nodesource.com/node_20.x\nSuites: nodistro\n',
    },
    { name: 'google.list.disabled', text: 'deb http://y/debian bookworm main' },
  ];
  assert.equal(debSrcStanzas(files, { suite: 'bookworm' }), '');
});
