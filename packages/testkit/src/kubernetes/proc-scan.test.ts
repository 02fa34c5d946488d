import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
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

test('processes naming a directory are found, but never this process or its ancestors', async () => {
  const dir = `/tmp/sluice-proc-scan-${process.pid}-${Date.now()}`;
  // The scan runs in a child of a bash whose command line names the directory, as a test
  // runner's arguments may: that bash is spared, a sleep beside it naming it too is found.
  const script = `
    import { processesMentioning } from ${JSON.stringify(new URL('./proc-scan.js', import.meta.url).href)};
    const found = await processesMentioning(${JSON.stringify(`${dir}/`)});
    process.stdout.write(JSON.stringify({ found, parent: process.ppid }));`;
  const sibling = spawn('bash', ['-c', 'sleep 30; :', `${dir}/x`], {
    stdio: 'ignore',
    detached: true,
  });
  await new Promise((resolve) => sibling.once('spawn', resolve));
  try {
    const parent = spawnSync(
      'bash',
      ['-c', `"$0" --input-type=module -e "$1"; : ${dir}/parent`, process.execPath, script],
      { encoding: 'utf8' },
    );
    assert.equal(parent.status, 0, parent.stderr);
    const { found, parent: parentPid } = JSON.parse(parent.stdout) as {
      found: number[];
      parent: number;
    };
    assert.ok(
      found.includes(sibling.pid ?? -1),
      `the sleep naming it was not found: ${found.join(', ')}`,
    );
    assert.ok(!found.includes(parentPid), 'the ancestor naming the directory would be killed');
  } finally {
    if (sibling.pid !== undefined) process.kill(-sibling.pid, 'SIGKILL'); // bash and its sleep
  }
});
