/**
 * Reads `spec.arguments` of a step-type document, written either as a YAML map or, as Codefresh
 * writes it, as a JSON string (`arguments: |-` then JSON). Problems inside a JSON string are
 * placed on the right line of the YAML file, not just at the start of the block.
 * @module
 */
import { formatPath, ISSUE_CODES } from '../pipeline-issue.js';
import type { IssuePath } from '../pipeline-issue.js';
import type { Position } from '../model.js';
import { parseYamlSource } from '../yaml-source.js';
import type { YamlSource } from '../yaml-source.js';
import { checkArgumentSchema } from './argument-schema.js';
import type { ArgumentSchema } from './argument-schema.js';
import { checkAgainstSchema } from './validate-arguments.js';

const ARGUMENTS_PATH: IssuePath = ['spec', 'arguments'];

/** Reports at a path inside the document, at an explicit position when one is given. */
export type DocumentReport = (
  path: IssuePath,
  message: string,
  code: string,
  at?: Position,
  severity?: 'error' | 'warning',
) => void;

export interface ArgumentsSchemaResult {
  schema: ArgumentSchema | undefined;
  /** Position of a path inside the schema, for problems found later (a bad `default`). */
  locate: (path: IssuePath) => Position;
}

/** A step type without `arguments` takes none. */
const NO_ARGUMENTS: ArgumentSchema = {
  type: ['object'],
  properties: {},
  additionalProperties: false,
};

export function readArgumentsSchema(
  value: unknown,
  source: YamlSource,
  report: DocumentReport,
): ArgumentsSchemaResult {
  const outer = (path: IssuePath) => source.locate([...ARGUMENTS_PATH, ...path]);
  if (value === undefined) return { schema: NO_ARGUMENTS, locate: outer };
  if (typeof value !== 'string') {
    const schema = checkArgumentSchema(value, (path, message, code) =>
      report([...ARGUMENTS_PATH, ...path], message, code),
    );
    return { schema, locate: outer };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const offset = Number(/at position (\d+)/.exec(reason)?.[1] ?? 0);
    const at = source.locateInScalar(ARGUMENTS_PATH, offset);
    const message = `"spec.arguments" is not valid JSON: ${reason}; write the JSON schema as JSON text or as a YAML map`;
    report(ARGUMENTS_PATH, message, ISSUE_CODES.invalidValue, at);
    return { schema: undefined, locate: outer };
  }
  const locate = jsonLocator(value, source);
  const schema = checkArgumentSchema(parsed, (path, message, code) =>
    report([...ARGUMENTS_PATH, ...path], message, code, locate(path)),
  );
  return { schema, locate };
}

/** A `default` that its own schema rejects would fail every step that leaves it out. */
export function checkDefaults(
  schema: ArgumentSchema,
  locate: (path: IssuePath) => Position,
  report: DocumentReport,
): void {
  const walk = (current: ArgumentSchema, schemaPath: IssuePath, argPath: string[]) => {
    for (const [name, property] of Object.entries(current.properties ?? {})) {
      const at = [...schemaPath, 'properties', name];
      if (property.default !== undefined) {
        const problems = checkAgainstSchema(property, property.default, {
          path: [...argPath, name],
          subject: (p) => `The default of argument "${formatPath(p)}"`,
        });
        for (const { message, code } of problems) {
          report([...ARGUMENTS_PATH, ...at, 'default'], message, code, locate([...at, 'default']));
        }
      }
      walk(property, at, [...argPath, name]);
    }
  };
  walk(schema, [], []);
}

/**
 * JSON is YAML, so the embedded text is parsed a second time with positions to find a path in
 * it; the offset found there is then mapped through the block scalar to the file.
 */
function jsonLocator(json: string, source: YamlSource): (path: IssuePath) => Position {
  const inner = parseYamlSource(json, source.file);
  const fallback = source.locate(ARGUMENTS_PATH);
  if (inner.issues.some((i) => i.severity === 'error')) return () => fallback;
  const lineStarts = [0];
  for (let i = json.indexOf('\n'); i !== -1; i = json.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  return (path) => {
    const { line, column } = inner.locate(path);
    const offset = (lineStarts[line - 1] ?? 0) + column - 1;
    return source.locateInScalar(ARGUMENTS_PATH, offset) ?? fallback;
  };
}
