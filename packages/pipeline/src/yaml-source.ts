/**
 * Parses YAML text keeping node positions, so an issue found on the plain value can be placed
 * back at file:line:column. Aliases and merge keys (`<<: *anchor`) are followed when locating.
 * @module
 */
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document, Node, Pair } from 'yaml';
import { ISSUE_CODES } from './pipeline-issue.js';
import type { IssuePath, PipelineIssue } from './pipeline-issue.js';

export interface YamlSource {
  file: string;
  value: unknown;
  /** Syntax errors and warnings from the YAML parser. */
  issues: PipelineIssue[];
  /** Position of the value at `path` (or its key, with `at: 'key'`), nearest ancestor if absent. */
  locate(path: IssuePath, at?: 'key' | 'value'): { line: number; column: number };
  /** Position of the scalar value at `path` plus where its text starts inside the quotes. */
  scalarStart(path: IssuePath): { line: number; column: number; quoted: boolean } | undefined;
}

export function parseYamlSource(text: string, file: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, merge: true, prettyErrors: false });
  const issues: PipelineIssue[] = [];
  const position = (offset: number) => {
    const pos = lineCounter.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
  for (const [severity, list] of [
    ['error', doc.errors],
    ['warning', doc.warnings],
  ] as const) {
    for (const problem of list) {
      const { line, column } = position(problem.pos[0]);
      const message = problem.message.split('\n')[0] ?? problem.message;
      issues.push({
        severity,
        code: ISSUE_CODES.yamlSyntax,
        message,
        path: [],
        file,
        line,
        column,
      });
    }
  }
  let value: unknown = null;
  if (doc.errors.length === 0) {
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      issues.push({
        severity: 'error',
        code: ISSUE_CODES.yamlSyntax,
        message,
        path: [],
        file,
        line: 1,
        column: 1,
      });
    }
  }
  return {
    file,
    value,
    issues,
    locate(path, at = 'value') {
      const found = findNode(doc, path);
      const node = at === 'key' && found.key ? found.key : found.node;
      const offset = node?.range?.[0] ?? 0;
      return position(offset);
    },
    scalarStart(path) {
      const { node, exact } = findNode(doc, path);
      if (!exact || !isScalar(node) || !node.range) return undefined;
      const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
      const block = node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED';
      if (block) return undefined;
      return { ...position(node.range[0] + (quoted ? 1 : 0)), quoted };
    },
  };
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
    const pair = childPair(doc, node, part);
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
): Pair | Node | undefined {
  if (isSeq(node) && typeof part === 'number') {
    const item = node.items[part];
    return item === undefined || item === null ? undefined : (item as Node);
  }
  if (!isMap(node)) return undefined;
  for (const pair of node.items) {
    if (isScalar(pair.key) && String(pair.key.value) === String(part)) return pair;
  }
  // A merge key brings in the fields of the anchored map.
  for (const pair of node.items) {
    if (isScalar(pair.key) && pair.key.value === '<<') {
      const sources = resolve(doc, pair.value as Node | null);
      const list = isSeq(sources) ? sources.items.map((i) => resolve(doc, i as Node)) : [sources];
      for (const source of list) {
        const found = childPair(doc, source, part);
        if (found !== undefined) return found;
      }
    }
  }
  return undefined;
}

function resolve(doc: Document, node: Node | null | undefined): Node | null {
  let current = node ?? null;
  for (let hops = 0; isAlias(current) && hops < 100; hops++) {
    current = (current.resolve(doc) as Node | undefined) ?? null;
  }
  return current;
}
