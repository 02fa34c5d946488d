/**
 * The step types every account has without `sluice create step-type`: Sluice's own documents of
 * Codefresh's marketplace steps (`step-types/`: helm, git-commit, slack-message-sender, …), read
 * once when the server starts. They are found at `SLUICE_STEP_TYPES_DIR`, else `step-types/` of
 * the repository the server runs from, else `step-types/` beside the bundled CLI (the
 * `sluice/engine:1` image, images/engine/bundle.sh). An account's own step type of the same name
 * wins over a built-in one (step-type-service.ts).
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotFoundError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import { parseStepTypeDocument, rememberParsedStepType } from '@sluice/pipeline';
import type { StepTypeDocument } from '@sluice/pipeline';
import type { EngineStepType } from '@sluice/protocol';

/** `step-types/` at the root of the repository (this file is apps/server/dist/services/settings/). */
const REPOSITORY_DIR = fileURLToPath(new URL('../../../../../step-types/', import.meta.url));
/** `step-types/` beside the bundled CLI, whose chunks sit beside its entry. */
const BUNDLED_DIR = fileURLToPath(new URL('./step-types/', import.meta.url));

/** A built-in document, with the name an account's own step type replaces it by. */
export interface BuiltInStepType extends EngineStepType {
  name: string;
  version: string;
  description?: string;
  /** The document parsed, remembered as parsed: pipelines expand with it without reading YAML. */
  document: StepTypeDocument;
}

/** The first of `candidates` that is a directory; undefined when none is. */
export function builtInStepTypesDir(
  candidates: readonly string[] = [REPOSITORY_DIR, BUNDLED_DIR],
): string | undefined {
  return candidates.find(isDirectory);
}

/**
 * The step-type documents (`*.yml`, `*.yaml`) of `dir` (by default `builtInStepTypesDir()`), in
 * name order. A named directory must exist; a document that does not parse is left out with a
 * warning naming it, so one bad file costs one step type, not the server.
 */
export function loadBuiltInStepTypes(dir: string | undefined, log: Logger): BuiltInStepType[] {
  if (dir !== undefined && !isDirectory(dir))
    throw new NotFoundError(
      'SLUICE_STEP_TYPES_DIR_NOT_FOUND',
      `Step-type directory ${dir} (SLUICE_STEP_TYPES_DIR) does not exist`,
      { hint: "Name a directory of step-type YAML files, such as the repository's step-types/" },
    );
  const found = dir ?? builtInStepTypesDir();
  if (found === undefined) {
    log.warn('no built-in step types', { looked: [REPOSITORY_DIR, BUNDLED_DIR] });
    return [];
  }
  const files = readdirSync(found)
    .filter((file) => /\.ya?ml$/.test(file))
    .sort();
  return files.flatMap((file) => {
    const text = readFileSync(join(found, file), 'utf8');
    const source = `built-in: step-types/${file}`;
    const parsed = parseOnce(text, source);
    if (parsed.ok) {
      const { name, version, description } = parsed.definition;
      const document = rememberParsedStepType(parsed.definition);
      return [{ name, version, description, source, text, document }];
    }
    log.warn('built-in step type left out', { file, problem: parsed.issues[0]?.message });
    return [];
  });
}

/**
 * Parses of the built-in documents by source and text: a process that starts many servers (the
 * test tiers start hundreds, ~0.1 s of parsing each) parses each document once.
 */
const parses = new Map<string, ReturnType<typeof parseStepTypeDocument>>();

function parseOnce(text: string, source: string): ReturnType<typeof parseStepTypeDocument> {
  const key = `${source}\u0000${text}`;
  let parsed = parses.get(key);
  if (parsed === undefined) {
    parsed = parseStepTypeDocument(text, source);
    parses.set(key, parsed);
  }
  return parsed;
}

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}
