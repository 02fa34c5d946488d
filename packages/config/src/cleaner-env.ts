/**
 * The in-dind cleaner's variables (part of `sluice engine`'s environment), named as the
 * Codefresh runtime's cleaner names them, with its runtime defaults (reference §3.4;
 * docs/cleaners.md says what happens when).
 * @module
 */
import { numberVar, switchVar } from './variables.js';
import type { EnvValues } from './parse-env.js';

export const CLEANER_DEFAULTS = {
  cleanPeriodSeconds: 21_600,
  cleanPeriodBuilds: 5,
  imageRetainSeconds: 14_400,
  volumeRetainSeconds: 14_400,
  diskUsageThreshold: 0.8,
  inodeUsageThreshold: 0.8,
} as const;

const YEAR_SECONDS = 365 * 86_400;

export const cleanerEnv = {
  CLEAN_DOCKER: switchVar({
    description:
      "Clean the build's Docker daemon (its dind on a reused volume) while the build runs and at its end (docs/cleaners.md). Kubernetes runtimes set it for the engine pod; it stays off elsewhere, so `sluice engine` on the local runtime never cleans the machine's own daemon",
  }),
  DISABLE_CLEANER_AGENT: switchVar({
    description:
      'With CLEAN_DOCKER: no background passes (every 5 s, above a threshold, clean one step at a time, measuring between steps); clean at the end of the build only',
  }),
  CLEAN_PERIOD_SECONDS: numberVar({
    description: "A build's end deep-cleans when the volume's last deep clean is at least this old",
    min: 0,
    max: YEAR_SECONDS,
    unit: 'seconds',
    default: CLEANER_DEFAULTS.cleanPeriodSeconds,
  }),
  CLEAN_PERIOD_BUILDS: numberVar({
    description: '…or when at least this many builds ran on the volume since it',
    min: 1,
    max: 100_000,
    default: CLEANER_DEFAULTS.cleanPeriodBuilds,
  }),
  IMAGE_RETAIN_PERIOD: numberVar({
    description:
      "A deep clean removes the images no container of the daemon used for this long (never one a container uses, nor the engine's helper images)",
    min: 0,
    max: YEAR_SECONDS,
    unit: 'seconds',
    default: CLEANER_DEFAULTS.imageRetainSeconds,
  }),
  VOLUMES_RETAIN_PERIOD: numberVar({
    description:
      'A deep clean removes the Docker volumes no container mounted for this long (never one a container uses)',
    min: 0,
    max: YEAR_SECONDS,
    unit: 'seconds',
    default: CLEANER_DEFAULTS.volumeRetainSeconds,
  }),
  DISK_USAGE_THRESHOLD: numberVar({
    description:
      "The used share of the daemon's data root above which the cleaner acts: a deep clean at the build's end, a clean while it runs, and a hard prune (every image and volume no container uses) when the retain periods do not bring it below",
    min: 0,
    max: 1,
    fraction: true,
    default: CLEANER_DEFAULTS.diskUsageThreshold,
  }),
  INODES_USAGE_THRESHOLD: numberVar({
    description: 'The same, for the used share of its inodes',
    min: 0,
    max: 1,
    fraction: true,
    default: CLEANER_DEFAULTS.inodeUsageThreshold,
  }),
};

export type CleanerEnv = EnvValues<typeof cleanerEnv>;
