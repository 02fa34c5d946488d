/**
 * The version of this `sluice` binary, which agents report in their heartbeats. It ships in one
 * version with the server and the runner; a constant (kept equal to package.json by
 * version.test.ts) because the engine image runs the CLI bundled into one file, without it.
 * @module
 */
export const CLI_VERSION = '0.1.0';
