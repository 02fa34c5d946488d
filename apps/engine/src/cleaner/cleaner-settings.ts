/**
 * The in-dind cleaner's settings: the variables of the Codefresh runtime's cleaner (reference
 * §3.4, runtime defaults), read by the engine's configuration (`@sluice/config`, engine schema)
 * with their defaults and handed in whole, so the cleaner itself reads no environment and
 * holds no second copy of the defaults.
 * @module
 */

export interface CleanerSettings {
  /** Deep clean at build end when the last one is at least this old (CLEAN_PERIOD_SECONDS). */
  cleanPeriodSeconds: number;
  /** …or when at least this many builds ran since (CLEAN_PERIOD_BUILDS). */
  cleanPeriodBuilds: number;
  /** Images not used for this long are removed by a deep clean (IMAGE_RETAIN_PERIOD). */
  imageRetainSeconds: number;
  /** Volumes not used for this long are removed by a deep clean (VOLUMES_RETAIN_PERIOD). */
  volumeRetainSeconds: number;
  /** Used share of the data root's space above which the cleaner acts (DISK_USAGE_THRESHOLD). */
  diskUsageThreshold: number;
  /** Used share of its inodes above which the cleaner acts (INODES_USAGE_THRESHOLD). */
  inodeUsageThreshold: number;
  /** Whether the background agent measures while the build runs (off: DISABLE_CLEANER_AGENT). */
  background: boolean;
}
