/**
 * Finds the node at a field path in a parsed YAML document in time proportional to the path,
 * not to the document: each map's keys are indexed the first time a path goes through it, and
 * every alias's anchor is found in one walk. Locating each of 14,000 steps by scanning its map
 * and resolving aliases through the library (which walks the whole document per alias) was
 * quadratic: seconds for a 1 MB pipeline.
 * @module
 */
import { isAlias, isMap, isPair, isScalar, isSeq } from 'yaml';
import type { Alias, Document, Node, Pair, YAMLMap } from 'yaml';
import { isMergeKey } from './yaml-structure.js';
import type { IssuePath } from './pipeline-issue.js';

export interface FoundNode {
  node: Node | null;
  key: Node | null;
  /** False when the path ran past what exists and an ancestor was returned. */
  exact: boolean;
}

export interface NodeIndex {
  find(path: IssuePath): FoundNode;
}

interface MapKeys {
  /** The first pair written with each key, as the key reads in the plain value. */
  byKey: Map<string, Pair>;
  /** `<<` pairs, in order: their sources are searched when a key is not written here. */
  merges: Pair[];
}

/** Merge sources nest no deeper than this, as before the index (a real file has one or two). */
const MAX_MERGE_DEPTH = 20;

export function createNodeIndex(doc: Document): NodeIndex {
  const maps = new WeakMap<YAMLMap, MapKeys>();
  let anchors: Map<Alias, Node> | undefined;
  const resolve = (node: Node | null | undefined): Node | null => {
    if (!isAlias(node)) return node ?? null;
    anchors ??= aliasTargets(doc);
    return anchors.get(node) ?? null;
  };
  const keysOf = (map: YAMLMap): MapKeys => {
    let keys = maps.get(map);
    if (keys === undefined) maps.set(map, (keys = indexKeys(map)));
    return keys;
  };
  const childPair = (
    node: Node | null,
    part: string | number,
    depth: number,
  ): Pair | Node | undefined => {
    if (isSeq(node) && typeof part === 'number') {
      const item = node.items[part];
      return item === undefined || item === null ? undefined : (item as Node);
    }
    if (!isMap(node) || depth > MAX_MERGE_DEPTH) return undefined;
    const keys = keysOf(node);
    const own = keys.byKey.get(String(part));
    if (own !== undefined) return own;
    // A merge key brings in the fields of the anchored maps, the first source winning.
    for (const merge of keys.merges) {
      const sources = resolve(merge.value as Node | null);
      const list = isSeq(sources) ? sources.items.map((i) => resolve(i as Node)) : [sources];
      for (const source of list) {
        const found = childPair(source, part, depth + 1);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  return {
    find(path) {
      let node = resolve(doc.contents);
      let key: Node | null = null;
      for (const part of path) {
        const pair = childPair(node, part, 0);
        if (pair === undefined) return { node, key, exact: false };
        if (isPair(pair)) {
          key = isScalar(pair.key) ? pair.key : null;
          node = resolve(pair.value as Node | null);
          if (node === null) return { node: key, key, exact: false };
        } else {
          key = null;
          node = resolve(pair);
        }
      }
      return { node, key, exact: true };
    },
  };
}

function indexKeys(map: YAMLMap): MapKeys {
  const keys: MapKeys = { byKey: new Map(), merges: [] };
  for (const pair of map.items) {
    if (isMergeKey(pair)) keys.merges.push(pair);
    else if (isScalar(pair.key)) {
      const text = keyText(pair.key.value);
      if (!keys.byKey.has(text)) keys.byKey.set(text, pair);
    }
  }
  return keys;
}

/** A key as it appears in the plain value: `~` and an empty key become "". */
function keyText(value: unknown): string {
  if (typeof value === 'string') return value;
  const scalar =
    typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint';
  return scalar ? String(value) : '';
}

/**
 * What each alias stands for: the last node before it, in document order, with its anchor (the
 * library's own rule). One walk, without recursion, keys before values.
 */
export function aliasTargets(doc: Document): Map<Alias, Node> {
  const targets = new Map<Alias, Node>();
  const named = new Map<string, Node>();
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const item = stack.pop();
    if (isAlias(item)) {
      const target = named.get(item.source);
      if (target !== undefined) targets.set(item, target);
    } else if (isPair(item)) {
      stack.push(item.value, item.key);
    } else if (isMap(item) || isSeq(item) || isScalar(item)) {
      if (item.anchor) named.set(item.anchor, item);
      if (!isScalar(item))
        for (let i = item.items.length - 1; i >= 0; i--) stack.push(item.items[i]);
    }
  }
  return targets;
}
