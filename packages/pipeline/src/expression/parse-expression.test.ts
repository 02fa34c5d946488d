import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseExpression } from './index.js';
import type { ExprIssue } from './index.js';

test('builds an AST with offsets, operator precedence and dotted paths', () => {
  const result = parseExpression('!steps.a-b.result == "x" || f(1, -y)');
  assert.deepEqual(result, {
    ok: false,
    issues: [{ message: 'Unknown function "f"', offset: 28, line: 1, column: 29 }],
  });
  const parsed = parseExpression('!steps.a-b.result == "x" || trim(-y)');
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.ast, {
    kind: 'logical',
    operator: '||',
    start: 0,
    end: 36,
    left: {
      kind: 'binary',
      operator: '==',
      operatorStart: 18,
      start: 0,
      end: 24,
      left: {
        kind: 'unary',
        operator: '!',
        start: 0,
        end: 17,
        operand: { kind: 'identifier', path: ['steps', 'a-b', 'result'], start: 1, end: 17 },
      },
      right: { kind: 'literal', value: 'x', start: 21, end: 24 },
    },
    right: {
      kind: 'call',
      name: 'trim',
      start: 28,
      end: 36,
      args: [
        {
          kind: 'unary',
          operator: '-',
          start: 33,
          end: 35,
          operand: { kind: 'identifier', path: ['y'], start: 34, end: 35 },
        },
      ],
    },
  });
});

test('a spaced or trailing dash subtracts; a dash between name characters joins', () => {
  const shapes = ['a - b', 'a- b', 'a -b', 'a-b', 'a--b', 'a-- b'].map((source) => {
    const parsed = parseExpression(source);
    assert.ok(parsed.ok, source);
    return parsed.ast.kind === 'identifier' ? parsed.ast.path.join('.') : parsed.ast.kind;
  });
  assert.deepEqual(shapes, ['binary', 'binary', 'binary', 'a-b', 'a--b', 'binary']);
});

const SYNTAX_ERRORS: readonly (readonly [string, string, number, number])[] = [
  ['', 'Empty expression', 1, 1],
  ['  \n ', 'Empty expression', 2, 2],
  ['"abc', 'Unterminated string', 1, 1],
  ["length('abc)", 'Unterminated string', 1, 8],
  ['"ends in backslash\\', 'Unterminated string', 1, 1],
  ['1 + "open', 'Unterminated string', 1, 5],
  ['(1 + 2', 'Missing ")"', 1, 7],
  ['length("a"', 'Missing ")"', 1, 11],
  ['upper(', 'Unexpected end of expression', 1, 7],
  ['1 + 2)', 'Unexpected ")"', 1, 6],
  ['1 2', 'Unexpected number 2', 1, 3],
  ['"a" "b"', 'Unexpected string "b"', 1, 5],
  ['steps.a.result steps', 'Unexpected "steps"', 1, 16],
  ['1 +', 'Unexpected end of expression', 1, 4],
  ['* 2', 'Unexpected "*"', 1, 1],
  ['()', 'Unexpected ")"', 1, 2],
  ['length("a", )', 'Unexpected ")"', 1, 13],
  ['length("a" "b")', 'Unexpected string "b"; expected "," or ")"', 1, 12],
  ['(1 2)', 'Unexpected number 2; expected ")"', 1, 4],
  ['true(1)', 'Unexpected "("', 1, 5],
  ['1 = 1', 'Unexpected "="; did you mean "=="?', 1, 3],
  ['a === b', 'Unexpected "==="; use "=="', 1, 3],
  ['a !== b', 'Unexpected "!=="; use "!="', 1, 3],
  ['a & b', 'Unexpected "&"; did you mean "&&"?', 1, 3],
  ['a | b', 'Unexpected "|"; did you mean "||"?', 1, 3],
  ['1 # 2', 'Unexpected character "#"', 1, 3],
  ['12abc', 'Invalid number "12abc"', 1, 1],
  ['1.2.3 + 1', 'Invalid number "1.2.3"', 1, 1],
  ['1. + 1', 'Invalid number "1."', 1, 1],
  ['steps.', 'Expected a name after "steps."', 1, 7],
  ['steps..result', 'Expected a name after "steps."', 1, 7],
  ['"\\u12"', 'Invalid escape sequence "\\u12"', 1, 2],
  // the earliest error wins, whether it is lexical or grammatical
  [') "unterminated', 'Unexpected ")"', 1, 1],
  // lines break at \n, \r\n and \r; columns restart on each line
  ['1 +\n  )', 'Unexpected ")"', 2, 3],
  ['"a" ==\r\n  "b" +\n    *', 'Unexpected "*"', 3, 5],
  ['"a" +\r  #', 'Unexpected character "#"', 2, 3],
  ['steps.build.result == "success" &&\n  (workflow.result == "running"', 'Missing ")"', 2, 32],
];

