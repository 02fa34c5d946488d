/**
 * Reads /proc to find what a test cluster left behind: processes whose command line names the
 * cluster's directory (containerd shims), the unix sockets such a process listens on, and the
 * mounts under the directory (kubelet volumes, container root filesystems, network namespaces).
 * @module
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import { runCommand } from '../run-command.js';

/**
 * PIDs whose command line contains `needle`, other than ours and our ancestors': a test runner
 * above us may name the directory too, and the result is what a teardown SIGKILLs.
 */
export async function processesMentioning(needle: string): Promise<number[]> {
  const pids: number[] = [];
  const spared = await ancestorsAndSelf();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name) || spared.has(Number(name))) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').some((arg) => arg.includes(needle))) pids.push(Number(name));
  }
  return pids;
}

/** This process and every process above it, up to init. */
export async function ancestorsAndSelf(): Promise<Set<number>> {
  const chain = new Set<number>();
  let pid = process.pid;
  while (pid > 1 && !chain.has(pid)) {
    chain.add(pid);
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // Fields after the command (which may hold spaces): state, ppid.
    pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  return chain;
}

/** Paths of the named unix sockets the process holds open (from /proc/net/unix). */
export async function unixSocketPaths(pid: number): Promise<string[]> {
  const inodes = new Set<string>();
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined) inodes.add(inode);
  }
  const table = await readFile(`/proc/${pid}/net/unix`, 'utf8').catch(() => '');
  return parseUnixTable(table)
    .filter((entry) => inodes.has(entry.inode))
    .map((entry) => entry.path);
}

/** Rows of /proc/net/unix that have a path: "Num RefCount Protocol Flags Type St Inode Path". */
export function parseUnixTable(table: string): { inode: string; path: string }[] {
  const rows: { inode: string; path: string }[] = [];
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const inode = fields[6];
    const path = fields[7];
    if (inode !== undefined && path !== undefined && path.startsWith('/'))
      rows.push({ inode, path });
  }
  return rows;
}

/** Mount points at or under `dir`, deepest first (the order to unmount them in). */
export async function mountsUnder(dir: string): Promise<string[]> {
  const text = await readFile('/proc/self/mountinfo', 'utf8');
  return parseMountPoints(text)
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

/**
 * Unmounts every mount at or under `dir`, deepest first: a busy one (a process still holds it
 * open) is detached, and the kernel frees it when released. Afterwards `dir` can be removed.
 */
export async function unmountUnder(dir: string): Promise<void> {
  for (const point of await mountsUnder(dir)) {
    const result = await runCommand('umount', [point]);
    if (result.code !== 0) await runCommand('umount', ['-l', point]);
  }
}

/** Field 5 of each /proc/self/mountinfo line, with its octal escapes (\040 for space) decoded. */
export function parseMountPoints(mountinfo: string): string[] {
  return mountinfo
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((point): point is string => point !== undefined && point !== '')
    .map((point) =>
      point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))),
    );
}
