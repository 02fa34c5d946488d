/**
 * What the node agent measures: the volumes' filesystem (space and inodes in use, as df counts)
 * and a volume's size (as du counts).
 * @module
 */
import { lstat, readdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';

export interface DiskUsage {
  space: number;
  inodes: number;
}

/** Space and inodes in use on the filesystem of `path`, as fractions (df's Use% and IUse%). */
export async function diskUsage(path: string): Promise<DiskUsage> {
  const s = await statfs(path);
  // As df counts: used over what users may have (blocks reserved for root are neither).
  const used = s.blocks - s.bfree;
  return {
    space: used + s.bavail === 0 ? 0 : used / (used + s.bavail),
    inodes: s.files === 0 ? 0 : (s.files - s.ffree) / s.files,
  };
}

/**
 * The bytes a directory's files take on disk (allocated blocks, as `du` counts), links not
 * followed; undefined when the directory does not exist. Files that vanish during the walk are skipped.
 */
export async function directoryBytes(path: string): Promise<number | undefined> {
  let total = 0;
  const pending = [path];
  let first = true;
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (first && (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      continue;
    }
    first = false;
    for (const entry of entries) {
      const child = join(dir, entry.name);
      if (entry.isDirectory()) pending.push(child);
      const stats = await lstat(child).catch(() => undefined);
      if (stats !== undefined) total += stats.blocks * 512;
    }
  }
  return total;
}
