/**
 * The in-dind cleaner: keeps the disk of a build's own Docker daemon (its dind, on a persistent
 * volume that later builds reuse) from filling up, as the Codefresh runtime's cleaner does
 * (reference §3.4). Started with the build, finished after its last step:
 * - **start**: the bookkeeping (dind-volume.ts) records the build; a background pass every
 *   few seconds notes what containers used (the daemon's events: a container created from an
 *   image, a volume mounted) and measures the data root; above a threshold it escalates one step
 *   at a time, measuring between steps: stopped containers of earlier builds → volumes past
 *   `VOLUMES_RETAIN_PERIOD` → images past `IMAGE_RETAIN_PERIOD` → every image and volume nothing
 *   uses. The build's own containers and workspace volume are left alone while it runs.
 * - **finish**: stopped containers go; then a deep clean when any of the four reasons holds
 *   (`deepCleanReason`): the retain-period removals, and the hard prune if still above.
 * What a container uses is never removed, nor the images the engine keeps (`protect`: its
 * helper images, which it would otherwise have to pull again). Every decision is a system line
 * of the build's log; a failing cleaner is logged and never fails the build.
 * @module
 */
import { describeError } from '@sluice/errors';
import type { DaemonHousekeeping, DockerClient } from '@sluice/docker';
import type { Logger } from '@sluice/log';
import { formatBytes } from '@sluice/protocol';
import type { CleanerSettings } from './cleaner-settings.js';
import { markCleaned, parseState, reconcile, recordBuild, recordUse } from './cleaner-state.js';
import type { CleanerState } from './cleaner-state.js';
import { deepCleanReason, overThreshold, percent, removable } from './clean-policy.js';
import type { DiskUsage, Inventory, Protected } from './clean-policy.js';
import { CLEANER_HELPER_LABEL, DindVolume } from './dind-volume.js';
import { removeImages, removeStoppedContainers, removeVolumes } from './cleaner-sweeps.js';
import type { SweepContext } from './cleaner-sweeps.js';
import { recentUse } from './daemon-use.js';

export interface DindCleanerOptions {
  docker: DockerClient;
  settings: CleanerSettings;
  buildId: string;
  /** The image of the cleaner's helper containers (busybox); kept like `protect.images`. */
  helperImage: string;
  /** Never removed; `protect.volumes` only while the build runs (its workspace). */
  protect: Protected;
  /** The running build's containers carry these labels: not removed before it ends. */
  buildLabels: Record<string, string>;
  /** One system line of the build's log. */
  say: (line: string) => void;
  log: Logger;
  /** Policy time (retain periods, clean period); `Date.now` by default. */
  clock?: () => number;
  /** Between background passes; 5 s by default. */
  intervalMs?: number;
  /**
   * How far back each read of the daemon's events reaches past the previous one (and the first
   * before the start), for a daemon whose clock is a little behind; 2 s by default.
   */
  eventOverlapMs?: number;
}

/** What the end of a build did, for tests and the engine's log. */
export interface FinishReport {
  deepClean?: string;
  pruned: boolean;
  usage?: DiskUsage;
}

const DEFAULT_INTERVAL_MS = 5_000;
/** Events are read with this much overlap: the daemon's clock and ours may differ a little. */
const EVENT_OVERLAP_MS = 2_000;

export class DindCleaner {
  readonly #options: DindCleanerOptions;
  readonly #daemon: DaemonHousekeeping;
  readonly #volume: DindVolume;
  readonly #clock: () => number;
  #state: CleanerState;
  #eventsFrom: number;
  readonly #seenEvents = new Set<string>();
  #busy: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  /** When the build started (policy time): while it runs, what it used since is kept. */
  readonly #startedAt: number;
  #finishing = false;

  private constructor(options: DindCleanerOptions, volume: DindVolume, state: CleanerState) {
    this.#options = options;
    this.#daemon = options.docker.housekeeping();
    this.#volume = volume;
    this.#clock = options.clock ?? Date.now;
    this.#state = state;
    this.#startedAt = this.#clock();
    this.#eventsFrom = Date.now() - this.#overlap();
  }

