/**
 * Evaluates a parsed condition against a context. Never throws for bad input: unknown variables,
 * type mismatches and division by zero come back as one positioned issue. `&&` and `||`
 * short-circuit, so `false && steps.missing.result` is false, not an issue.
 * @module
 */

import { arityMessage, BUILTIN_FUNCTIONS, unknownFunctionMessage } from './builtin-functions.js';
import type {
  ArithmeticOperator,
  BinaryNode,
  CallNode,
  EvaluateResult,
  ExprNode,
  ExprValue,
  ExpressionContext,
  IdentifierNode,
  LogicalNode,
  OrderingOperator,
  UnaryNode,
} from './expression-types.js';
import { issueAt } from './source-location.js';
import {
  compareValues,
  describeValue,
  isTruthy,
  numericValue,
  toText,
  valuesEqual,
} from './values.js';

type Evaluated = { ok: true; value: ExprValue } | { ok: false; offset: number; message: string };

/** Evaluates `ast`; `source` is the text it was parsed from, used to place issues. */
export function evaluateExpression(
  ast: ExprNode,
  source: string,
  context: ExpressionContext,
): EvaluateResult {
  const result = evaluateNode(ast, context);
  if (result.ok) return { ok: true, value: result.value };
  return { ok: false, issue: issueAt(source, result.offset, result.message) };
}

function evaluateNode(node: ExprNode, context: ExpressionContext): Evaluated {
  switch (node.kind) {
    case 'literal':
      return { ok: true, value: node.value };
    case 'identifier':
      return lookupIdentifier(node, context);
    case 'unary':
      return evaluateUnary(node, context);
    case 'binary':
      return evaluateBinary(node, context);
    case 'logical':
      return evaluateLogical(node, context);
    case 'call':
      return evaluateCall(node, context);
  }
}

function lookupIdentifier(node: IdentifierNode, context: ExpressionContext): Evaluated {
  const value = context.lookup(node.path);
  if (value !== undefined) return { ok: true, value };
  return { ok: false, offset: node.start, message: `Unknown variable ${node.path.join('.')}` };
}

function evaluateUnary(node: UnaryNode, context: ExpressionContext): Evaluated {
  const operand = evaluateNode(node.operand, context);
  if (!operand.ok) return operand;
  if (node.operator === '!') return { ok: true, value: !isTruthy(operand.value) };
  const number = asNumber(operand.value, node.operand);
  return number.ok ? { ok: true, value: -number.value } : number;
}

function evaluateLogical(node: LogicalNode, context: ExpressionContext): Evaluated {
  const left = evaluateNode(node.left, context);
  if (!left.ok) return left;
  const leftTruthy = isTruthy(left.value);
  if (node.operator === '&&' ? !leftTruthy : leftTruthy) return { ok: true, value: leftTruthy };
  const right = evaluateNode(node.right, context);
  return right.ok ? { ok: true, value: isTruthy(right.value) } : right;
}

function evaluateBinary(node: BinaryNode, context: ExpressionContext): Evaluated {
  const left = evaluateNode(node.left, context);
  if (!left.ok) return left;
  const right = evaluateNode(node.right, context);
  if (!right.ok) return right;
  switch (node.operator) {
    case '==':
      return { ok: true, value: valuesEqual(left.value, right.value) };
    case '!=':
      return { ok: true, value: !valuesEqual(left.value, right.value) };
    case '<':
    case '<=':
    case '>':
    case '>=':
      return compare(node, node.operator, left.value, right.value);
    case '+':
      if (typeof left.value === 'string' || typeof right.value === 'string') {
        return { ok: true, value: toText(left.value) + toText(right.value) };
      }
      return arithmetic(node, node.operator, left.value, right.value);
    case '-':
    case '*':
    case '/':
    case '%':
      return arithmetic(node, node.operator, left.value, right.value);
  }
}

function compare(
  node: BinaryNode,
  operator: OrderingOperator,
  left: ExprValue,
  right: ExprValue,
): Evaluated {
  const order = compareValues(left, right);
  if (order === undefined) {
    const message = `Cannot compare ${describeValue(left)} with ${describeValue(right)}`;
    return { ok: false, offset: node.operatorStart, message };
  }
  return { ok: true, value: orderHolds(operator, order) };
}

function orderHolds(operator: OrderingOperator, order: number): boolean {
  switch (operator) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
}

function arithmetic(
  node: BinaryNode,
  operator: ArithmeticOperator,
  leftValue: ExprValue,
  rightValue: ExprValue,
): Evaluated {
  const left = asNumber(leftValue, node.left);
  if (!left.ok) return left;
  const right = asNumber(rightValue, node.right);
  if (!right.ok) return right;
  if ((operator === '/' || operator === '%') && right.value === 0) {
    return { ok: false, offset: node.operatorStart, message: 'Division by zero' };
  }
  return { ok: true, value: applyArithmetic(operator, left.value, right.value) };
}

function applyArithmetic(operator: ArithmeticOperator, a: number, b: number): number {
  switch (operator) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    case '%':
      return a % b;
  }
}

type AsNumber = { ok: true; value: number } | { ok: false; offset: number; message: string };

function asNumber(value: ExprValue, node: ExprNode): AsNumber {
  const number = numericValue(value);
  if (number !== undefined) return { ok: true, value: number };
  return {
    ok: false,
    offset: node.start,
    message: `Cannot use ${describeValue(value)} as a number`,
  };
}

function evaluateCall(node: CallNode, context: ExpressionContext): Evaluated {
  const fn = BUILTIN_FUNCTIONS.get(node.name);
  // parseExpression rejects both cases; checked again for ASTs built by hand.
  if (fn === undefined) {
    return { ok: false, offset: node.start, message: unknownFunctionMessage(node.name) };
  }
  const count = node.args.length;
  if (count < fn.minArgs || count > fn.maxArgs) {
    return { ok: false, offset: node.start, message: arityMessage(node.name, fn, count) };
  }
  const args: ExprValue[] = [];
  for (const argNode of node.args) {
    const evaluated = evaluateNode(argNode, context);
    if (!evaluated.ok) return evaluated;
    args.push(evaluated.value);
  }
  const outcome = fn.apply(args, context);
  if (outcome.ok) return outcome;
  const at = outcome.argIndex === undefined ? node : (node.args[outcome.argIndex] ?? node);
  return { ok: false, offset: at.start, message: outcome.message };
}
