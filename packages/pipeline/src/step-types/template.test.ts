import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandTemplate, templateStrings } from './expand-template.js';
import {
  DEFAULT_DELIMITERS,
  parseTemplate,
  renderTemplate,
  templateReferences,
} from './template.js';
import type { TemplateDelimiters } from './template.js';

function render(
  text: string,
  args: Record<string, unknown>,
  delimiters = DEFAULT_DELIMITERS,
): unknown {
  const parsed = parseTemplate(text, delimiters);
  assert.ok(parsed.ok, `template did not parse: ${JSON.stringify(parsed)}`);
  return renderTemplate(parsed.nodes, args);
}

function problems(text: string): string[] {
  const parsed = parseTemplate(text, DEFAULT_DELIMITERS);
  return parsed.ok ? [] : parsed.problems.map((p) => `${p.offset}: ${p.message}`);
}

test('placeholders are replaced by the argument as text', () => {
  const args = { NAME: 'world', COUNT: 3, ON: true, NOTHING: null, MAP: { a: 1 } };
  assert.equal(render('hello [[ .Arguments.NAME ]]!', args), 'hello world!');
  assert.equal(
    render('[[.Arguments.COUNT]] [[ .Arguments.ON ]] <[[ .Arguments.NOTHING ]]>', args),
    '3 true <>',
  );
  assert.equal(render('map=[[ .Arguments.MAP ]]', args), 'map={"a":1}');
  assert.equal(render('a.b=[[ .Arguments.MAP.a ]]', args), 'a.b=1');
  assert.equal(render('no placeholder', args), 'no placeholder');
});

test('a string that is exactly one placeholder becomes the value, keeping its type', () => {
  const args = { LIST: ['a', 'b'], PORT: 8080, MAP: { k: 'v' } };
  assert.deepEqual(render('[[ .Arguments.LIST ]]', args), ['a', 'b']);
  assert.equal(render(' [[ .Arguments.PORT ]] ', args), 8080);
  assert.deepEqual(render('[[ .Arguments.MAP ]]', args), { k: 'v' });
  assert.equal(render('[[ .Arguments.ABSENT ]]', args), '');
});

test('values are inserted as they are: quotes, newlines and delimiters in them do nothing', () => {
  const tricky = `it's "quoted"\nkey: value\n[[ .Arguments.OTHER ]]`;
  assert.equal(render('m=[[ .Arguments.M ]]', { M: tricky, OTHER: 'x' }), `m=${tricky}`);
});

test('if, if not and else choose text by Go truthiness', () => {
  const text = '[[ if .Arguments.F ]]--force[[ else ]]--safe[[ end ]]';
  for (const [value, expected] of [
    [true, '--force'],
    ['yes', '--force'],
    [['x'], '--force'],
    [false, '--safe'],
    ['', '--safe'],
    [0, '--safe'],
    [[], '--safe'],
    [{}, '--safe'],
    [undefined, '--safe'],
  ] as const) {
    assert.equal(render(text, { F: value }), expected, JSON.stringify(value));
  }
  assert.equal(render('[[ if not .Arguments.Q ]]-v[[ end ]]', { Q: false }), '-v');
  const nested = '[[ if .Arguments.A ]]a[[ if .Arguments.B ]]b[[ end ]][[ end ]]';
  assert.equal(render(nested, { A: 1, B: 1 }), 'ab');
  assert.equal(render(nested, { A: 1, B: 0 }), 'a');
});

test('malformed templates are reported at the offending action', () => {
  assert.deepEqual(problems('a [[ .Arguments.X'), ['2: "[[" is not closed by "]]"']);
  assert.deepEqual(problems('[[ if .Arguments.X ]]x'), ['0: "[[ if" has no "[[ end ]]"']);
  assert.deepEqual(problems('x [[ end ]]'), ['2: "end" without an "if" before it']);
  assert.match(
    problems('[[ .Values.X ]]')[0]!,
    /^0: Template action "\.Values\.X" is not supported/,
  );
  assert.match(problems('[[ .Arguments.X | upper ]]')[0]!, /is not supported/);
  assert.match(
    problems('[[ if eq .Arguments.X "a" ]][[ end ]]')[0]!,
    /^0: "if" needs \.Arguments\.NAME/,
  );
});

test('references are listed with their offsets, inside if blocks too', () => {
  const parsed = parseTemplate(
    '[[ .Arguments.A ]] [[ if .Arguments.B ]][[ .Arguments.C.d ]][[ end ]]',
    DEFAULT_DELIMITERS,
  );
  assert.ok(parsed.ok);
  assert.deepEqual(templateReferences(parsed.nodes), [
    { path: ['A'], offset: 0 },
    { path: ['B'], offset: 19 },
    { path: ['C', 'd'], offset: 40 },
  ]);
});

test('other delimiters work, and then [[ ]] is plain text', () => {
  const delimiters: TemplateDelimiters = { left: '<%', right: '%>' };
  assert.equal(
    render('if [[ -f x ]]; then echo <% .Arguments.X %>; fi', { X: 'y' }, delimiters),
    'if [[ -f x ]]; then echo y; fi',
  );
});

test('expanding a template copies it and renders every string, keys untouched', () => {
  const steps = {
    run: {
      image: '[[ .Arguments.IMAGE ]]',
      commands: '[[ .Arguments.COMMANDS ]]',
      environment: ['A=[[ .Arguments.A ]]', 'PLAIN=1'],
      retry: { maxAttempts: 2 },
    },
  };
  const out = expandTemplate(
    steps,
    { IMAGE: 'alpine:3', COMMANDS: ['echo 1', 'echo 2'], A: 'a' },
    DEFAULT_DELIMITERS,
  );
  assert.deepEqual(out, {
    run: {
      image: 'alpine:3',
      commands: ['echo 1', 'echo 2'],
      environment: ['A=a', 'PLAIN=1'],
      retry: { maxAttempts: 2 },
    },
  });
  assert.equal(steps.run.image, '[[ .Arguments.IMAGE ]]');
});

test('an unquoted [[ .Arguments.X ]] that YAML read as a nested list is still a placeholder', () => {
  const steps = {
    run: { image: [['.Arguments.IMAGE']], commands: [[['.Arguments.CMD']], 'echo'] },
  };
  const out = expandTemplate(steps, { IMAGE: 'alpine:3', CMD: 'ls' }, DEFAULT_DELIMITERS);
  assert.deepEqual(out, { run: { image: 'alpine:3', commands: ['ls', 'echo'] } });
  // A real nested list stays what it is.
  assert.deepEqual(expandTemplate({ s: { x: [['a']] } }, {}, DEFAULT_DELIMITERS), {
    s: { x: [['a']] },
  });
  assert.deepEqual(
    templateStrings(steps, DEFAULT_DELIMITERS).map((s) => [s.path.join('.'), s.text]),
    [
      ['run.image.0.0', '[[ .Arguments.IMAGE ]]'],
      ['run.commands.0.0.0', '[[ .Arguments.CMD ]]'],
      ['run.commands.1', 'echo'],
    ],
  );
});
