/**
 * Parses YAML text keeping node positions, so an issue found on the plain value can be placed
 * back at file:line:column. Aliases and merge keys (`<<: *anchor`) are followed when locating.
 * @module
 */
import { isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import { positionIndex } from '@sluice/errors';
import type { Node } from 'yaml';
import { ISSUE_CODES } from './pipeline-issue.js';
import { sourceOffset } from './scalar-offsets.js';
import { describeYamlProblems } from './yaml-diagnostics.js';
import { addDuplicateKeyErrors } from './yaml-duplicate-keys.js';
import { createNodeIndex } from './yaml-node-index.js';
import { toPlainValue } from './yaml-plain-value.js';
import { checkYamlStructure } from './yaml-structure.js';
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
    // The library compares each key with every earlier key of its map: quadratic in a map of
    // 14,000 steps. The same check runs below with a hash set.
    uniqueKeys: false,
  });
  addDuplicateKeyErrors(doc);
  const index = createNodeIndex(doc);
  const findNode = (path: IssuePath) => index.find(path);
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
      const found = findNode(path);
      const node = at === 'key' && found.key ? found.key : found.node;
      return position(node?.range?.[0] ?? 0);
    },
    scalarStart(path) {
      const { node, exact } = findNode(path);
      if (!exact || !isScalar(node) || !node.range) return undefined;
      const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
      const block = node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED';
      if (block) return undefined;
      return { ...position(node.range[0] + (quoted ? 1 : 0)), quoted };
    },
    locateInScalar(path, offset) {
      const { node, exact } = findNode(path);
      if (!exact || !isScalar(node) || !node.range || node.type === undefined) return undefined;
      const value = typeof node.value === 'string' ? node.value : String(node.source ?? '');
      const [start, end] = node.range;
      return position(sourceOffset({ text, start, end, style: node.type, value }, offset));
    },
    definesAnchor(path) {
      const { node, exact } = findNode(path);
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
      for (const child of item.items) stack.push(child);
    } else if (isScalar(item) && item.anchor) {
      return true;
    }
  }
  return false;
}
