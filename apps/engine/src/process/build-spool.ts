/**
 * Where a build's log spool lives: `<root>/<build id>/`, recovered if an earlier engine process
 * of the build left it there (its pod or process was replaced). The local runtime's root is the
 * agent's state directory, shared by every build it runs; on Kubernetes it is a directory of the
 * build's volume, which serves one build at a time and is reused by later builds, so an engine
 * there first removes what earlier builds' engines left.
 * @module
 */
import { readdir, rm } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import type { EngineBuild } from '@sluice/protocol';
import { isSegmentName, LogSpool } from './log-spool.js';

/** Where spools go when no directory is given: beneath the working directory. */
const DEFAULT_SPOOL_ROOT = 'sluice-log-spool';

/**
 * Removes the other spools in `root` than `buildId`'s: on a volume that serves one build at a
 * time they are earlier builds', whose engines died before the control plane acknowledged their
 * last lines, and those builds have ended. Only what is a spool goes (a directory holding
 * segment files and nothing else): a root set by hand to a directory with other things in it
 * loses none of them. Each removal is logged; one that fails is logged and left.
 */
async function removeOtherSpools(root: string, buildId: string, log: Logger): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return; // Not made yet: nothing to remove.
  }
  for (const entry of entries) {
    if (entry.name === buildId || !entry.isDirectory()) continue;
    const path = join(root, entry.name);
    try {
      const names = await readdir(path);
      if (names.length === 0 || !names.every(isSegmentName)) continue;
      await rm(path, { recursive: true, force: true });
      log.info("removed another build's log spool from the build volume", { path });
    } catch (err) {
      log.warn("another build's log spool could not be removed", {
        path,
        error: describeError(err),
      });
    }
  }
}

/**
 * The build's spool under `root` (`<root>/<buildId>`, recovered if an earlier engine process
 * left it); numbering goes on from the control plane's next chunk. A root that cannot be made
 * (a read-only working directory) falls back to the temporary directory.
 */
export async function openBuildSpool(
  build: Pick<EngineBuild, 'buildId' | 'logNextSeq'>,
  log: Logger,
  where: { root?: string | undefined; oneBuild?: boolean } = {},
): Promise<LogSpool> {
  const root = where.root ?? DEFAULT_SPOOL_ROOT;
  if (where.oneBuild === true) await removeOtherSpools(root, build.buildId, log);
  const options = { startSeq: build.logNextSeq, logger: log };
  const dir = join(root, build.buildId);
  try {
    return await LogSpool.open(dir, options);
  } catch (err) {
    const fallback = join(tmpdir(), 'sluice-log-spool', build.buildId);
    log.warn('the log spool directory cannot be used; using the temporary directory', {
      dir,
      fallback,
      error: describeError(err),
    });
    return LogSpool.open(fallback, options);
  }
}
