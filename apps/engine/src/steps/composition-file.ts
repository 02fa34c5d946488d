/**
 * `composition: path/to/compose.yml`: the file is read from the step's working directory on the
 * build volume (through a never-started helper that mounts it, as the build step reads its
 * context) and parsed as a compose file, its problems placed at file:line:column. A name that is
 * no file there is a stored Codefresh composition, which Sluice does not have.
 * @module
 */
import { posix } from 'node:path';
import { InputError } from '@sluice/errors';
import { VOLUME_PATH, formatIssue, parseCompositionFile } from '@sluice/pipeline';
import type { CompositionStep } from '@sluice/pipeline';
import type { StepRuntime } from '../base/step-runtime.js';
import { resolveWorkingDirectory } from '../containers/step-containers.js';
import { withVolumeHolder } from '../containers/container-run.js';

export const COMPOSITION_FILE = 'SLUICE_COMPOSITION_FILE';

/** The step with the file's services and volumes in place of its path. */
export async function readCompositionFile(
  step: CompositionStep,
  runtime: StepRuntime,
): Promise<CompositionStep> {
  const written = step.file ?? '';
  const directory =
    resolveWorkingDirectory(step.workingDirectory, runtime.scope.defaultWorkingDirectory) ??
    runtime.scope.defaultWorkingDirectory;
  const path = posix.isAbsolute(written) ? written : posix.join(directory || VOLUME_PATH, written);
  const text = await readFromVolume(step, path, runtime);
  if (text === undefined) throw missing(written, path);
  const parsed = parseCompositionFile(text.toString('utf8'), path);
  if (!parsed.ok) {
    // Errors first; a warning may say why (a misspelt key is a warning, the missing one an error).
    const problems = [
      ...parsed.issues.filter((i) => i.severity === 'error'),
      ...parsed.issues.filter((i) => i.severity !== 'error'),
    ];
    throw new InputError(
      COMPOSITION_FILE,
      `Composition file ${path} is not a valid composition: ${problems.slice(0, 5).map(formatIssue).join('; ')}`,
      { details: { file: path }, hint: 'Fix the compose file at the positions named' },
    );
  }
  return {
    ...step,
    services: parsed.composition.services,
    volumes: parsed.composition.volumes,
    file: undefined,
  };
}

function readFromVolume(
  step: CompositionStep,
  path: string,
  runtime: StepRuntime,
): Promise<Buffer | undefined> {
  return withVolumeHolder(runtime, step.name, 'composition', (helper) =>
    runtime.docker.readFile(helper, path),
  );
}

function missing(written: string, path: string): InputError {
  const looksLikeFile = written.includes('/') || /\.ya?ml$/i.test(written);
  return new InputError(
    COMPOSITION_FILE,
    looksLikeFile
      ? `Composition file ${path} does not exist on the build volume`
      : `Composition "${written}" is not a file in ${posix.dirname(path)}, and stored compositions are not available in Sluice`,
    {
      details: { file: path },
      hint: looksLikeFile
        ? "Clone the repository first, or fix the path (relative to the step's working_directory)"
        : 'Write the composition inline, or commit it to the repository and give its path',
    },
  );
}
