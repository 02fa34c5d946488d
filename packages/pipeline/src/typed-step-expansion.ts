/**
 * The seam between the parser and the typed-steps module: expands one typed step through
 * `expandTypedStep` and makes sure a step that could not be expanded always leaves an error,
 * so an unexpanded typed step can never reach the model.
 * @module
 */
import { ISSUE_CODES } from './pipeline-issue.js';
import { expandTypedStep } from './step-types/expand-typed-step.js';
import type { IssuePath } from './pipeline-issue.js';
import type { SchemaContext } from './schema/validators.js';
import type { StepTypeCatalog } from './step-types/step-type-catalog.js';

export interface TemplateRequest {
  stepName: string;
  path: IssuePath;
  type: string;
  arguments: unknown;
}

export function expandTemplate(
  request: TemplateRequest,
  catalog: StepTypeCatalog | undefined,
  ctx: SchemaContext,
): { stepType: string; steps: Record<string, unknown> } | undefined {
  let errors = 0;
  const reporter = {
    report(
      path: IssuePath,
      message: string,
      options: { code?: string; severity?: 'error' | 'warning' } = {},
    ) {
      if ((options.severity ?? 'error') === 'error') errors++;
      ctx.report(path, message, options);
    },
  };
  const expansion = expandTypedStep(request, catalog, reporter);
  if (expansion === undefined && errors === 0) {
    const message = `Typed step "${request.type}" could not be expanded`;
    ctx.report([...request.path, 'type'], message, { code: ISSUE_CODES.unknownStepType });
  }
  return expansion;
}
