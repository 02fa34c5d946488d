/**
 * Where `sluice run` and `sluice validate` look for step types, in order: `--step-types DIR`
 * (repeatable), `SLUICE_STEP_TYPES`, the repository's `.sluice/step-types/`, and the built-in
 * `step-types/` of this Sluice (found from the CLI's own location, so it works from a clean
 * clone and from any working directory). A named directory must exist; the others are used
 * when they do.
 * @module
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotFoundError } from '@sluice/errors';

/**
 * The built-in `step-types/`: at the root of this repository (from apps/cli/dist/commands/run,
 * ../../../../..), else beside the bundled CLI whose chunk this code is in (the local bundle of
 * scripts/bundle-engine.mjs links it there, the image's bundle copies it).
 */
const BUILT_IN_CANDIDATES = [
  fileURLToPath(new URL('../../../../../step-types/', import.meta.url)),
  fileURLToPath(new URL('./step-types/', import.meta.url)),
] as const;
export const BUILT_IN_STEP_TYPES =
  BUILT_IN_CANDIDATES.find((dir) => isDirectory(dir)) ?? BUILT_IN_CANDIDATES[0];

export interface StepTypeDirsOptions {
  /** `--step-types` values, relative to `cwd`. */
  flags: readonly string[];
  /** `SLUICE_STEP_TYPES` entries, relative to `cwd`. */
  env: readonly string[];
  cwd: string;
  /** The directory of the pipeline file: its repository is found from there. */
  pipelineDir: string;
  /** Defaults to BUILT_IN_STEP_TYPES. */
  builtIn?: string;
}

export function stepTypeDirectories(options: StepTypeDirsOptions): string[] {
  const named = [
    ...options.flags.map((dir) => ({ dir, from: '--step-types' })),
    ...options.env.map((dir) => ({ dir, from: 'SLUICE_STEP_TYPES' })),
  ];
  for (const { dir, from } of named) {
    // One the user named must be there: a typo would otherwise only show as an unknown type.
    if (!isDirectory(resolve(options.cwd, dir)))
      throw new NotFoundError(
        'SLUICE_CLI_STEP_TYPES_NOT_FOUND',
        `Step-type directory ${dir} (${from}) does not exist`,
        { hint: 'Name a directory holding step-type YAML files' },
      );
  }
  const candidates = [
    ...named.map(({ dir }) => resolve(options.cwd, dir)),
    join(repositoryRoot(options.pipelineDir), '.sluice', 'step-types'),
    resolve(options.builtIn ?? BUILT_IN_STEP_TYPES),
  ];
  const seen = new Set<string>();
  return candidates.filter((dir) => {
    if (seen.has(dir) || !isDirectory(dir)) return false;
    seen.add(dir);
    return true;
  });
}

/** The nearest directory holding `.git`, from `dir` up; `dir` itself when there is none. */
export function repositoryRoot(dir: string): string {
  let current = resolve(dir);
  for (;;) {
    if (existsSync(join(current, '.git'))) return current;
    const parent = dirname(current);
    if (parent === current) return resolve(dir);
    current = parent;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
