/**
 * Types shared by the condition expression tokenizer, parser and evaluator: values, issues with
 * positions, the AST and the context that resolves identifiers.
 * @module
 */

/** A value an expression can produce. Mirrors Codefresh's four condition types. */
export type ExprValue = string | number | boolean | null;

/** A problem found in an expression, positioned inside the expression source. */
export interface ExprIssue {
  message: string;
  /** 0-based UTF-16 offset into the expression source. */
  offset: number;
  /** 1-based line inside the expression source. */
  line: number;
  /** 1-based column (UTF-16 code units) inside that line. */
  column: number;
}

export type UnaryOperator = '-' | '!';
export type ArithmeticOperator = '+' | '-' | '*' | '/' | '%';
export type EqualityOperator = '==' | '!=';
export type OrderingOperator = '>' | '>=' | '<' | '<=';
export type ComparisonOperator = EqualityOperator | OrderingOperator;
export type BinaryOperator = ArithmeticOperator | ComparisonOperator;
export type LogicalOperator = '&&' | '||';

/** Every node spans `start` (inclusive) to `end` (exclusive) offsets in the source. */
interface NodeSpan {
  readonly start: number;
  readonly end: number;
}

export interface LiteralNode extends NodeSpan {
  readonly kind: 'literal';
  readonly value: ExprValue;
}

/** A dotted name such as `steps.main_clone.result`, split into its segments. */
export interface IdentifierNode extends NodeSpan {
  readonly kind: 'identifier';
  readonly path: readonly string[];
}

export interface UnaryNode extends NodeSpan {
  readonly kind: 'unary';
  readonly operator: UnaryOperator;
  readonly operand: ExprNode;
}

export interface BinaryNode extends NodeSpan {
  readonly kind: 'binary';
  readonly operator: BinaryOperator;
  /** Offset of the operator itself, where comparison and division issues point. */
  readonly operatorStart: number;
  readonly left: ExprNode;
  readonly right: ExprNode;
}

/** `&&` and `||` are their own node kind because they short-circuit. */
export interface LogicalNode extends NodeSpan {
  readonly kind: 'logical';
  readonly operator: LogicalOperator;
  readonly left: ExprNode;
  readonly right: ExprNode;
}

/** A function call; `start` is the start of the function name. */
export interface CallNode extends NodeSpan {
  readonly kind: 'call';
  readonly name: string;
  readonly args: readonly ExprNode[];
}

export type ExprNode =
  LiteralNode | IdentifierNode | UnaryNode | BinaryNode | LogicalNode | CallNode;

export type ParseExpressionResult =
  { ok: true; ast: ExprNode } | { ok: false; issues: ExprIssue[] };

export interface ExpressionContext {
  /** Looks up a dotted identifier path such as ['steps','build','result'] or ['workflow','result'] or ['MY_VAR']; undefined when unknown. */
  lookup(path: readonly string[]): ExprValue | undefined;
}

export type EvaluateResult = { ok: true; value: ExprValue } | { ok: false; issue: ExprIssue };
