/**
 * Where a field path is in a YAML document, as 1-based line and column: the key of a field
 * (for unknown fields) or its value, or the nearest ancestor when the path does not exist (for
 * missing fields). Aliases are followed; merge keys are not, so a field that only comes from
 * `<<: *anchor` is placed at the map that merges it. Offsets become line and column with
 * `positionIndex` of @sluice/errors, which the pipeline parser uses too.
 * @module
 */
import { isAlias, isMap, isPair, isScalar, isSeq } from 'yaml';
import type { Document, Node } from 'yaml';

/** Start offset of the node at `path` (its key with `at: 'key'`), nearest ancestor if absent. */
export function offsetOf(
  doc: Document,
  path: readonly (string | number)[],
  at: 'key' | 'value',
): number {
  let node = resolve(doc, doc.contents);
  let keyNode: Node | null = null;
  for (const part of path) {
    const next = childOf(doc, node, part);
    if (next === undefined) return node?.range?.[0] ?? 0;
    keyNode = next.key;
    // `key:` with nothing after it has no value node; its key is the place to point at.
    node = next.value ?? next.key;
  }
  const target = at === 'key' && keyNode !== null ? keyNode : node;
  return target?.range?.[0] ?? 0;
}

interface Child {
  key: Node | null;
  value: Node | null;
}

function childOf(doc: Document, node: Node | null, part: string | number): Child | undefined {
  if (isSeq(node) && typeof part === 'number') {
    const item = node.items[part];
    return item === undefined ? undefined : { key: null, value: resolve(doc, item as Node) };
  }
  if (!isMap(node)) return undefined;
  const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(part));
  if (pair === undefined || !isPair(pair)) return undefined;
  return { key: pair.key as Node, value: resolve(doc, pair.value as Node | null) };
}

function resolve(doc: Document, node: Node | null | undefined): Node | null {
  let current = node ?? null;
  for (let hops = 0; isAlias(current) && hops < 100; hops++) {
    current = (current.resolve(doc) as Node | undefined) ?? null;
  }
  return isAlias(current) ? null : current;
}
