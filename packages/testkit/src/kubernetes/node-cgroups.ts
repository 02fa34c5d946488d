/**
 * The cgroup that holds a test node's pods (the kubelet's `cgroupRoot`), one per cluster, so
 * teardown can kill every pod process by reading that tree and then remove it. Made in every
 * mounted hierarchy (cgroup v1 controllers, name=systemd, and the unified v2 mount if any).
 * @module
 */
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const CGROUP_MOUNT = '/sys/fs/cgroup';

/** The directories for `cgroup` (e.g. /sluice-ab12cd) in each mounted hierarchy. */
export async function cgroupDirs(cgroup: string): Promise<string[]> {
  const entries = await readdir(CGROUP_MOUNT, { withFileTypes: true }).catch(() => []);
  const hierarchies = entries.filter((e) => e.isDirectory()).map((e) => join(CGROUP_MOUNT, e.name));
  // A pure cgroup v2 machine mounts the unified hierarchy at /sys/fs/cgroup itself.
  const isV2Root = await readFile(join(CGROUP_MOUNT, 'cgroup.controllers'), 'utf8').then(
    () => true,
    () => false,
  );
  if (isV2Root) return [join(CGROUP_MOUNT, cgroup)];
  return hierarchies.map((hierarchy) => join(hierarchy, cgroup));
}

/** Creates the cgroup everywhere; cpuset needs its cpus and mems copied from the parent. */
export async function createCgroup(cgroup: string): Promise<void> {
  for (const dir of await cgroupDirs(cgroup)) {
    await mkdir(dir, { recursive: true });
    for (const file of ['cpuset.cpus', 'cpuset.mems']) {
      const parent = await readFile(join(dir, '..', file), 'utf8').catch(() => undefined);
      if (parent !== undefined) await writeFile(join(dir, file), parent.trim() || '0');
    }
  }
}

/** Every PID in the cgroup trees (all hierarchies, all descendants). */
export async function cgroupPids(cgroup: string): Promise<number[]> {
  const pids = new Set<number>();
  for (const dir of await cgroupDirs(cgroup)) {
    for (const sub of await walk(dir)) {
      const text = await readFile(join(sub, 'cgroup.procs'), 'utf8').catch(() => '');
      for (const line of text.split('\n')) if (/^\d+$/.test(line)) pids.add(Number(line));
    }
  }
  return [...pids];
}

/** The cgroup's directories that still exist. */
export async function existingCgroupDirs(cgroup: string): Promise<string[]> {
  const dirs = await cgroupDirs(cgroup);
  const present = await Promise.all(
    dirs.map((dir) =>
      readdir(dir).then(
        () => true,
        () => false,
      ),
    ),
  );
  return dirs.filter((_, i) => present[i]);
}

/** Removes the cgroup trees bottom-up; returns the directories that could not be removed. */
export async function removeCgroup(cgroup: string): Promise<string[]> {
  const left: string[] = [];
  for (const dir of await cgroupDirs(cgroup)) {
    for (const sub of (await walk(dir)).reverse()) {
      await rmdir(sub).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') left.push(sub);
      });
    }
  }
  return left;
}

/** `dir` and its descendant directories, parents first; empty when `dir` does not exist. */
async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => undefined);
  if (entries === undefined) return [];
  const out = [dir];
  for (const entry of entries) {
    if (entry.isDirectory()) out.push(...(await walk(join(dir, entry.name))));
  }
  return out;
}
