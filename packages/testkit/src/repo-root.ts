/**
 * Finds the monorepo root from a module's own location, so test helpers work from `src/`, from
 * `dist/` and from any working directory.
 * @module
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The file that marks the repo root: the local image build script. */
export const REPO_ROOT_MARKER = 'images/build-local.sh';

export interface FindRepoRootOptions {
  marker?: string;
  /** Injected for tests; defaults to `fs.existsSync`. */
  exists?: (path: string) => boolean;
}

/** Walks up from `startDir` to the first directory containing the marker; undefined if none. */
export function findRepoRoot(
  startDir: string,
  options: FindRepoRootOptions = {},
): string | undefined {
  const marker = options.marker ?? REPO_ROOT_MARKER;
  const exists = options.exists ?? existsSync;
  let dir = resolve(startDir);
  for (;;) {
    if (exists(join(dir, marker))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
