import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateExpression, parseExpression } from './index.js';
import type { EvaluateResult, ExprNode, ExprValue, ExpressionContext } from './index.js';

const VARIABLES: readonly (readonly [readonly string[], ExprValue])[] = [
  [['steps', 'main_clone', 'result'], 'success'],
  [['steps', 'build-image', 'result'], 'failure'],
  [['steps', 'deploy', 'result'], 'skipped'],
  [['workflow', 'result'], 'running'],
  [['config', 'replicas'], 3],
  [['CF_BRANCH'], 'feature/FB-42'],
  [['BUILD_NUMBER'], '42'],
  [['EMPTY'], ''],
  [['NOTHING'], null],
];

function createContext(looked: string[] = []): ExpressionContext {
  const values = new Map(VARIABLES.map(([path, value]) => [JSON.stringify(path), value]));
  return {
    lookup(path) {
      looked.push(path.join('.'));
      return values.get(JSON.stringify(path));
    },
  };
}

function run(source: string, context: ExpressionContext = createContext()): EvaluateResult {
  const parsed = parseExpression(source);
  if (!parsed.ok) assert.fail(`${source} did not parse: ${parsed.issues[0]?.message ?? ''}`);
  return evaluateExpression(parsed.ast, source, context);
}

const VALID: readonly (readonly [string, ExprValue])[] = [
  // literals and escapes
  ['42', 42],
  ['3.25', 3.25],
  ['"double"', 'double'],
  ["'single'", 'single'],
  ["'it\\'s'", "it's"],
  ['"say \\"hi\\""', 'say "hi"'],
  ['"a\\tb\\n"', 'a\tb\n'],
  ['"\\u00e9t\\u00E9"', 'été'],
  ['"\\d+"', 'd+'],
  ['"back\\\\slash"', 'back\\slash'],
  ['true', true],
  ['false', false],
  ['null', null],
  // precedence and associativity
  ['1 + 2 * 3', 7],
  ['(1 + 2) * 3', 9],
  ['10 - 4 - 3', 3],
  ['20 / 4 / 5', 1],
  ['2 * 3 % 4', 2],
  ['-2 * 3', -6],
  ['- -2', 2],
  ['!true == false', true],
  ['1 + 2 == 3 && 2 > 1', true],
  ['true || false && false', true],
  ['(true || false) && false', false],
  ['1 < 2 == true', true],
  ['"a" ==\n  "a"', true],
  // arithmetic and numeric strings
  ['7 % 3', 1],
  ['1.5 * 2', 3],
  ['"5" - 2', 3],
  ['BUILD_NUMBER * 2', 84],
  ['-BUILD_NUMBER', -42],
  ['config.replicas - 1', 2],
  ['config.replicas- 1', 2],
  // + concatenates when either side is a string
  ['"a" + 1', 'a1'],
  ['1 + "a"', '1a'],
  ['"1" + 2', '12'],
  ['"v" + 1 + 2', 'v12'],
  ['1 + 2 + "v"', '3v'],
  ['"x" + null', 'xnull'],
  ['"x" + true', 'xtrue'],
  // equality
  ['"42" == 42', true],
  ['BUILD_NUMBER == 42', true],
  ['BUILD_NUMBER == "42.0"', false],
  ['" 7 " == 7', true],
  ['"abc" == "abc"', true],
  ['"abc" != "ABC"', true],
  ['"true" == true', false],
  ['0 == false', false],
  ['"" == 0', false],
  ['null == null', true],
  ['NOTHING == null', true],
  ['null != 0', true],
  ['1 != 1', false],
  // ordering
  ['"b" > "a"', true],
  ['"10" < "9"', true],
  ['10 < "9"', false],
  ['BUILD_NUMBER >= 42', true],
  ['BUILD_NUMBER > 42', false],
  ['3 <= 2', false],
  ['2 <= 2', true],
  // logical operators return booleans and short-circuit
  ['"a" && 1', true],
  ['"" || 0', false],
  ['"x" || false', true],
  ['EMPTY || "fallback"', true],
  ['false && steps.missing.result == "x"', false],
  ['true || 1 / 0', true],
  ['!""', true],
  ['!NOTHING', true],
  ['!!"a"', true],
  // step state and workflow lookups
  ['steps.main_clone.result == "success"', true],
  ['steps.build-image.result == "failure"', true],
  ['steps.deploy.result', 'skipped'],
  ['workflow.result != "failure"', true],
  ['steps.main_clone.result == "success" && steps.build-image.result != "success"', true],
  // functions
  ['String(42)', '42'],
  ['String(1.5)', '1.5'],
  ['String(null)', 'null'],
  ['String(true)', 'true'],
  ['Number("42")', 42],
  ['Number(" 3.5 ")', 3.5],
  ['Number(true)', 1],
  ['Number(null)', 0],
  ['Number(7)', 7],
  ['Number(BUILD_NUMBER) + 1', 43],
  ['Boolean("")', false],
  ['Boolean("0")', true],
  ['Boolean(0)', false],
  ['Boolean(null)', false],
  ['round(2.5)', 3],
  ['round(2.4)', 2],
  ['round("2.6")', 3],
  ['floor(2.9)', 2],
  ['floor(-2.1)', -3],
  ['upper("abc")', 'ABC'],
  ['upper(CF_BRANCH)', 'FEATURE/FB-42'],
  ['lower("ABC")', 'abc'],
  ['trim("  a b  ")', 'a b'],
  ['trimLeft("  a  ")', 'a  '],
  ['trimRight("  a  ")', '  a'],
  ['replace("a-b-c", "-", "_")', 'a_b_c'],
  ['replace("a.b", ".", "$&")', 'a$&b'],
  ['replace("aaa", "b", "c")', 'aaa'],
  ['substring("pipeline", 0, 4)', 'pipe'],
  ['substring("pipeline", 4)', 'line'],
  ['substring("pipeline", "1", 3)', 'ip'],
  ['length("hello")', 5],
  ['length("")', 0],
  ['length(12345)', 5],
  ['includes(CF_BRANCH, "FB-")', true],
  ['includes("abc", "d")', false],
  ['indexOf("hello", "l")', 2],
  ['indexOf("hello", "z")', -1],
  ['match(CF_BRANCH, "^feature/")', true],
  ['match("ABC", "^abc$")', false],
  ['match("ABC", "^abc$", true)', true],
  ['match("ABC", "^abc$", false)', false],
  ['match("a1", "\\\\d")', true],
  ['Variable("BUILD_NUMBER")', '42'],
  ['Member("workflow", "result")', 'running'],
  ['length(trim(upper("  ab "))) == 2', true],
  // Codefresh's "variable exists" idiom: an unresolved ${{X}} stays literal text
  ['includes("${{MISSING}}", "{{MISSING}}") == false', false],
  ['includes("feature/x", "{{CF_BRANCH}}") == false', true],
];

