/**
 * A runtime environment spec file (`sluice patch re -f`, `sluice get re -o yaml` round trip):
 * YAML text in, the validated spec or every problem placed at file:line:column out.
 * @module
 */
import { parseDocument } from 'yaml';
import { positionIndex } from '@sluice/errors';
import { RUNTIME_SPEC_ISSUE_CODES } from './runtime-spec-issue.js';
import { validateRuntimeSpec } from './validate-runtime-spec.js';
import { offsetOf } from './yaml-positions.js';
import type { RuntimeSpecYamlIssue } from './runtime-spec-issue.js';
import type { RuntimeSpec } from './schema/runtime-spec-schema.js';

export type ParseRuntimeSpecYamlResult =
  { ok: true; spec: RuntimeSpec } | { ok: false; issues: RuntimeSpecYamlIssue[] };

export function parseRuntimeSpecYaml(text: string, file: string): ParseRuntimeSpecYamlResult {
  const doc = parseDocument(text, { merge: true, prettyErrors: false, logLevel: 'error' });
  const position = positionIndex(text);
  if (doc.errors.length > 0) {
    const issues = doc.errors.map((error) => ({
      path: [],
      code: RUNTIME_SPEC_ISSUE_CODES.yamlSyntax,
      // The parser's messages end with a period and sometimes a source excerpt after it.
      message: (error.message.split('\n')[0] ?? '').replace(/\.$/, ''),
      file,
      ...position(error.pos[0]),
    }));
    return { ok: false, issues: sortIssues(issues) };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    // An alias bomb or a bad merge key; the document parsed, but has no plain value.
    const message = err instanceof Error ? err.message : String(err);
    const issue = { path: [], code: RUNTIME_SPEC_ISSUE_CODES.yamlSyntax, message, file };
    return { ok: false, issues: [{ ...issue, line: 1, column: 1 }] };
  }
  const result = validateRuntimeSpec(value);
  if (result.ok) return result;
  const issues = result.issues.map((issue) => {
    const at = issue.code === RUNTIME_SPEC_ISSUE_CODES.unknownField ? 'key' : 'value';
    return { ...issue, file, ...position(offsetOf(doc, issue.path, at)) };
  });
  return { ok: false, issues: sortIssues(issues) };
}

function sortIssues(issues: RuntimeSpecYamlIssue[]): RuntimeSpecYamlIssue[] {
  return issues.sort(
    (a, b) => a.line - b.line || a.column - b.column || a.message.localeCompare(b.message),
  );
}
