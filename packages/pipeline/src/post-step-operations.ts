/**
 * Post-step operations as the engine runs them: `annotations` and `metadata` of a step's
 * `on_success`/`on_fail`/`on_finish`, read into one list of per-entity changes in the order
 * written (`annotations` first). Entries Sluice does not keep (another build's, a pipeline's)
 * are left out here; validation has named them (schema/post-step-schema.ts).
 * @module
 */
import type { AnnotationOperation, AnnotationValueInput, PostStepOperations } from './model.js';
import { isPlainMap } from './schema/validators.js';

export function readPostStepOperations(raw: unknown): PostStepOperations | undefined {
  if (!isPlainMap(raw)) return undefined;
  const operations = [
    ...annotationEntries(raw.annotations),
    ...metadataEntries(raw.metadata),
  ].filter((op) => op.set.length > 0 || op.unset.length > 0);
  return operations.length === 0 ? undefined : { annotations: operations };
}

function annotationEntries(raw: unknown): AnnotationOperation[] {
  if (!isPlainMap(raw)) return [];
  const read = (entries: unknown, unset: boolean): AnnotationOperation[] =>
    listOf(entries).flatMap((entry) => {
      if (!isPlainMap(entry)) return [];
      const type = entry.entity_type ?? 'build';
      const id = entry.entity_id;
      if (type === 'build' && id === undefined)
        return [operation({ entity: 'build' }, entry.annotations, unset)];
      if (type === 'image' && (typeof id === 'string' || typeof id === 'number'))
        return [operation({ entity: 'image', image: String(id) }, entry.annotations, unset)];
      return [];
    });
  return [...read(raw.set, false), ...read(raw.unset, true)];
}

function metadataEntries(raw: unknown): AnnotationOperation[] {
  if (!isPlainMap(raw)) return [];
  const read = (entries: unknown, unset: boolean): AnnotationOperation[] =>
    listOf(entries).flatMap((entry) =>
      isPlainMap(entry)
        ? Object.entries(entry).map(([image, items]) =>
            operation({ entity: 'image', image }, items, unset),
          )
        : [],
    );
  return [...read(raw.set, false), ...read(raw.unset, true)];
}

function operation(
  target: Pick<AnnotationOperation, 'entity' | 'image'>,
  items: unknown,
  unset: boolean,
): AnnotationOperation {
  const pairs = listOf(items).flatMap(itemPairs);
  return unset
    ? { ...target, set: [], unset: pairs.map(([name]) => name) }
    : { ...target, set: pairs, unset: [] };
}

/** `name` → [name, null]; `{name: value, …}` → each pair. */
function itemPairs(item: unknown): [string, AnnotationValueInput][] {
  if (typeof item === 'string' || typeof item === 'number') return [[String(item), null]];
  if (!isPlainMap(item)) return [];
  return Object.entries(item).map(([name, value]) => [name, scalarOf(value)]);
}

function scalarOf(value: unknown): AnnotationValueInput {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  // Validation refused maps and lists; what is left is a YAML date or the like.
  return value instanceof Date ? value.toISOString() : JSON.stringify(value);
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
