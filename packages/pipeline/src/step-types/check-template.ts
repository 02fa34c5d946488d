/**
 * Checks a step type's template when the document is parsed, so a mistyped placeholder is
 * found by the author at the placeholder's column rather than by a user as an empty value.
 * @module
 */
import { didYouMean } from '@sluice/errors';
import { ISSUE_CODES } from '../pipeline-issue.js';
import type { IssuePath } from '../pipeline-issue.js';
import type { YamlSource } from '../yaml-source.js';
import type { ArgumentSchema } from './argument-schema.js';
import { templateKeys, templateStrings } from './expand-template.js';
import type { DocumentReport } from './read-arguments-schema.js';
import { parseTemplate, templateReferences } from './template.js';
import type { TemplateDelimiters } from './template.js';

export interface CheckTemplateOptions {
  steps: Record<string, unknown>;
  schema: ArgumentSchema;
  delimiters: TemplateDelimiters;
  yaml: YamlSource;
  report: DocumentReport;
}

const STEPS_PATH: IssuePath = ['spec', 'steps'];

export function checkTemplate(options: CheckTemplateOptions): void {
  const { steps, schema, delimiters, yaml, report } = options;
  for (const key of templateKeys(steps)) {
    if (!key.text.includes(delimiters.left)) continue;
    const path = [...STEPS_PATH, ...key.path];
    const message = `Placeholders are not allowed in field names, got "${key.text}"; use them in values`;
    report(path, message, ISSUE_CODES.unsupported, yaml.locate(path, 'key'));
  }
  // With additionalProperties left open, a step may pass arguments the schema does not list.
  const declared =
    schema.additionalProperties === false ? Object.keys(schema.properties ?? {}) : undefined;
  for (const { path: inSteps, text } of templateStrings(steps, delimiters)) {
    if (!text.includes(delimiters.left)) continue;
    const path = [...STEPS_PATH, ...inSteps];
    const at = (offset: number) => yaml.locateInScalar(path, offset) ?? yaml.locate(path);
    const parsed = parseTemplate(text, delimiters);
    if (!parsed.ok) {
      for (const p of parsed.problems)
        report(path, p.message, ISSUE_CODES.invalidValue, at(p.offset));
      continue;
    }
    if (declared === undefined) continue;
    for (const ref of templateReferences(parsed.nodes)) {
      const name = ref.path[0] ?? '';
      if (declared.includes(name)) continue;
      const hint = didYouMean(name, declared);
      const known =
        hint !== ''
          ? hint
          : `; it declares ${declared.map((d) => `"${d}"`).join(', ') || 'no arguments'}`;
      const message = `The template uses argument "${name}", which "spec.arguments" does not declare${known}`;
      report(path, message, ISSUE_CODES.invalidValue, at(ref.offset));
    }
  }
}
