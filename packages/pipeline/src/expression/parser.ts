/**
 * Pratt parser from tokens to an AST with source offsets. Stops at the first syntax error, so the
 * error reported is always the earliest one in the source.
 * @module
 */

import type { BinaryOperator, ExprNode, LogicalOperator } from './expression-types.js';
import type { Punctuator, Token } from './tokenizer.js';

/**
 * Guards the parser's and the evaluator's recursion. Both the AST's height (long operator chains
 * included) and the parser's nesting (parentheses, unary operators, calls) must stay below it.
 */
export const MAX_NESTING = 500;

const TOO_DEEP = `Expression is nested more than ${MAX_NESTING} levels deep`;

export type ParseTokensResult =
  { ok: true; ast: ExprNode } | { ok: false; offset: number; message: string };

/** `height` is the node's AST height, tracked here so the evaluator never recurses too deep. */
type Parsed =
  { ok: true; node: ExprNode; height: number } | { ok: false; offset: number; message: string };

/** How tightly each infix operator binds; higher binds tighter. Same table as JavaScript. */
const INFIX_POWER = {
  '||': 1,
  '&&': 2,
  '==': 3,
  '!=': 3,
  '<': 4,
  '<=': 4,
  '>': 4,
  '>=': 4,
  '+': 5,
  '-': 5,
  '*': 6,
  '/': 6,
  '%': 6,
} as const satisfies Partial<Record<Punctuator, number>>;

type InfixOperator = keyof typeof INFIX_POWER;

const PREFIX_POWER = 7;

const KEYWORDS: ReadonlyMap<string, boolean | null> = new Map([
  ['true', true],
  ['false', false],
  ['null', null],
]);

interface ParserState {
  readonly source: string;
  readonly tokens: readonly Token[];
  index: number;
  depth: number;
}

/** Parses the tokens of `source` (from `tokenize`) into one expression that must use them all. */
export function parseTokens(source: string, tokens: readonly Token[]): ParseTokensResult {
  const state: ParserState = { source, tokens, index: 0, depth: 0 };
  const first = peek(state);
  if (first.type === 'end') return { ok: false, offset: first.start, message: 'Empty expression' };
  const parsed = parseBinary(state, 0);
  if (!parsed.ok) return parsed;
  const rest = peek(state);
  if (rest.type !== 'end') return unexpected(state, rest, '');
  return { ok: true, ast: parsed.node };
}

function peek(state: ParserState): Token {
  const token = state.tokens[state.index] ?? state.tokens[state.tokens.length - 1];
  if (token === undefined) {
    return { type: 'end', start: state.source.length, end: state.source.length };
  }
  return token;
}

function next(state: ParserState): Token {
  const token = peek(state);
  if (token.type !== 'end' && token.type !== 'invalid') state.index++;
  return token;
}

function isPunctuator(token: Token, value: Punctuator): boolean {
  return token.type === 'punctuator' && token.value === value;
}

function infixOperator(token: Token): InfixOperator | undefined {
  if (token.type !== 'punctuator') return undefined;
  return token.value in INFIX_POWER ? (token.value as InfixOperator) : undefined;
}

function parseBinary(state: ParserState, minPower: number): Parsed {
  if (state.depth >= MAX_NESTING) {
    return { ok: false, offset: peek(state).start, message: TOO_DEEP };
  }
  state.depth++;
  let left = parsePrefix(state);
  for (;;) {
    if (!left.ok) return left;
    const token = peek(state);
    const operator = infixOperator(token);
    if (operator === undefined || INFIX_POWER[operator] <= minPower) break;
    next(state);
    const right = parseBinary(state, INFIX_POWER[operator]);
    if (!right.ok) return right;
    const height = Math.max(left.height, right.height) + 1;
    if (height > MAX_NESTING) return { ok: false, offset: token.start, message: TOO_DEEP };
    left = { ok: true, node: makeInfix(operator, token.start, left.node, right.node), height };
  }
  state.depth--;
  return left;
}

