/**
 * Walks a step type's `spec.steps` and applies the template to every string value in it,
 * giving the raw step maps of one typed step. Also lists those strings, for the checks made when
 * the step-type document is parsed.
 * @module
 */
import type { IssuePath } from '../pipeline-issue.js';
import { DEFAULT_DELIMITERS, parseTemplate, renderTemplate } from './template.js';
import type { TemplateDelimiters } from './template.js';
import { isPlainMap } from '../schema/validators.js';

export interface TemplateString {
  /** Where the string is, relative to `spec.steps`. */
  path: IssuePath;
  text: string;
}

/**
 * `image: [[ .Arguments.IMAGE ]]` without quotes is, to YAML, a list holding a list holding the
 * string ".Arguments.IMAGE". Codefresh templates the text before YAML reads it, so its step
 * types are written that way; read the shape back as the placeholder it was meant to be.
 */
function unquotedAction(value: unknown, delimiters: TemplateDelimiters): string | undefined {
  const isDefault =
    delimiters.left === DEFAULT_DELIMITERS.left && delimiters.right === DEFAULT_DELIMITERS.right;
  if (!isDefault || !Array.isArray(value) || value.length !== 1) return undefined;
  const inner: unknown = value[0];
  if (!Array.isArray(inner) || inner.length !== 1 || typeof inner[0] !== 'string') return undefined;
  const action = inner[0].trim();
  return /^(\.Arguments\b|if\b|else$|end$)/.test(action) ? `[[ ${action} ]]` : undefined;
}

/** Every string in the template, with its path; an unquoted placeholder counts as a string. */
export function templateStrings(
  value: unknown,
  delimiters: TemplateDelimiters,
  path: IssuePath = [],
): TemplateString[] {
  if (typeof value === 'string') return [{ path, text: value }];
  const action = unquotedAction(value, delimiters);
  if (action !== undefined) return [{ path: [...path, 0, 0], text: action }];
  if (Array.isArray(value))
    return value.flatMap((v, i) => templateStrings(v, delimiters, [...path, i]));
  if (isPlainMap(value)) {
    return Object.entries(value).flatMap(([k, v]) => templateStrings(v, delimiters, [...path, k]));
  }
  return [];
}

/** Every map key in the template, with its path; placeholders are not allowed there. */
export function templateKeys(value: unknown, path: IssuePath = []): TemplateString[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => templateKeys(v, [...path, i]));
  if (!isPlainMap(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => [
    { path: [...path, k], text: k },
    ...templateKeys(v, [...path, k]),
  ]);
}

/** A new copy of `steps` with every string rendered; the template itself is left unchanged. */
export function expandTemplate(
  steps: Record<string, unknown>,
  args: Record<string, unknown>,
  delimiters: TemplateDelimiters,
): Record<string, unknown> {
  const out = render(steps, args, delimiters);
  return isPlainMap(out) ? out : {};
}

function render(
  value: unknown,
  args: Record<string, unknown>,
  delimiters: TemplateDelimiters,
): unknown {
  if (typeof value === 'string') return renderString(value, args, delimiters);
  const action = unquotedAction(value, delimiters);
  if (action !== undefined) return renderString(action, args, delimiters);
  if (Array.isArray(value)) return value.map((v) => render(v, args, delimiters));
  if (isPlainMap(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, render(v, args, delimiters)]),
    );
  }
  return value;
}

function renderString(
  text: string,
  args: Record<string, unknown>,
  delimiters: TemplateDelimiters,
): unknown {
  if (!text.includes(delimiters.left)) return text;
  const parsed = parseTemplate(text, delimiters);
  // The document was checked when it was parsed; a string that still fails is left as written.
  return parsed.ok ? renderTemplate(parsed.nodes, args) : text;
}
