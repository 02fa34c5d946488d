/**
 * What an apply would change in an object, field by field: the live object against the API
 * server's dry run of the apply (both as the server shows them, defaults filled in), so a plan
 * can say `update` with the fields rather than trusting a resourceVersion that a dry run never
 * moves. What the server keeps for itself (managedFields, resourceVersion, generation, uid,
 * creationTimestamp) and `status` are left out; a Secret's values are never shown.
 * @module
 */

/**
 * One changed field: a dotted path, named list items by name
 * (`spec.template.spec.containers[agent].image`), before and after.
 */
export interface FieldChange {
  path: string;
  /** undefined when the field is new. */
  before: unknown;
  /** undefined when the field goes. */
  after: unknown;
}

const SERVER_METADATA = [
  'managedFields',
  'resourceVersion',
  'generation',
  'uid',
  'creationTimestamp',
  'selfLink',
];
/** Kinds whose field values are secret: only the fact of a change is shown. */
const SECRET_KINDS = new Set(['Secret']);
export const HIDDEN_VALUE = '(hidden)';

function comparable(object: Record<string, unknown>): Record<string, unknown> {
  const { status: _status, metadata, ...rest } = object;
  const meta = { ...(metadata as Record<string, unknown> | undefined) };
  for (const key of SERVER_METADATA) delete meta[key];
  return { ...rest, metadata: meta };
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(before: unknown, after: unknown, path: string, out: FieldChange[]): void {
  if (isMap(before) && isMap(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      const child = /^[A-Za-z_][\w-]*$/.test(key)
        ? `${path}.${key}`
        : `${path}[${JSON.stringify(key)}]`;
      walk(before[key], after[key], child, out);
    }
    return;
  }
  const beforeByName = byName(before, after);
  const afterByName = byName(after, before);
  if (beforeByName !== undefined && afterByName !== undefined) {
    // Kubernetes' named lists (containers, env, ports, volumes) by name, as their merge keys.
    const names = [...new Set([...beforeByName.keys(), ...afterByName.keys()])].sort();
    for (const name of names)
      walk(beforeByName.get(name), afterByName.get(name), `${path}[${name}]`, out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, i) => walk(item, after[i], `${path}[${i}]`, out));
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) out.push({ path, before, after });
}

/**
 * A list of maps each with its own `name`, by name (an empty list too, when `other` is such a
 * list); undefined for any other value.
 */
function byName(value: unknown, other?: unknown): Map<string, unknown> | undefined {
  if (!Array.isArray(value)) return undefined;
  if (value.length === 0)
    return other === undefined || byName(other) === undefined ? undefined : new Map();
  const map = new Map<string, unknown>();
  for (const item of value) {
    const name = isMap(item) ? item['name'] : undefined;
    if (typeof name !== 'string' || map.has(name)) return undefined;
    map.set(name, item);
  }
  return map;
}

/** The fields `after` changes in `before`, in path order; empty when the apply changes nothing. */
export function objectChanges(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): FieldChange[] {
  const out: FieldChange[] = [];
  walk(comparable(before), comparable(after), '', out);
  const changes = out.map((change) => ({ ...change, path: change.path.replace(/^\./, '') }));
  if (!SECRET_KINDS.has(String(after['kind']))) return changes;
  return changes.map((change) =>
    /^(data|stringData)\b/.test(change.path)
      ? {
          path: change.path,
          before: change.before === undefined ? undefined : HIDDEN_VALUE,
          after: change.after === undefined ? undefined : HIDDEN_VALUE,
        }
      : change,
  );
}

/** A change as one line: `path: before → after` (values as JSON, shortened). */
export function describeChange(change: FieldChange, width = 60): string {
  const show = (value: unknown) => {
    if (value === undefined) return '(none)';
    if (value === HIDDEN_VALUE) return value;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return text.length > width ? `${text.slice(0, width - 1)}…` : text;
  };
  return `${change.path}: ${show(change.before)} → ${show(change.after)}`;
}
