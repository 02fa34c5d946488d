/**
 * Entry point for parsing a condition: tokenize, parse, then check every call against the known
 * functions so all unknown names and wrong argument counts are reported together.
 * @module
 */

import { arityMessage, BUILTIN_FUNCTIONS, unknownFunctionMessage } from './builtin-functions.js';
import type { ExprIssue, ExprNode, ParseExpressionResult } from './expression-types.js';
import { parseTokens } from './parser.js';
import { issueAt } from './source-location.js';
import { tokenize } from './tokenizer.js';

/**
 * Parses a condition such as `steps.build.result == "success"`. A syntax error stops at the first
 * one; function problems are all reported, in source order.
 */
export function parseExpression(source: string): ParseExpressionResult {
  const parsed = parseTokens(source, tokenize(source));
  if (!parsed.ok) return { ok: false, issues: [issueAt(source, parsed.offset, parsed.message)] };
  const issues = checkCalls(parsed.ast, source);
  return issues.length === 0 ? { ok: true, ast: parsed.ast } : { ok: false, issues };
}

/** Depth-first, left to right; the parser bounds the AST's height, so recursion is safe. */
function checkCalls(node: ExprNode, source: string): ExprIssue[] {
  switch (node.kind) {
    case 'literal':
    case 'identifier':
      return [];
    case 'unary':
      return checkCalls(node.operand, source);
    case 'binary':
    case 'logical':
      return [...checkCalls(node.left, source), ...checkCalls(node.right, source)];
    case 'call': {
      const own = callIssue(node.name, node.args.length);
      const nested = node.args.flatMap((arg) => checkCalls(arg, source));
      return own === undefined ? nested : [issueAt(source, node.start, own), ...nested];
    }
  }
}

function callIssue(name: string, count: number): string | undefined {
  const fn = BUILTIN_FUNCTIONS.get(name);
  if (fn === undefined) return unknownFunctionMessage(name);
  if (count < fn.minArgs || count > fn.maxArgs) return arityMessage(name, fn, count);
  return undefined;
}