function makeInfix(operator: InfixOperator, at: number, left: ExprNode, right: ExprNode): ExprNode {
  const span = { start: left.start, end: right.end };
  if (operator === '&&' || operator === '||') {
    return { kind: 'logical', operator: operator satisfies LogicalOperator, left, right, ...span };
  }
  const binary: BinaryOperator = operator;
  return { kind: 'binary', operator: binary, operatorStart: at, left, right, ...span };
}

function parsePrefix(state: ParserState): Parsed {
  const token = next(state);
  switch (token.type) {
    case 'number':
    case 'string': {
      const { value, start, end } = token;
      return { ok: true, node: { kind: 'literal', value, start, end }, height: 1 };
    }
    case 'identifier':
      return parseName(state, token);
    case 'punctuator':
      return parsePrefixPunctuator(state, token);
    case 'invalid':
    case 'end':
      return unexpected(state, token, '');
  }
}

function parsePrefixPunctuator(state: ParserState, token: Token & { type: 'punctuator' }): Parsed {
  if (token.value === '(') {
    const inner = parseBinary(state, 0);
    if (!inner.ok) return inner;
    const close = expectClose(state, '")"');
    return close.ok ? inner : close;
  }
  if (token.value === '-' || token.value === '!') {
    const operand = parseBinary(state, PREFIX_POWER);
    if (!operand.ok) return operand;
    const span = { start: token.start, end: operand.node.end };
    const node = { kind: 'unary', operator: token.value, operand: operand.node, ...span } as const;
    return checkHeight(node, operand.height + 1);
  }
  return unexpected(state, token, '');
}

function parseName(state: ParserState, token: Token & { type: 'identifier' }): Parsed {
  const { path, start, end } = token;
  const [first] = path;
  if (path.length === 1 && first !== undefined) {
    const keyword = KEYWORDS.get(first);
    if (keyword !== undefined) {
      return { ok: true, node: { kind: 'literal', value: keyword, start, end }, height: 1 };
    }
  }
  if (isPunctuator(peek(state), '(')) return parseCall(state, path.join('.'), start);
  return { ok: true, node: { kind: 'identifier', path, start, end }, height: 1 };
}

function parseCall(state: ParserState, name: string, start: number): Parsed {
  next(state);
  const args: ExprNode[] = [];
  let height = 1;
  if (isPunctuator(peek(state), ')')) {
    const close = next(state);
    return { ok: true, node: { kind: 'call', name, args, start, end: close.end }, height };
  }
  for (;;) {
    const arg = parseBinary(state, 0);
    if (!arg.ok) return arg;
    args.push(arg.node);
    height = Math.max(height, arg.height + 1);
    if (isPunctuator(peek(state), ',')) {
      next(state);
      continue;
    }
    const close = expectClose(state, '"," or ")"');
    if (!close.ok) return close;
    return checkHeight({ kind: 'call', name, args, start, end: close.end }, height);
  }
}

function checkHeight(node: ExprNode, height: number): Parsed {
  if (height > MAX_NESTING) return { ok: false, offset: node.start, message: TOO_DEEP };
  return { ok: true, node, height };
}

type Close = { ok: true; end: number } | { ok: false; offset: number; message: string };

function expectClose(state: ParserState, expected: string): Close {
  const token = peek(state);
  if (isPunctuator(token, ')')) {
    next(state);
    return { ok: true, end: token.end };
  }
  if (token.type === 'end') return { ok: false, offset: token.start, message: 'Missing ")"' };
  return unexpected(state, token, `; expected ${expected}`);
}

function unexpected(
  state: ParserState,
  token: Token,
  suffix: string,
): { ok: false; offset: number; message: string } {
  if (token.type === 'invalid') return { ok: false, offset: token.start, message: token.message };
  return {
    ok: false,
    offset: token.start,
    message: `Unexpected ${describeToken(state, token)}${suffix}`,
  };
}

/** Names a token the way the person wrote it, shortened so long strings stay readable. */
function describeToken(state: ParserState, token: Token): string {
  const text = state.source.slice(token.start, token.end);
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  switch (token.type) {
    case 'end':
      return 'end of expression';
    case 'number':
      return `number ${shown}`;
    case 'string':
      return `string ${shown}`;
    case 'identifier':
    case 'punctuator':
    case 'invalid':
      return `"${shown}"`;
  }
}
