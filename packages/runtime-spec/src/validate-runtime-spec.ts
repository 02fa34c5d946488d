/**
 * Validates a runtime environment spec given as a plain value (JSON body, parsed YAML),
 * returning the normalised spec or every problem at once.
 * @module
 */
import { isPlainMap, typeName } from './describe-value.js';
import { RUNTIME_SPEC_ISSUE_CODES } from './runtime-spec-issue.js';
import { runtimeSpecSchema } from './schema/runtime-spec-schema.js';
import { toRuntimeSpecIssues } from './zod-issues.js';
import type { RuntimeSpecIssue } from './runtime-spec-issue.js';
import type { RuntimeSpec } from './schema/runtime-spec-schema.js';

export type ValidateRuntimeSpecResult =
  { ok: true; spec: RuntimeSpec } | { ok: false; issues: RuntimeSpecIssue[] };

export function validateRuntimeSpec(input: unknown): ValidateRuntimeSpecResult {
  if (!isPlainMap(input)) {
    const message =
      input === null || input === undefined
        ? 'The runtime environment spec is empty; it needs at least "metadata.name"'
        : `A runtime environment spec must be a map, got ${typeName(input)}`;
    return {
      ok: false,
      issues: [{ path: [], code: RUNTIME_SPEC_ISSUE_CODES.invalidValue, message }],
    };
  }
  const result = runtimeSpecSchema.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, spec: result.data };
  return { ok: false, issues: toRuntimeSpecIssues(result.error.issues, runtimeSpecSchema) };
}