function summary(issue: ExprIssue | undefined): unknown {
  return issue && { message: issue.message, line: issue.line, column: issue.column };
}

for (const [source, message, line, column] of SYNTAX_ERRORS) {
  test(`${JSON.stringify(source)} is rejected with ${JSON.stringify(message)}`, () => {
    const result = parseExpression(source);
    assert.ok(!result.ok, `expected a parse issue for ${source}`);
    assert.deepEqual(result.issues.map(summary), [{ message, line, column }]);
  });
}

const FUNCTION_ERRORS: readonly (readonly [string, string, number, number])[] = [
  ['lenght("a")', 'Unknown function "lenght"; did you mean "length"?', 1, 1],
  ['Upper("a")', 'Unknown function "Upper"; did you mean "upper"?', 1, 1],
  ['string(1)', 'Unknown function "string"; did you mean "String"?', 1, 1],
  ['variable("X")', 'Unknown function "variable"; did you mean "Variable"?', 1, 1],
  ['1 + frobnicate(1)', 'Unknown function "frobnicate"', 1, 5],
  ['steps.x(1)', 'Unknown function "steps.x"', 1, 1],
  ['upper()', 'Function "upper" expects 1 argument, got 0', 1, 1],
  ['length("a", "b")', 'Function "length" expects 1 argument, got 2', 1, 1],
  ['replace("a", "b")', 'Function "replace" expects 3 arguments, got 2', 1, 1],
  ['substring("a")', 'Function "substring" expects 2 or 3 arguments, got 1', 1, 1],
  ['match("a")', 'Function "match" expects 2 or 3 arguments, got 1', 1, 1],
  ['Member("a", "b", "c")', 'Function "Member" expects 2 arguments, got 3', 1, 1],
];

for (const [source, message, line, column] of FUNCTION_ERRORS) {
  test(`${JSON.stringify(source)} is rejected with ${JSON.stringify(message)}`, () => {
    const result = parseExpression(source);
    assert.ok(!result.ok, `expected a function issue for ${source}`);
    assert.deepEqual(result.issues.map(summary), [{ message, line, column }]);
  });
}

test('every function problem is reported in one pass, in source order', () => {
  const result = parseExpression('lenght("a") > 0 &&\n  uper(trimm(x), 2) || floor()');
  assert.ok(!result.ok);
  assert.deepEqual(result.issues.map(summary), [
    { message: 'Unknown function "lenght"; did you mean "length"?', line: 1, column: 1 },
    { message: 'Unknown function "uper"; did you mean "upper"?', line: 2, column: 3 },
    { message: 'Unknown function "trimm"; did you mean "trim"?', line: 2, column: 8 },
    { message: 'Function "floor" expects 1 argument, got 0', line: 2, column: 24 },
  ]);
});

test('deep nesting is an issue, not a stack overflow', () => {
  const chain = (terms: number): string => Array.from({ length: terms }, () => '1').join(' + ');
  assert.ok(parseExpression(chain(500)).ok);
  const tooLong = parseExpression(chain(501));
  assert.ok(!tooLong.ok);
  assert.equal(tooLong.issues[0]?.message, 'Expression is nested more than 500 levels deep');
  assert.equal(tooLong.issues[0]?.offset, 500 * 4 - 2);
  for (const source of [
    '('.repeat(20_000) + '1',
    '-'.repeat(20_000) + '1',
    'trim('.repeat(5_000),
  ]) {
    const result = parseExpression(source);
    assert.ok(!result.ok);
    assert.equal(result.issues[0]?.message, 'Expression is nested more than 500 levels deep');
  }
});