  /** Reads the bookkeeping, records the build, starts the background passes. */
  static async start(options: DindCleanerOptions): Promise<DindCleaner> {
    const now = (options.clock ?? Date.now)();
    const volume = await DindVolume.open(options.docker.housekeeping(), options.helperImage);
    let cleaner: DindCleaner;
    try {
      const { state, problem } = parseState(await volume.readState(), now);
      if (problem !== undefined) options.log.warn('the cleaner starts afresh', { problem });
      cleaner = new DindCleaner(options, volume, recordBuild(state, options.buildId, now));
      await cleaner.#note();
      // Saved now, so the build counts even if the engine never reaches the end of it.
      await cleaner.#save();
    } catch (err) {
      await volume.close().catch(() => undefined);
      throw err;
    }
    const builds = cleaner.#state.builds.length;
    options.say(
      `Cleaner: volume created ${new Date(cleaner.#state.created).toISOString()}, build ${builds}${builds >= 50 ? '+' : ''} on it, ${cleaner.#state.buildsSinceClean} since the last clean`,
    );
    if (options.settings.background) cleaner.#schedule();
    return cleaner;
  }

  /**
   * One background pass (also what the timer runs): note use, measure, escalate if above. The
   * bookkeeping is written only after a clean (else at the build's end): a pass costs the daemon
   * one exec in the helper container.
   */
  async pass(): Promise<void> {
    await this.#exclusive(async () => {
      const inventory = await this.#note();
      if (await this.#escalate(inventory, await this.#volume.usage())) await this.#save();
    });
  }

  /**
   * The end of the build: stops the passes, removes stopped containers, deep-cleans if due, and
   * removes the helper container.
   */
  async finish(): Promise<FinishReport> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    try {
      return await this.#exclusive(() => this.#finish());
    } finally {
      await this.#volume.close();
    }
  }

  async #finish(): Promise<FinishReport> {
    this.#finishing = true;
    let inventory = await this.#note();
    // Stopped helpers too: only the running one is this cleaner's (a stopped one was left by
    // an engine that ended without its finish).
    if (await removeStoppedContainers(this.#sweep(), inventory, () => false))
      inventory = await this.#inventory();
    const usage = await this.#volume.usage();
    const reason = deepCleanReason(this.#state, usage, this.#options.settings, this.#clock());
    if (reason === undefined) {
      this.#options.say(`Cleaner: no deep clean needed (${this.#describe(usage)})`);
      await this.#save();
      return { pruned: false, usage };
    }
    this.#options.say(`Cleaner: deep clean: ${reason}`);
    const after = await this.#deepClean(inventory, usage);
    await this.#save();
    return { deepClean: reason, ...after };
  }

  async #deepClean(
    inventory: Inventory,
    before: DiskUsage,
  ): Promise<{ pruned: boolean; usage: DiskUsage }> {
    await this.#retained(inventory, 'volumes', []);
    await this.#retained(await this.#inventory(), 'images', []);
    let usage = await this.#volume.usage();
    const above = overThreshold(usage, this.#options.settings);
    if (above !== undefined) {
      await this.#hardPrune(await this.#inventory(), above, []);
      usage = await this.#volume.usage();
    }
    this.#state = markCleaned(this.#state, this.#clock(), { pruned: above !== undefined });
    const freed = Math.max(0, before.usedBytes - usage.usedBytes);
    this.#options.say(`Cleaner: done, ${formatBytes(freed)} freed (${this.#describe(usage)})`);
    return { pruned: above !== undefined, usage };
  }

  /** Background: one step, measure, next step while still above; whether it cleaned. */
  async #escalate(inventory: Inventory, usage: DiskUsage): Promise<boolean> {
    const running = this.#options.protect.volumes;
    const ownBuild = (labels: Record<string, string>) =>
      CLEANER_HELPER_LABEL in labels ||
      Object.entries(this.#options.buildLabels).every(([k, v]) => labels[k] === v);
    const steps: ((inv: Inventory, why: string) => Promise<unknown>)[] = [
      (inv) => removeStoppedContainers(this.#sweep(), inv, ownBuild),
      (inv) => this.#retained(inv, 'volumes', running),
      (inv) => this.#retained(inv, 'images', running),
      (inv, why) => this.#hardPrune(inv, why, running),
    ];
    let why = overThreshold(usage, this.#options.settings);
    if (why === undefined) return false;
    this.#options.say(`Cleaner: ${why}: cleaning while the build runs`);
    let now = usage;
    for (const step of steps) {
      if (why === undefined) break;
      await step(inventory, why);
      inventory = await this.#inventory();
      now = await this.#volume.usage();
      why = overThreshold(now, this.#options.settings);
    }
    const freed = Math.max(0, usage.usedBytes - now.usedBytes);
    this.#options.say(`Cleaner: ${formatBytes(freed)} freed (${this.#describe(now)})`);
    return true;
  }

  async #retained(inventory: Inventory, kind: 'images' | 'volumes', running: readonly string[]) {
    const { images, volumes } = removable(inventory, this.#state, this.#policy(running, false));
    const { settings } = this.#options;
    if (kind === 'images')
      return removeImages(this.#sweep(), images, `unused for ${settings.imageRetainSeconds} s`);
    return removeVolumes(this.#sweep(), volumes, `unused for ${settings.volumeRetainSeconds} s`);
  }

  async #hardPrune(inventory: Inventory, why: string, running: readonly string[]) {
    this.#options.say(`Cleaner: still ${why}: removing every image and volume nothing uses`);
    const { images, volumes } = removable(inventory, this.#state, this.#policy(running, true));
    await removeVolumes(this.#sweep(), volumes, 'by the hard prune');
    await removeImages(this.#sweep(), images, 'by the hard prune');
    this.#state = { ...this.#state, lastPrune: this.#clock() };
  }

  #policy(runningVolumes: readonly string[], ignoreRetention: boolean) {
    const { settings, protect, helperImage } = this.#options;
    return {
      settings,
      now: this.#clock(),
      ignoreRetention,
      keepUsedSince: this.#finishing ? undefined : this.#startedAt,
      protect: {
        images: [...protect.images, helperImage],
        volumes: [...runningVolumes],
      },
    };
  }

  /** Records what containers used since the last look, and dates what is new; the inventory. */
  async #note(): Promise<Inventory> {
    const until = Date.now();
    const window = { since: this.#eventsFrom, until, seen: this.#seenEvents };
    const used = await recentUse(this.#daemon, window);
    this.#eventsFrom = until - this.#overlap();
    const inventory = await this.#inventory();
    const now = this.#clock();
    const current = {
      images: inventory.containers.map((c) => c.imageId),
      volumes: inventory.containers.flatMap((c) => c.volumes),
    };
    this.#state = recordUse(recordUse(this.#state, used, now), current, now);
    this.#state = reconcile(
      this.#state,
      { images: inventory.images.map((i) => i.id), volumes: inventory.volumes.map((v) => v.name) },
      now,
    );
    return inventory;
  }

  async #inventory(): Promise<Inventory> {
    const [images, volumes, containers] = await Promise.all([
      this.#daemon.images(),
      this.#daemon.volumes(),
      this.#daemon.containers(),
    ]);
    return { images, volumes, containers };
  }

  async #save(): Promise<void> {
    await this.#volume.writeState(`${JSON.stringify(this.#state)}\n`);
  }

  #overlap(): number {
    return this.#options.eventOverlapMs ?? EVENT_OVERLAP_MS;
  }

  #sweep(): SweepContext {
    return { daemon: this.#daemon, say: this.#options.say };
  }

  #describe(usage: DiskUsage): string {
    return `disk ${percent(usage.disk)} of ${formatBytes(usage.totalBytes)}, inodes ${percent(usage.inodes)}`;
  }

  /** One pass at a time: the timer's and the finish never overlap. */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#busy.then(fn, fn);
    this.#busy = run.catch(() => undefined);
    return run;
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.pass()
        .catch((err: unknown) =>
          this.#options.log.warn('a background pass of the cleaner failed', {
            error: describeError(err),
          }),
        )
        .finally(() => {
          if (this.#timer !== undefined) this.#schedule();
        });
    }, this.#options.intervalMs ?? DEFAULT_INTERVAL_MS);
    this.#timer.unref();
  }
}
