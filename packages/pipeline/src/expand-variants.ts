/**
 * Implicit parallel steps (reference §5.3 parallel): a step with `matrix` or `scale` becomes a
 * parallel step of the same name whose steps are its copies. `matrix` makes one copy per
 * combination of the listed values, named `<step>_0`, `<step>_1`… in the order of the cartesian
 * product (first field slowest); `scale` makes one copy per variant, named by the variant's key as
 * Codefresh does. Fields of a copy replace the step's, but `environment`, which is merged; a
 * matrix's `environment` value may be one `KEY=value` string instead of a list.
 * @module
 */
import { isPlainMap, scalarText } from './schema/validators.js';
import { matrixValues } from './schema/variant-schema.js';

type Raw = Record<string, unknown>;

export interface StepVariant {
  name: string;
  kind: 'matrix' | 'scale';
  /** `image=node:18, environment=[CI=1]` for a matrix, the variant's key for a scale. */
  label: string;
  raw: Raw;
}

/** Fields the parallel step keeps for itself rather than handing to its copies. */
const PARENT_ONLY = new Set(['matrix', 'scale', 'when']);

export function hasVariants(raw: Raw): boolean {
  return raw.matrix !== undefined || raw.scale !== undefined;
}

export function stepVariants(name: string, raw: Raw): StepVariant[] {
  const base: Raw = {};
  for (const [key, value] of Object.entries(raw)) if (!PARENT_ONLY.has(key)) base[key] = value;
  if (isPlainMap(raw.matrix)) {
    return combinations(raw.matrix).map((combo, index) => ({
      name: `${name}_${index}`,
      kind: 'matrix',
      label: combo.map(([key, value]) => `${key}=${labelText(value)}`).join(', '),
      raw: merge(base, Object.fromEntries(combo)),
    }));
  }
  if (isPlainMap(raw.scale)) {
    return Object.entries(raw.scale).map(([variant, overrides]) => ({
      name: variant,
      kind: 'scale',
      label: variant,
      raw: merge(base, isPlainMap(overrides) ? overrides : {}),
    }));
  }
  return [];
}

function combinations(matrix: Raw): [string, unknown][][] {
  let out: [string, unknown][][] = [[]];
  for (const [key, values] of Object.entries(matrix)) {
    const list = matrixValues(key, Array.isArray(values) ? values : [values]);
    out = out.flatMap((combo) =>
      list.map((value): [string, unknown][] => [...combo, [key, value]]),
    );
  }
  return out;
}

function merge(base: Raw, overrides: Raw): Raw {
  const out: Raw = { ...base, ...overrides };
  if (base.environment !== undefined && overrides.environment !== undefined) {
    const entries = [
      ...environmentList(base.environment),
      ...environmentList(overrides.environment),
    ];
    // A variable the copy sets again replaces the step's.
    const keyOf = (entry: unknown) => scalarText(entry).split('=')[0];
    out.environment = entries.filter(
      (entry, i) => !entries.slice(i + 1).some((later) => keyOf(later) === keyOf(entry)),
    );
  }
  return out;
}

/** Either form of `environment` as `KEY=value` entries. */
function environmentList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isPlainMap(value)) {
    return Object.entries(value).map(([k, v]) => `${k}=${v === null ? '' : scalarText(v)}`);
  }
  return [];
}

function labelText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(labelText).join(', ')}]`;
  if (isPlainMap(value)) return labelText(environmentList(value));
  return scalarText(value);
}
