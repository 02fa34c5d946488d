/**
 * `${{NAME}}` interpolation, Codefresh style: a known name is replaced by its value, an unknown
 * one stays as written (so `includes("${{X}}", "{{X}}")` tests whether X is set).
 * @module
 */

const PLACEHOLDER = /\$\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

export type VariableLookup = (name: string) => string | undefined;

export function interpolate(text: string, lookup: VariableLookup): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => lookup(name) ?? whole);
}

/** Names referenced by `${{…}}` in `text`, in order of appearance. */
export function referencedVariables(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1] ?? '');
}

/**
 * Replaces each placeholder with an identifier of the same length, so an expression that still
 * holds `${{X}}` can be parsed for syntax before run time with its columns unchanged.
 */
export function maskPlaceholders(text: string): string {
  return text.replace(PLACEHOLDER, (whole) => '_'.repeat(whole.length));
}
