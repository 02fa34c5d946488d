/**
 * Kubernetes resource quantities (`500m`, `16Gi`, `1e3`): the grammar of
 * `resource.ParseQuantity`, a numeric value for comparisons (requests against limits), and a
 * hint for the usual slips (`16GB`, `16gi`, `16 Gi`).
 * @module
 */
import { z } from 'zod';
import { typeName } from '../describe-value.js';

const QUANTITY = /^\+?(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

const MULTIPLIERS: Readonly<Record<string, number>> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** True for a non-negative Kubernetes quantity such as `500m`, `16Gi` or `1.5`. */
export function isQuantity(text: string): boolean {
  return QUANTITY.test(text);
}

/** The quantity as a plain number (`500m` → 0.5, `1Ki` → 1024), or undefined if invalid. */
export function quantityValue(text: string): number | undefined {
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  const suffix = match[3] ?? '';
  const number = Number(match[1]);
  if (/^[eE]/.test(suffix)) return number * 10 ** Number(suffix.slice(1));
  return number * (MULTIPLIERS[suffix] ?? 1);
}

/** `16GB` → `16Gi`, `512mb` → `512Mi`: what was most likely meant, if anything. */
export function suggestQuantity(text: string): string | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgtpe])(i?)b?\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = (match[2] ?? '').toUpperCase();
  const suggestion = `${match[1] ?? ''}${unit === 'K' ? 'K' : unit}i`;
  return suggestion === text ? undefined : suggestion;
}

function quantityMessage(input: unknown, example: string): string {
  const hint = typeof input === 'string' ? suggestQuantity(input) : undefined;
  const tail = hint === undefined ? '' : `; did you mean "${hint}"?`;
  return `must be a Kubernetes quantity such as ${example}, got ${typeName(input)}${tail}`;
}

/** A size written as text, as `volumeSize` and `sizeLimit` take it. */
export const sizeQuantity = z
  .string()
  .refine(isQuantity, { error: (issue) => quantityMessage(issue.input, '16Gi') });

/**
 * A resource amount: text, or a plain number as YAML reads `cpu: 1` (kept as text, the way
 * Kubernetes prints it back).
 */
export const resourceQuantity = z
  .union([z.string(), z.number()])
  .transform(String)
  .refine(isQuantity, { error: (issue) => quantityMessage(issue.input, '500m or 2Gi') });
