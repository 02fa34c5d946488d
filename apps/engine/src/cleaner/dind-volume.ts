/**
 * The daemon's data root as the cleaner reaches it: through the daemon itself, because the
 * engine runs in another pod than its dind and sees none of the dind's files. The data root
 * (`DockerRootDir` from the daemon's info) is bind-mounted into one idle helper container of the
 * engine's own helper image (busybox: `df`), started on first use and removed by `close`; each
 * look is an exec in it, because a container per look costs the daemon a container start (about
 * half a second on a busy node, at the end of every build and every background pass):
 * - usage: `df -Pk` and `df -Pi` of the data root, its space and inodes;
 * - bookkeeping: `<data root>/sluice-cleaner/state.json`, read with `cat` and written through the
 *   archive API into the helper (then renamed into place with `mv`, so a reader never sees half a
 *   file).
 * A helper that went away (a step removed every container) is started again on the next look.
 * A file on the data root rather than a Docker volume of its own: a step's `docker volume prune`
 * cannot take it, no volume listing shows it, and it sits where the daemon's data is, so it goes
 * wherever the persistent volume goes (the Codefresh dind keeps its own in the same place).
 * @module
 */
import type { DaemonHousekeeping } from '@sluice/docker';
import type { DiskUsage } from './clean-policy.js';

const MOUNT = '/sluice-data-root';
const STATE_DIR = 'sluice-cleaner';
const STATE_FILE = 'state.json';
/** Labels the cleaner's helper containers carry, so a clean never counts them as the build's. */
export const CLEANER_HELPER_LABEL = 'io.sluice.cleaner-helper';

export class DindVolume {
  readonly #daemon: DaemonHousekeeping;
  readonly #image: string;
  readonly #rootDir: string;
  #helper: Promise<string> | undefined;

  private constructor(daemon: DaemonHousekeeping, image: string, rootDir: string) {
    this.#daemon = daemon;
    this.#image = image;
    this.#rootDir = rootDir;
  }

  /** `image` needs `sh`, `df` (with -P, -k, -i), `cat`, `mkdir` and `mv`: busybox has them. */
  static async open(daemon: DaemonHousekeeping, image: string): Promise<DindVolume> {
    return new DindVolume(daemon, image, await daemon.rootDir());
  }

  get rootDir(): string {
    return this.#rootDir;
  }

  async usage(): Promise<DiskUsage> {
    const { exitCode, stdout } = await this.#run(`df -Pk ${MOUNT} && df -Pi ${MOUNT}`);
    const rows = stdout.split('\n').filter((line) => line.trim().endsWith(MOUNT));
    const [blocks, inodes] = rows.map((row) => row.trim().split(/\s+/).map(Number));
    if (exitCode !== 0 || blocks === undefined || inodes === undefined)
      throw new Error(`df of the data root ${this.#rootDir} failed (exit ${exitCode}): ${stdout}`);
    // `df` columns: filesystem, total, used, available, use%, mount point.
    const [, totalKb = 0, usedKb = 0, availKb = 0] = blocks;
    const [, totalInodes = 0, usedInodes = 0] = inodes;
    return {
      // As df counts it: used of used + available (blocks reserved for root are neither).
      disk: usedKb + availKb === 0 ? 0 : usedKb / (usedKb + availKb),
      inodes: totalInodes === 0 ? 0 : usedInodes / totalInodes,
      usedBytes: usedKb * 1024,
      totalBytes: totalKb * 1024,
    };
  }

  /** The bookkeeping file's text; undefined when there is none yet (its directory is made). */
  async readState(): Promise<string | undefined> {
    const path = `${MOUNT}/${STATE_DIR}/${STATE_FILE}`;
    const { exitCode, stdout } = await this.#run(
      `mkdir -p ${MOUNT}/${STATE_DIR} && [ ! -e ${path} ] && exit 3; cat ${path}`,
    );
    if (exitCode === 3) return undefined;
    if (exitCode !== 0) throw new Error(`reading ${path} failed (exit ${exitCode})`);
    return stdout;
  }

  /** Replaces the bookkeeping file; `readState` has made its directory. */
  async writeState(text: string): Promise<void> {
    const dir = `${MOUNT}/${STATE_DIR}`;
    const file = { name: `${STATE_FILE}.new`, content: Buffer.from(text) };
    await this.#withHelper((id) => this.#daemon.putFile(id, dir, file));
    const { exitCode } = await this.#run(`mv ${dir}/${STATE_FILE}.new ${dir}/${STATE_FILE}`);
    if (exitCode !== 0) throw new Error(`writing ${dir}/${STATE_FILE} failed (exit ${exitCode})`);
  }

  /** Removes the helper container; a later look starts another. */
  async close(): Promise<void> {
    const helper = this.#helper;
    this.#helper = undefined;
    const id = await helper?.catch(() => undefined);
    if (id !== undefined) await this.#daemon.removeHelper(id);
  }

  #run(script: string): Promise<{ exitCode: number; stdout: string }> {
    return this.#withHelper((id) => this.#daemon.execIn(id, ['sh', '-c', script]));
  }

  /** `fn` on the helper, started again once if it went away meanwhile. */
  async #withHelper<T>(fn: (id: string) => Promise<T>, retried = false): Promise<T> {
    this.#helper ??= this.#daemon.startHelper({
      image: this.#image,
      binds: [`${this.#rootDir}:${MOUNT}`],
      labels: { [CLEANER_HELPER_LABEL]: 'true' },
    });
    const helper = this.#helper;
    try {
      return await fn(await helper);
    } catch (err) {
      const id = await helper.catch(() => undefined);
      // A helper still running: the failure is the command's own.
      if (retried || this.#helper !== helper) throw err;
      if (id !== undefined && (await this.#daemon.helperRunning(id))) throw err;
      this.#helper = undefined;
      if (id !== undefined) await this.#daemon.removeHelper(id).catch(() => undefined);
      return this.#withHelper(fn, true);
    }
  }
}
