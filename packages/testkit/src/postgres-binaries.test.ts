import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePasswdUser } from './postgres-binaries.js';

const PASSWD = [
  'root:x:0:0:root:/root:/bin/bash',
  'postgres:x:101:104:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash',
  'broken:x:abc:1::/:/bin/false',
  '',
].join('\n');

test('parsePasswdUser reads uid and gid of the named user', () => {
  assert.deepEqual(parsePasswdUser(PASSWD, 'postgres'), { uid: 101, gid: 104 });
  assert.deepEqual(parsePasswdUser(PASSWD, 'root'), { uid: 0, gid: 0 });
});

test('parsePasswdUser returns undefined for missing users and malformed ids', () => {
  assert.equal(parsePasswdUser(PASSWD, 'nobody'), undefined);
  assert.equal(parsePasswdUser(PASSWD, 'broken'), undefined);
  assert.equal(parsePasswdUser('', 'postgres'), undefined);
  assert.equal(parsePasswdUser(PASSWD, 'post'), undefined);
});
