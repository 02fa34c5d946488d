/**
 * Broken uses of the constructs beyond freestyle and git-clone: timeouts, retry limits, hooks,
 * services, compositions, parallel steps, matrix and scale, `when.steps` and cycles, names that
 * repeat. Each issue names file:line:column and the field path; positions counted by hand (line
 * = index in the fixture + 1; the comment above a row names the character meant).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';

interface Row {
  name: string;
  yaml: string[];
  /** `line:column CODE-suffix message (path)`. */
  issues: string[];
}

const HEAD = ["version: '1.0'", 'steps:'];
const rows: Row[] = [
  {
    name: 'a timeout that is not a duration, and one past the timer limit',
    // "    timeout: " is 13 characters.
    yaml: [
      ...HEAD,
      '  a:',
      '    image: alpine',
      '    timeout: soon',
      '  b:',
      '    image: x',
      '    timeout: 600h',
      '  c:',
      '    image: x',
      '    timeout: 30',
    ],
    issues: [
      '5:14 INVALID_VALUE "timeout" must be a duration like 45m or 1.5h, got the string "soon" (steps.a.timeout)',
      '8:14 INVALID_VALUE "timeout" must be at most 596h (about 24.8 days), got the string "600h" (steps.b.timeout)',
      '11:14 INVALID_VALUE "timeout" must be a duration like 45m or 1.5h, got the number 30 (steps.c.timeout)',
    ],
  },
  {
    name: 'retry values out of their ranges',
    // "    retry: {maxAttempts: " is 25 characters; "11, delay: " 11 more; "2, exponentialFactor: " 22.
    yaml: [
      ...HEAD,
      '  a:',
      '    image: alpine',
      '    retry: {maxAttempts: 11, delay: 2, exponentialFactor: 6}',
    ],
    issues: [
      '5:26 INVALID_VALUE "maxAttempts" must be a whole number from 1 to 10, got the number 11 (steps.a.retry.maxAttempts)',
      '5:37 INVALID_VALUE "delay" must be a number from 5 to 60, got the number 2 (steps.a.retry.delay)',
      '5:59 INVALID_VALUE "exponentialFactor" must be a number from 1 to 5, got the number 6 (steps.a.retry.exponentialFactor)',
    ],
  },
  {
    name: 'hooks on a parallel step, a hook with nothing to run, a hook step typo',
    yaml: [
      ...HEAD,
      '  p:',
      '    type: parallel',
      '    hooks: {on_fail: {exec: {image: alpine}}}',
      '    steps:',
      '      a:',
      '        image: alpine',
      '        hooks:',
      '          on_elected: {mode: parallel}',
      '          on_finish:',
      '            steps:',
      '              tell: {image: alpine, shel: bash}',
    ],
    issues: [
      '5:5 INVALID_VALUE A parallel step cannot have "hooks"; put them on the steps inside it (steps.p.hooks)',
      '10:23 INVALID_VALUE Hook "on_elected" needs "exec" or "steps" (steps.p.steps.a.hooks.on_elected)',
      '13:37 UNKNOWN_FIELD Unknown field "shel" in freestyle step "tell"; did you mean "shell"? (steps.p.steps.a.hooks.on_finish.steps.tell.shel)',
    ],
  },
  {
    name: 'services: a composition from a file, an unknown block name, a service without image',
    yaml: [
      "version: '1.0'",
      'services:',
      '  - name: db',
      '    composition: docker-compose.yml',
      '  - name: cache',
      '    composition:',
      '      redis: {ports: [6379]}',
      'steps:',
      '  a:',
      '    image: alpine',
      '    services: [dbb]',
    ],
    issues: [
      '4:18 UNSUPPORTED Composition "docker-compose.yml" is a file or a stored composition; Sluice runs only compositions written inline as a map of services (services.0.composition)',
      '7:7 MISSING_FIELD Missing required field "image" in compose service (services.1.composition.redis)',
      '11:16 INVALID_VALUE Unknown services block "dbb"; did you mean "db"? (steps.a.services.0)',
    ],
  },
  {
    name: 'a composition step with compose keys Sluice does not run and a typo',
    yaml: [
      ...HEAD,
      '  c:',
      '    type: composition',
      '    composition:',
      '      db: {image: postgres, depends_on: [x], portz: [1]}',
      '    composition_candidates:',
      '      t: {image: alpine}',
    ],
    issues: [
      '6:29 UNSUPPORTED Field "depends_on" of compose service is not supported by Sluice yet (steps.c.composition.db.depends_on)',
      '6:46 UNKNOWN_FIELD Unknown field "portz" in compose service; did you mean "ports"? (steps.c.composition.db.portz)',
    ],
  },
  {
    name: 'when.steps naming unknown steps and outcomes',
    yaml: [
      "version: '1.0'",
      'mode: parallel',
      'steps:',
      '  build:',
      '    image: alpine',
      '  test:',
      '    image: alpine',
      '    when:',
      '      steps:',
      '        - name: buidl',
      '          on: [done]',
      '  lint:',
      '    image: alpine',
      '    when:',
      '      steps: {all: [{name: build}], any: [{name: test}]}',
    ],
    issues: [
      '10:17 UNKNOWN_STEP "when.steps" names unknown step "buidl"; did you mean "build"? (steps.test.when.steps.0.name)',
      '11:16 INVALID_VALUE Item 0 of "on" must be one of "success", "failure", "finished", "skipped", got the string "done" (steps.test.when.steps.0.on.0)',
      '15:37 INVALID_VALUE "when.steps" takes "all" or "any", not both (steps.lint.when.steps.any)',
    ],
  },
  {
    name: 'a cycle of when.steps in a parallel pipeline, named where it closes',
    yaml: [
      "version: '1.0'",
      'mode: parallel',
      'steps:',
      '  a:',
      '    image: alpine',
      '    when: {steps: [{name: c}]}',
      '  b:',
      '    image: alpine',
      '    when: {steps: [{name: a}]}',
      '  c:',
      '    image: alpine',
      '    when: {steps: [{name: b}]}',
      '  d:',
      '    image: alpine',
      '    when: {steps: [{name: d}]}',
    ],
    issues: [
      '9:27 INVALID_VALUE Steps wait for each other in a cycle: a → c → b → a (steps.b.when.steps.0.name)',
      '15:27 INVALID_VALUE Steps wait for each other in a cycle: d → d (steps.d.when.steps.0.name)',
    ],
  },
  {
    name: 'names repeated across parallel children and matrix copies',
    yaml: [
      ...HEAD,
      '  lint:',
      '    image: alpine',
      '  tests:',
      '    image: alpine',
      '    matrix: {commands: [[a], [b]]}',
      '  p:',
      '    type: parallel',
      '    success_criteria: {steps: {only: [lnt]}}',
      '    steps:',
      '      lint:',
      '        image: alpine',
      '      tests_1:',
      '        image: alpine',
    ],
    issues: [
      '10:39 UNKNOWN_STEP "success_criteria" names "lnt", which is not a step of this parallel step; did you mean "lint"? (steps.p.success_criteria.steps.only.0)',
      '12:7 INVALID_VALUE Step name "lint" is also the name of another step; step names must be unique, parallel steps included (steps.p.steps.lint)',
      '14:7 INVALID_VALUE Step name "tests_1" is also the name of a step that step "tests" makes; step names must be unique, parallel steps included (steps.p.steps.tests_1)',
    ],
  },
  {
    name: 'matrix and scale that cannot be expanded',
    yaml: [
      ...HEAD,
      '  m:',
      '    image: alpine',
      '    matrix:',
      '      imag: [x]',
      '      commands: 5',
      '      type: [build]',
      '  s:',
      '    image: alpine',
      '    scale: {one: {shell: zsh}, two: [x]}',
      '  p:',
      '    type: parallel',
      '    steps: {a: {image: x}}',
      '    matrix: {image: [a]}',
      '  n:',
      '    matrix: {commands: [[a]]}',
    ],
    issues: [
      '6:7 UNKNOWN_FIELD Unknown field "imag"; did you mean "image"? (steps.m.matrix.imag)',
      '7:17 INVALID_VALUE "commands" in "matrix" must be a list of values, got the number 5 (steps.m.matrix.commands)',
      '8:7 INVALID_VALUE "type" cannot differ between the steps a matrix or scale makes (steps.m.matrix.type)',
      '11:26 INVALID_VALUE "shell" must be one of "sh", "bash", got the string "zsh"; did you mean "sh"? (steps.s.scale.one.shell)',
      '11:37 INVALID_VALUE Variant "two" of "scale" must be a map of fields, got a list (steps.s.scale.two)',
      '15:5 INVALID_VALUE A parallel step cannot use "matrix"; put it on a step inside "steps" (steps.p.matrix)',
      '16:3 MISSING_FIELD Missing required field "image" in freestyle step "n" (steps.n)',
    ],
  },
  {
    name: 'a build step without image_name and a push with half its credentials',
    yaml: [
      ...HEAD,
      '  b:',
      '    type: build',
      '    tag_policy: upper',
      '  p:',
      '    type: push',
      '    candidate: x',
      '    credentials: {username: bot}',
    ],
    issues: [
      '3:3 MISSING_FIELD Missing required field "image_name" in build step "b" (steps.b)',
      '5:17 INVALID_VALUE "tag_policy" must be one of "lowercase", "original", got the string "upper" (steps.b.tag_policy)',
      '9:5 MISSING_FIELD Missing required field "password" in credentials (steps.p.credentials)',
    ],
  },
];

function describeIssues(text: string): string[] {
  const result = parsePipeline(text);
  assert.equal(result.ok, false, 'expected the pipeline to be rejected');
  return result.issues.map(
    (i) =>
      `${i.line}:${i.column} ${i.code.replace('SLUICE_PIPELINE_', '')} ${i.message} (${i.path.join('.')})`,
  );
}

for (const row of rows) {
  test(`rejects ${row.name}`, () => {
    assert.deepEqual(describeIssues(row.yaml.join('\n') + '\n'), row.issues);
  });
}
