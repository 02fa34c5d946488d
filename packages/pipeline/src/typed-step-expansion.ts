/**
 * The seam between the parser and the typed-steps module: expands one typed step through
 * `expandTypedStep` and makes sure a step that could not be expanded always leaves an error, or
 * a warning that the build stops before its first step, so an unexpanded typed step never runs.
 * @module
 */
import { ISSUE_CODES } from './pipeline-issue.js';
import { expandTypedStep } from './step-types/expand-typed-step.js';
import type { SchemaContext } from './schema/validators.js';
import type { TypedStepExpansion, TypedStepInput } from './step-types/expand-typed-step.js';
import type { ExpansionReporter, StepTypeCatalog } from './step-types/step-type-catalog.js';

export function expandTypedStepOrReport(
  input: TypedStepInput,
  catalog: StepTypeCatalog | undefined,
  ctx: SchemaContext,
): TypedStepExpansion | undefined {
  let reasons = 0;
  const reporter: ExpansionReporter = {
    report(path, message, options = {}) {
      // An error, or a step type named as not run (the build then stops before its first step).
      if ((options.severity ?? 'error') === 'error' || options.code === ISSUE_CODES.unsupported)
        reasons++;
      ctx.report(path, message, options);
    },
  };
  const expansion = expandTypedStep(input, catalog, reporter);
  if (expansion === undefined && reasons === 0) {
    const message = `Typed step "${input.type}" could not be expanded`;
    ctx.report([...input.path, 'type'], message, { code: ISSUE_CODES.unknownStepType });
  }
  return expansion;
}
