import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMountPoints, parseUnixTable } from './proc-scan.js';

test('mount points are field 5 of mountinfo, with octal escapes decoded', () => {
  const info = [
    '22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
    '90 22 0:50 / /tmp/sluice-kube-a/kubelet/pods/x/volumes/with\\040space rw - tmpfs tmpfs rw',
  ].join('\n');
  assert.deepEqual(parseMountPoints(info), [
    '/',
    '/tmp/sluice-kube-a/kubelet/pods/x/volumes/with space',
  ]);
});

test('unix sockets with a path are read from /proc/net/unix', () => {
  const table = [
    'Num       RefCount Protocol Flags    Type St Inode Path',
    '0000000000000000: 00000002 00000000 00010000 0001 01 4242 /run/containerd/s/abc',
    '0000000000000000: 00000003 00000000 00000000 0001 03 4343',
  ].join('\n');
  assert.deepEqual(parseUnixTable(table), [{ inode: '4242', path: '/run/containerd/s/abc' }]);
});
