/**
 * Small readers shared by the model builders: values that passed validation, read into the
 * model's types (booleans written as strings, one command or a list, `KEY=value` lists).
 * @module
 */
import { scalarText } from './schema/validators.js';

export type Raw = Record<string, unknown>;

/** `fail_fast` and friends: a boolean or its string; the map form keeps the default. */
export const asBool = (value: unknown, fallback: boolean) =>
  typeof value === 'boolean'
    ? value
    : value === 'true' || value === 'false'
      ? value === 'true'
      : fallback;

/** One string is one entry (a `commands: |` block stays one script). */
export const asList = (value: unknown): string[] | undefined =>
  value === undefined || value === null
    ? undefined
    : Array.isArray(value)
      ? value.map(scalarText)
      : [scalarText(value)];

export const optionalString = (value: unknown): string | undefined =>
  value === undefined || value === null ? undefined : scalarText(value);

/** A number written as a number or its string; `fallback` when the field is absent. */
export const asNumber = <T extends number | undefined>(value: unknown, fallback: T) =>
  value === undefined || value === null ? fallback : Number(value);

export const asMap = (value: unknown): Raw | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Raw) : undefined;

/** `KEY=value` entries or a map, as ordered pairs. */
export function environmentPairs(value: unknown): [string, string][] {
  if (Array.isArray(value)) {
    return value.map((entry) => {
      const text = scalarText(entry);
      const eq = text.indexOf('=');
      return eq === -1 ? [text, ''] : [text.slice(0, eq), text.slice(eq + 1)];
    });
  }
  const map = asMap(value);
  if (map !== undefined) {
    return Object.entries(map).map(([k, v]) => [k, v === null ? '' : scalarText(v)]);
  }
  return [];
}

/** `tag` then `tags`, without repeats; `fallback` when neither is written. */
export function tagList(tag: unknown, tags: unknown, fallback: string): string[] {
  const all = [...(asList(tag) ?? []), ...(asList(tags) ?? [])];
  const unique = all.filter((t, i) => all.indexOf(t) === i);
  return unique.length > 0 ? unique : [fallback];
}
