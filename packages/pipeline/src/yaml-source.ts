/**
 * Parses YAML text keeping node positions, so an issue found on the plain value can be placed
 * back at file:line:column. Aliases and merge keys (`<<: *anchor`) are followed when locating.
 * @module
 */
import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, Node, Pair } from 'yaml';
import { ISSUE_CODES } from './pipeline-issue.js';
import { sourceOffset } from './scalar-offsets.js';
import { describeYamlProblems } from './yaml-diagnostics.js';
import { checkYamlStructure, isMergeKey } from './yaml-structure.js';
import type { IssuePath, PipelineIssue } from './pipeline-issue.js';
import type { Position } from './model.js';

export interface YamlSource {
  file: string;
  value: unknown;
  /** Syntax errors and warnings from the YAML parser. */
  issues: PipelineIssue[];
  /** Position of the value at `path` (or its key, with `at: 'key'`), nearest ancestor if absent. */
  locate(path: IssuePath, at?: 'key' | 'value'): Position;
  /** Position of the scalar value at `path` plus where its text starts inside the quotes. */
  scalarStart(path: IssuePath): (Position & { quoted: boolean }) | undefined;
  /** Position of character `offset` of the string scalar at `path`, however it is quoted. */
  locateInScalar(path: IssuePath, offset: number): Position | undefined;
  /** Whether the value at `path` defines an anchor (`&name`), on itself or anywhere inside. */
  definesAnchor(path: IssuePath): boolean;
}

export function parseYamlSource(text: string, file: string): YamlSource {
  const doc = parseDocument(text, {
    merge: true,
    prettyErrors: false,
    // Never write to the process; everything the parser notices comes back as an issue.
    logLevel: 'error',
  });
  const position = positionIndex(text);
  const issues: PipelineIssue[] = [];
  const add = (severity: 'error' | 'warning', offset: number, message: string) => {
    const path: IssuePath = [];
    issues.push({
      severity,
      code: ISSUE_CODES.yamlSyntax,
      message,
      path,
      file,
      ...position(offset),
    });
  };
  for (const d of describeYamlProblems(text, doc.errors, doc.warnings)) {
    add(d.severity, d.offset, d.message);
  }
  let value: unknown = null;
  if (doc.errors.length === 0) {
    const problems = checkYamlStructure(doc);
    for (const p of problems) add('error', p.offset, p.message);
    if (problems.length === 0) value = toPlainValue(doc, (message) => add('error', 0, message));
  }
  return {
    file,
    value,
    issues,
    locate(path, at = 'value') {
      const found = findNode(doc, path);
      const node = at === 'key' && found.key ? found.key : found.node;
      return position(node?.range?.[0] ?? 0);
    },
    scalarStart(path) {
      const { node, exact } = findNode(doc, path);
      if (!exact || !isScalar(node) || !node.range) return undefined;
      const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
      const block = node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED';
      if (block) return undefined;
      return { ...position(node.range[0] + (quoted ? 1 : 0)), quoted };
    },
    locateInScalar(path, offset) {
      const { node, exact } = findNode(doc, path);
      if (!exact || !isScalar(node) || !node.range || node.type === undefined) return undefined;
      const value = typeof node.value === 'string' ? node.value : String(node.source ?? '');
      const [start, end] = node.range;
      return position(sourceOffset({ text, start, end, style: node.type, value }, offset));
    },
    definesAnchor(path) {
      const { node, exact } = findNode(doc, path);
      return exact && hasAnchor(node);
    },
  };
}

/** Walks without recursion; aliases are not followed, as they define nothing. */
function hasAnchor(root: Node | null): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const item = stack.pop();
    if (isPair(item)) {
      stack.push(item.key, item.value);
    } else if (isMap(item) || isSeq(item)) {
      if (item.anchor) return true;
      stack.push(...item.items);
    } else if (isScalar(item) && item.anchor) {
      return true;
    }
  }
  return false;
}

/**
 * Offset to 1-based line and column. Computed from the text rather than with the parser's
 * `LineCounter`, which misses the line breaks inside a token that spans lines after an error.
 * A byte order mark is invisible in editors, so it takes no column.
 */
function positionIndex(text: string): (offset: number) => Position {
  const starts = [text.startsWith('\uFEFF') ? 1 : 0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    const at = Math.max(0, Math.min(offset, text.length));
    let [low, high] = [0, starts.length - 1];
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] ?? 0) <= at) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: Math.max(1, at - (starts[low] ?? 0) + 1) };
  };
}

function toPlainValue(doc: Document, fail: (message: string) => void): unknown {
  try {
    return doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    // The structure check rules out what is known to throw; this is the last line of defence.
    fail(err instanceof Error ? err.message : String(err));
    return null;
  }
}

interface Found {
  node: Node | null;
  key: Node | null;
  /** False when the path ran past what exists and an ancestor was returned. */
  exact: boolean;
}

function findNode(doc: Document, path: IssuePath): Found {
  let node = resolve(doc, doc.contents);
  let key: Node | null = null;
  for (const part of path) {
    const pair = childPair(doc, node, part, 0);
    if (pair === undefined) return { node, key, exact: false };
    if (isPair(pair)) {
      key = isScalar(pair.key) ? pair.key : null;
      node = resolve(doc, pair.value as Node | null);
      if (node === null) return { node: key, key, exact: false };
    } else {
      key = null;
      node = resolve(doc, pair);
    }
  }
  return { node, key, exact: true };
}

function childPair(
  doc: Document,
  node: Node | null,
  part: string | number,
  depth: number,
): Pair | Node | undefined {
  if (isSeq(node) && typeof part === 'number') {
    const item = node.items[part];
    return item === undefined || item === null ? undefined : (item as Node);
  }
  if (!isMap(node) || depth > 20) return undefined;
  for (const pair of node.items) {
    if (isScalar(pair.key) && !isMergeKey(pair) && keyText(pair.key.value) === String(part)) {
      return pair;
    }
  }
  // A merge key brings in the fields of the anchored maps, the first source winning.
  for (const pair of node.items) {
    if (!isMergeKey(pair)) continue;
    const sources = resolve(doc, pair.value as Node | null);
    const list = isSeq(sources) ? sources.items.map((i) => resolve(doc, i as Node)) : [sources];
    for (const source of list) {
      const found = childPair(doc, source, part, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** A key as it appears in the plain value: `~` and an empty key become "". */
function keyText(value: unknown): string {
  if (typeof value === 'string') return value;
  const scalar =
    typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint';
  return scalar ? String(value) : '';
}

function resolve(doc: Document, node: Node | null | undefined): Node | null {
  let current = node ?? null;
  for (let hops = 0; isAlias(current) && hops < 100; hops++) {
    current = (current.resolve(doc) as Node | undefined) ?? null;
  }
  return isAlias(current) ? null : current;
}
