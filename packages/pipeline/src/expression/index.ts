/**
 * The condition expression language of `when.condition.all/any`: parse once, evaluate against a
 * context that resolves `steps.<name>.result`, `workflow.result` and variables.
 * @module
 */

export type {
  EvaluateResult,
  ExprIssue,
  ExprNode,
  ExprValue,
  ExpressionContext,
  ParseExpressionResult,
} from './expression-types.js';
export { parseExpression } from './parse-expression.js';
export { evaluateExpression } from './evaluator.js';
export { isTruthy } from './values.js';
