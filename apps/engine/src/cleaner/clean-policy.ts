/**
 * The cleaner's decisions, pure: whether a build's end calls for a deep clean (and why), whether
 * the data root is above its thresholds, and which images and volumes may go. What a container
 * uses (running or stopped, not yet removed) never may, nor an image the engine keeps (its own
 * helper images) or a volume it protects (the running build's workspace).
 * @module
 */
import type { CleanerSettings } from './cleaner-settings.js';
import type { CleanerState } from './cleaner-state.js';
import type { DaemonContainer, DaemonImage, DaemonVolume } from '@sluice/docker';

/** Used shares (0 to 1) of the data root's filesystem. */
export interface DiskUsage {
  disk: number;
  inodes: number;
  /** Bytes used and in all, for the log. */
  usedBytes: number;
  totalBytes: number;
}

/** What the daemon holds, as one sweep sees it. */
export interface Inventory {
  images: DaemonImage[];
  volumes: DaemonVolume[];
  containers: DaemonContainer[];
}

/** Never removed, whatever the usage: images by reference, volumes by name. */
export interface Protected {
  images: readonly string[];
  volumes: readonly string[];
}

/** Why the disk is too full, or undefined when it is not. */
export function overThreshold(usage: DiskUsage, settings: CleanerSettings): string | undefined {
  if (usage.disk > settings.diskUsageThreshold)
    return `disk ${percent(usage.disk)} used, above ${percent(settings.diskUsageThreshold)}`;
  if (usage.inodes > settings.inodeUsageThreshold)
    return `inodes ${percent(usage.inodes)} used, above ${percent(settings.inodeUsageThreshold)}`;
  return undefined;
}

/** Why this build's end runs a deep clean (reference §3.4: any of four), or undefined. */
export function deepCleanReason(
  state: CleanerState,
  usage: DiskUsage,
  settings: CleanerSettings,
  now: number,
): string | undefined {
  const since = now - (state.lastClean ?? state.created);
  if (since >= settings.cleanPeriodSeconds * 1000)
    return `${state.lastClean === undefined ? 'no clean since the volume was created' : 'the last clean was'} ${Math.round(since / 1000)} s ago (period ${settings.cleanPeriodSeconds} s)`;
  if (state.buildsSinceClean >= settings.cleanPeriodBuilds)
    return `${state.buildsSinceClean} builds since the last clean (period ${settings.cleanPeriodBuilds})`;
  return overThreshold(usage, settings);
}

/** The images and volumes some container (running or not) uses. */
export function inUse(containers: readonly DaemonContainer[]): {
  images: Set<string>;
  volumes: Set<string>;
} {
  return {
    images: new Set(containers.map((c) => c.imageId)),
    volumes: new Set(containers.flatMap((c) => c.volumes)),
  };
}

/**
 * The images and volumes that may be removed: not in use, not protected, not used since
 * `keepUsedSince` (while a build runs: what it used or brought, such as an image pulled for a
 * step whose container does not exist yet), and (unless `ignoreRetention`, the hard prune) not
 * used within their retain period by the bookkeeping.
 */
export function removable(
  inventory: Inventory,
  state: CleanerState,
  options: {
    settings: CleanerSettings;
    protect: Protected;
    now: number;
    ignoreRetention: boolean;
    keepUsedSince?: number;
  },
): { images: DaemonImage[]; volumes: DaemonVolume[] } {
  const { settings, protect, now, ignoreRetention, keepUsedSince } = options;
  const used = inUse(inventory.containers);
  const kept = new Set(protect.images);
  const stale = (last: number | undefined, retainSeconds: number) =>
    !(keepUsedSince !== undefined && last !== undefined && last >= keepUsedSince) &&
    (ignoreRetention || (last !== undefined && now - last >= retainSeconds * 1000));
  const images = inventory.images.filter(
    (image) =>
      !used.images.has(image.id) &&
      !image.repoTags.some((tag) => kept.has(tag)) &&
      stale(state.images[image.id], settings.imageRetainSeconds),
  );
  const volumes = inventory.volumes.filter(
    (volume) =>
      !used.volumes.has(volume.name) &&
      !protect.volumes.includes(volume.name) &&
      stale(state.volumes[volume.name], settings.volumeRetainSeconds),
  );
  // Oldest use first: a sweep that stops early has removed what mattered least.
  const age = (times: Record<string, number>, key: string) => times[key] ?? 0;
  images.sort((a, b) => age(state.images, a.id) - age(state.images, b.id));
  volumes.sort((a, b) => age(state.volumes, a.name) - age(state.volumes, b.name));
  return { images, volumes };
}

export function percent(share: number): string {
  return `${Math.round(share * 1000) / 10} %`;
}
