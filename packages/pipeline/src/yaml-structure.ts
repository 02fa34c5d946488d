/**
 * Checks a parsed YAML document for shapes that would make turning it into plain values crash,
 * hang or silently lose data: aliases that point at nothing or at a value containing them
 * (infinite), alias bombs, merge keys over non-maps, map keys that are maps or lists, and
 * nesting deep enough to exhaust the stack. Walks without recursion, once, in document order.
 * @module
 */
import { isAlias, isMap, isPair, isScalar, isSeq } from 'yaml';
import type { Document, Node, Pair } from 'yaml';

export interface StructureProblem {
  /** Offset into the YAML text. */
  offset: number;
  message: string;
}

/** Far beyond any real pipeline, far below what exhausts the stack. */
const MAX_DEPTH = 100;
/**
 * Values aliases may add to what is written (an alias bomb adds millions); a real pipeline adds a
 * few thousand. What is written is bounded by the size limit, so it does not count: a 1 MiB file
 * holds some 300,000 values, and one small alias in it is no bomb.
 */
const MAX_EXPANDED_NODES = 100_000;
/**
 * Aliases in one file. Turning the document into values (the library's `toJS`) looks each alias
 * up among all anchors and aliases before it, which is quadratic in their number.
 */
const MAX_ALIASES = 20_000;

type Item = Node | Pair<Node | null, Node | null>;

interface Frame {
  item: Item;
  kids: (Item | null)[];
  next: number;
  depth: number;
}

interface Walk {
  stack: Frame[];
  anchors: Map<string, Node>;
  /** Collections being walked: an alias to one of them would be infinite. */
  open: Set<Item>;
  /** Node counts with aliases expanded. */
  sizes: Map<Item, number>;
  problems: StructureProblem[];
  biggestAlias: { node: Node; size: number } | undefined;
  /** Values and pairs as written, an alias counting one. */
  written: number;
  aliases: number;
}

export function checkYamlStructure(doc: Document): StructureProblem[] {
  const root = doc.contents;
  if (root === null) return [];
  const walk: Walk = {
    stack: [],
    anchors: new Map(),
    open: new Set(),
    sizes: new Map(),
    problems: [],
    biggestAlias: undefined,
    written: 0,
    aliases: 0,
  };
  if (!enter(root, walk)) return walk.problems;
  while (walk.stack.length > 0) {
    const top = walk.stack[walk.stack.length - 1] as Frame;
    const kid = top.next < top.kids.length ? top.kids[top.next++] : undefined;
    if (kid === undefined) leave(top, walk);
    else if (kid !== null && !enter(kid, walk)) return walk.problems;
  }
  return [...walk.problems, ...expansionProblem(walk, size(walk, root))];
}

/** False when the walk must stop: nesting this deep would overflow the stack later. */
function enter(item: Item, walk: Walk): boolean {
  const depth = (walk.stack[walk.stack.length - 1]?.depth ?? 0) + (isPair(item) ? 0 : 1);
  if (depth > MAX_DEPTH) {
    const message = `Values are nested more than ${MAX_DEPTH} levels deep`;
    walk.problems.push({ offset: start(isPair(item) ? item.key : item), message });
    return false;
  }
  walk.written++;
  if (isAlias(item)) {
    if (++walk.aliases > MAX_ALIASES) {
      const message = `The file uses more than ${MAX_ALIASES} aliases; write the values out or use fewer anchors`;
      walk.problems.push({ offset: start(item), message });
      return false;
    }
    visitAlias(item, walk);
    return true;
  }
  if (!isPair(item) && item.anchor) walk.anchors.set(item.anchor, item);
  walk.stack.push({ item, kids: children(item), next: 0, depth });
  walk.open.add(item);
  return true;
}

function leave(frame: Frame, walk: Walk): void {
  walk.stack.pop();
  walk.open.delete(frame.item);
  walk.sizes.set(
    frame.item,
    frame.kids.reduce((n, k) => n + size(walk, k), 1),
  );
  // After both halves were walked, every anchor the pair may use is known.
  if (isPair(frame.item)) visitPair(frame.item, walk);
}

function visitAlias(alias: Node & { source: string }, walk: Walk): void {
  const target = walk.anchors.get(alias.source);
  if (target === undefined) {
    walk.problems.push({
      offset: start(alias),
      message: `Alias "*${alias.source}" has no anchor "&${alias.source}" before it`,
    });
  } else if (walk.open.has(target)) {
    walk.problems.push({
      offset: start(alias),
      message: `Alias "*${alias.source}" is inside the value it refers to, which would repeat forever`,
    });
  } else {
    const expanded = size(walk, target);
    walk.sizes.set(alias, expanded);
    if (expanded > (walk.biggestAlias?.size ?? 0))
      walk.biggestAlias = { node: alias, size: expanded };
  }
}

function visitPair(pair: Pair<Node | null, Node | null>, walk: Walk): void {
  const key = target(walk, pair.key);
  const kind = key === null ? undefined : keyKind(key);
  if (kind !== undefined) {
    walk.problems.push({ offset: start(pair.key), message: `A key must be a name, got ${kind}` });
  }
  if (!isMergeKey(pair)) return;
  // `<<: *defaults` or `<<: [*a, *b]`: every source must be a map.
  const value = target(walk, pair.value);
  const sources = isSeq(value) ? (value.items as Node[]) : [pair.value];
  for (const source of sources) {
    const resolved = target(walk, source);
    if (resolved === null || isMap(resolved)) continue;
    walk.problems.push({
      offset: start(source ?? pair.key),
      message: `Merge key "<<" takes a map or a list of maps, got ${describe(resolved)}`,
    });
  }
}

/** With `merge: true` the parser gives an unquoted `<<` key a symbol value. */
export function isMergeKey(pair: Pair<unknown, unknown>): boolean {
  return isScalar(pair.key) && typeof pair.key.value === 'symbol';
}

function expansionProblem(walk: Walk, total: number): StructureProblem[] {
  if (total - walk.written <= MAX_EXPANDED_NODES || walk.biggestAlias === undefined) return [];
  const { node, size: biggest } = walk.biggestAlias;
  const name = (node as Node & { source: string }).source;
  return [
    {
      offset: start(node),
      message: `Aliases expand the file to ${total} values, more than ${MAX_EXPANDED_NODES}; "*${name}" alone repeats ${biggest}`,
    },
  ];
}

/** What a key that cannot be a name is: a collection, or bytes and dates from a tag. */
function keyKind(key: Node): string | undefined {
  if (isMap(key)) return 'a map';
  if (isSeq(key)) return 'a list';
  if (!isScalar(key) || typeof key.value !== 'object' || key.value === null) return undefined;
  return key.value instanceof Uint8Array ? 'binary data' : 'a tagged value';
}

function children(item: Item): (Item | null)[] {
  if (isPair(item)) return [item.key, item.value];
  if (isMap(item) || isSeq(item)) return item.items as (Item | null)[];
  return [];
}

/** The node an alias stands for, as known so far; other nodes as they are. */
function target(walk: Walk, node: Node | null | undefined): Node | null {
  if (node === null || node === undefined) return null;
  return isAlias(node) ? (walk.anchors.get(node.source) ?? null) : node;
}

function size(walk: Walk, item: Item | null): number {
  return item === null ? 0 : (walk.sizes.get(item) ?? 1);
}

function start(node: Node | null | undefined): number {
  return node?.range?.[0] ?? 0;
}

function describe(node: Node): string {
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) return node.value === null ? 'nothing' : JSON.stringify(node.source);
  return 'a value that is not a map';
}