for (const [source, expected] of VALID) {
  test(`${JSON.stringify(source)} evaluates to ${JSON.stringify(expected)}`, () => {
    assert.deepEqual(run(source), { ok: true, value: expected });
  });
}

const BROKEN: readonly (readonly [string, string, number, number])[] = [
  ['steps.foo.result == "success"', 'Unknown variable steps.foo.result', 1, 1],
  ['1 + missing', 'Unknown variable missing', 1, 5],
  // a dash glued to a name character belongs to the name
  ['config.replicas-1', 'Unknown variable config.replicas-1', 1, 1],
  ['"ok" == "ok" &&\n  steps.nope.result', 'Unknown variable steps.nope.result', 2, 3],
  ['1 / 0', 'Division by zero', 1, 3],
  ['5 % (2 - 2)', 'Division by zero', 1, 3],
  ['"abc" * 2', 'Cannot use string "abc" as a number', 1, 1],
  ['true + 1', 'Cannot use boolean true as a number', 1, 1],
  ['-"x"', 'Cannot use string "x" as a number', 1, 2],
  ['1 - null', 'Cannot use null as a number', 1, 5],
  ['"a" < 1', 'Cannot compare string "a" with number 1', 1, 5],
  ['true > false', 'Cannot compare boolean true with boolean false', 1, 6],
  ['1 < 2 < 3', 'Cannot compare boolean true with number 3', 1, 7],
  ['NOTHING >= 0', 'Cannot compare null with number 0', 1, 9],
  ['Number("abc")', 'Cannot convert string "abc" to a number', 1, 8],
  ['Number("")', 'Cannot convert string "" to a number', 1, 8],
  ['round("x")', 'Cannot use string "x" as a number', 1, 7],
  ['substring("abc", "one")', 'Cannot use string "one" as a number', 1, 18],
  ['substring("abc", 0, true)', 'Cannot use boolean true as a number', 1, 21],
  ['match("a", "(")', 'Invalid regular expression "(": missing closing ): `(`', 1, 12],
  ['Variable("NOPE")', 'Unknown variable NOPE', 1, 10],
  ['Variable(1)', 'Variable name must be a string, got number 1', 1, 10],
  ['Member("workflow", "nope")', 'Unknown variable workflow.nope', 1, 8],
  ['Member("workflow", null)', 'Member name must be a string, got null', 1, 20],
];

for (const [source, message, line, column] of BROKEN) {
  test(`${JSON.stringify(source)} fails with ${JSON.stringify(message)}`, () => {
    const result = run(source);
    assert.ok(!result.ok, `expected an issue, got ${JSON.stringify(result)}`);
    assert.deepEqual(
      { message: result.issue.message, line: result.issue.line, column: result.issue.column },
      { message, line, column },
    );
  });
}

test('issue offsets index into the source', () => {
  const source = 'true && (1 / 0)';
  const result = run(source);
  assert.ok(!result.ok);
  assert.equal(result.issue.offset, 11);
  assert.equal(source[result.issue.offset], '/');
});

test('short-circuited operands are never looked up', () => {
  const looked: string[] = [];
  const result = run('false && steps.a.result || true || steps.b.result', createContext(looked));
  assert.deepEqual(result, { ok: true, value: true });
  assert.deepEqual(looked, []);
});

test('hand-built ASTs with unknown functions fail instead of throwing', () => {
  const arg: ExprNode = { kind: 'literal', value: 'a', start: 6, end: 9 };
  const ast: ExprNode = { kind: 'call', name: 'uppr', args: [arg], start: 0, end: 10 };
  const result = evaluateExpression(ast, 'uppr("a")', createContext());
  assert.deepEqual(result, {
    ok: false,
    issue: {
      message: 'Unknown function "uppr"; did you mean "upper"?',
      offset: 0,
      line: 1,
      column: 1,
    },
  });
});

test('hand-built ASTs with a wrong argument count fail instead of throwing', () => {
  const ast: ExprNode = { kind: 'call', name: 'trim', args: [], start: 2, end: 8 };
  const result = evaluateExpression(ast, '  trim()', createContext());
  assert.ok(!result.ok);
  assert.equal(result.issue.message, 'Function "trim" expects 1 argument, got 0');
  assert.equal(result.issue.column, 3);
});
