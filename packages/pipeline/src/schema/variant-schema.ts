/**
 * `matrix:` and `scale:` on a step (implicit parallel steps): `matrix` maps fields to lists of
 * values, one step per combination; `scale` maps variant names to the fields that differ. Each
 * value is checked with the schema of the field it sets, at the place it is written.
 * @module
 */
import { didYouMean } from '@sluice/errors';
import { ISSUE_CODES } from '../pipeline-issue.js';
import { isPlainMap, leaf, reportNotRun, typeName } from './validators.js';
import type { Fields, FieldSpec, SchemaContext } from './validators.js';
import type { IssuePath } from '../pipeline-issue.js';

/** Far more than a real matrix; each combination is a container. */
const MAX_VARIANTS = 256;

/** Fields a variant may not set: they decide what the step is, not how one copy differs. */
const FIXED = new Set(['type', 'matrix', 'scale', 'when', 'stage']);

/** Fields every variant sets, so the step itself need not. */
export function providedByVariants(step: Record<string, unknown>): Set<string> {
  const provided = new Set<string>();
  if (isPlainMap(step.matrix)) for (const key of Object.keys(step.matrix)) provided.add(key);
  if (isPlainMap(step.scale)) {
    const variants = Object.values(step.scale).map((v) => (isPlainMap(v) ? Object.keys(v) : []));
    const [first = [], ...rest] = variants;
    for (const key of first) if (rest.every((keys) => keys.includes(key))) provided.add(key);
  }
  return provided;
}

/**
 * A matrix field's values, one per copy. `environment: [A=1, A=2]` is what real pipelines write
 * for two copies with one variable each, so a `KEY=value` string stands for a one-entry list.
 */
export function matrixValues(key: string, values: unknown[]): unknown[] {
  if (key !== 'environment') return values;
  return values.map((value) => (typeof value === 'string' ? [value] : value));
}

export function checkVariants(
  fields: Fields,
  step: Record<string, unknown>,
  path: IssuePath,
  ctx: SchemaContext,
): void {
  if (step.matrix !== undefined && step.scale !== undefined) {
    ctx.report([...path, 'scale'], 'A step takes "matrix" or "scale", not both', { at: 'key' });
  }
  if (step.matrix !== undefined) checkMatrix(fields, step.matrix, [...path, 'matrix'], ctx);
  if (step.scale !== undefined) checkScale(fields, step.scale, [...path, 'scale'], ctx);
}

function checkMatrix(fields: Fields, matrix: unknown, path: IssuePath, ctx: SchemaContext): void {
  if (!isPlainMap(matrix) || Object.keys(matrix).length === 0) {
    ctx.report(path, `"matrix" must map fields to lists of values, got ${typeName(matrix)}`);
    return;
  }
  let combinations = 1;
  for (const [key, values] of Object.entries(matrix)) {
    const spec = variantField(fields, key, [...path, key], ctx);
    if (spec === undefined) continue;
    if (!Array.isArray(values) || values.length === 0) {
      ctx.report(
        [...path, key],
        `${leaf([...path, key])} in "matrix" must be a list of values, got ${typeName(values)}`,
      );
      continue;
    }
    combinations *= values.length;
    matrixValues(key, values).forEach((value, index) =>
      spec.schema.check(value, [...path, key, index], ctx),
    );
  }
  if (combinations > MAX_VARIANTS) {
    ctx.report(path, `"matrix" makes ${combinations} steps, more than ${MAX_VARIANTS}`, {
      at: 'key',
    });
  }
}

function checkScale(fields: Fields, scale: unknown, path: IssuePath, ctx: SchemaContext): void {
  if (!isPlainMap(scale) || Object.keys(scale).length === 0) {
    ctx.report(
      path,
      `"scale" must map step names to the fields they change, got ${typeName(scale)}`,
    );
    return;
  }
  if (Object.keys(scale).length > MAX_VARIANTS) {
    ctx.report(path, `"scale" makes more than ${MAX_VARIANTS} steps`, { at: 'key' });
  }
  for (const [variant, overrides] of Object.entries(scale)) {
    const at = [...path, variant];
    if (variant === '') ctx.report(at, 'A "scale" variant needs a name', { at: 'key' });
    if (overrides === null) continue;
    if (!isPlainMap(overrides)) {
      ctx.report(
        at,
        `Variant "${variant}" of "scale" must be a map of fields, got ${typeName(overrides)}`,
      );
      continue;
    }
    for (const [key, value] of Object.entries(overrides)) {
      variantField(fields, key, [...at, key], ctx)?.schema.check(value, [...at, key], ctx);
    }
  }
}

/** The field a variant sets, or undefined after reporting why it cannot set it. */
function variantField(
  fields: Fields,
  key: string,
  path: IssuePath,
  ctx: SchemaContext,
): FieldSpec | undefined {
  const found = fields[key];
  if (found === undefined || FIXED.has(key)) {
    const hint = found === undefined ? didYouMean(key, Object.keys(fields)) : '';
    const message = FIXED.has(key)
      ? `"${key}" cannot differ between the steps a matrix or scale makes`
      : `Unknown field "${key}"${hint}`;
    ctx.report(path, message, {
      code: FIXED.has(key) ? ISSUE_CODES.invalidValue : ISSUE_CODES.unknownField,
      at: 'key',
    });
    return undefined;
  }
  const spec = 'check' in found ? { schema: found } : found;
  if (spec.notRun) reportNotRun(ctx, { construct: `Field "${key}"`, ...spec.notRun, path });
  return spec;
}
