/**
 * Temporary directories for tests, removed by `cleanup()` (safe to call twice).
 * @module
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  /** Absolute, symlink-free path, so it can be bind-mounted into containers as is. */
  path: string;
  cleanup(): Promise<void>;
}

export async function makeTempDir(prefix = 'sluice-test-'): Promise<TempDir> {
  const path = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return {
    path,
    cleanup: () => rm(path, { recursive: true, force: true }),
  };
}
