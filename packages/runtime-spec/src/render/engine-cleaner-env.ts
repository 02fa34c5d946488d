/**
 * The in-dind cleaner's settings for the engine pod. The cleaner runs in the engine (it drives
 * the build's dind through the Docker API), but a Codefresh runtime sets these variables on its
 * dind (`dockerDaemonScheduler.envVars`), so they are read from there and passed on unchanged:
 * a spec brought from Codefresh keeps its cleaner settings. `CLEAN_DOCKER` is on unless the
 * spec turns it off (the runtime default of reference §3.4); the engine's own configuration
 * (`@sluice/config`, docs/config/environment.md) checks every value.
 * @module
 */
import type { EnvVar } from './pod-common.js';

/** The variables of the cleaner, as `@sluice/config`'s engine schema names them. */
export const CLEANER_VARIABLES = [
  'CLEAN_DOCKER',
  'DISABLE_CLEANER_AGENT',
  'CLEAN_PERIOD_SECONDS',
  'CLEAN_PERIOD_BUILDS',
  'IMAGE_RETAIN_PERIOD',
  'VOLUMES_RETAIN_PERIOD',
  'DISK_USAGE_THRESHOLD',
  'INODES_USAGE_THRESHOLD',
] as const;

export function engineCleanerEnv(dindEnv: Readonly<Record<string, string>> | undefined): EnvVar[] {
  const names: readonly string[] = CLEANER_VARIABLES;
  const given = Object.entries(dindEnv ?? {}).filter(([name]) => names.includes(name));
  const on: [string, string][] = given.some(([name]) => name === 'CLEAN_DOCKER')
    ? []
    : [['CLEAN_DOCKER', 'true']];
  return [...on, ...given].map(([name, value]) => ({ name, value }));
}
