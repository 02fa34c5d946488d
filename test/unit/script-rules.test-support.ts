// What the unit tests of scripts/lib's checks share: loading a module of scripts/lib from the
// compiled test, and writing tiny trees of files to feed a check.
import { after } from 'node:test';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeTempDir } from '@sluice/testkit';

// From test/dist/unit/ back to the repository's scripts/lib/.
export const lib = join(fileURLToPath(new URL('../../..', import.meta.url)), 'scripts/lib');

/** A module of scripts/lib, typed by the caller. */
export const loadScript = async <T>(name: string) =>
  (await import(pathToFileURL(join(lib, name)).href)) as T;

/**
 * `tree(name, files)` writes `files` (path → text) under a fresh directory `name` of `tree.root`;
 * all removed after the file's tests.
 */
export async function treeWriter(prefix: string) {
  const temp = await makeTempDir(prefix);
  after(() => temp.cleanup());
  const tree = async (name: string, files: Record<string, string>): Promise<string> => {
    const dir = join(temp.path, name);
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return dir;
  };
  return Object.assign(tree, { root: temp.path });
}
