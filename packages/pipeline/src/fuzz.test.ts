/**
 * Deterministic fuzzing of `parsePipeline`: valid pipelines are cut, shuffled and sprinkled with
 * YAML punctuation, and whatever comes out must be a result, never an exception: either a
 * pipeline, or issues that each point at a real line and column with a message. The PRNG is
 * seeded, so a failure names the iteration and reproduces exactly.
 *
 * The test suite runs 200 iterations (some 33 per seed, under a second); set
 * SLUICE_FUZZ_ITERATIONS=4000 or more for a longer search after changing the parser. A longer run
 * begins with the same iterations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';
import type { ParsePipelineResult } from './parse-pipeline.js';
import { catalogFromDefinitions } from './step-types/load-step-type-catalog.js';

const ITERATIONS = Number(process.env['SLUICE_FUZZ_ITERATIONS'] ?? 200);
const SEED = 0x5eed;

/** mulberry32: tiny, fast and good enough to pick mutations. */
function createRandom(seed: number): { int(max: number): number; pick<T>(items: T[]): T } {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  return { int, pick: (items) => items[int(items.length)] as (typeof items)[number] };
}

const SEEDS = [
  `version: '1.0'
stages: [clone, test]
steps:
  main_clone:
    type: git-clone
    stage: clone
    repo: acme/app
    revision: \${{CF_BRANCH}}
    depth: 1
  test:
    stage: test
    image: node:20
    working_directory: \${{main_clone}}
    environment:
      - CI=true
    commands:
      - npm ci
      - npm test
`,
  `version: '1.0'
indicators:
  - base: &base
      image: alpine
      shell: bash
      environment: {A: 1, B: two}
steps:
  one:
    <<: *base
    commands: [echo one]
  two:
    <<: *base
    title: Two
    fail_fast: false
    when:
      branch:
        only: [main, /^release-.*/i]
      condition:
        all:
          passed: "steps.one.result == 'success'"
          set: includes("\${{X}}", "{{X}}") == false
`,
  `version: "1.0"
fail_fast: false
steps:
  script:
    image: busybox
    commands: |-
      echo "a: b"
      exit 0
    volumes:
      - /codefresh/volume/cache:/cache
  after:
    image: busybox
    cmd: ["--flag", "value"]
    when:
      condition:
        any:
          block: >
            workflow.result == 'success' ||
            steps.script.result == 'failure'
`,
  `{version: '1.0', steps: {a: {image: alpine, commands: ['true']}, b: {image: alpine}}}
`,
  `version: '1.0'
mode: parallel
strict_fail_fast: true
services:
  name: db
  composition:
    postgres: {image: postgres, ports: [5432], environment: [A=1]}
  readiness:
    image: postgres
    commands: [pg_isready]
    periodSeconds: 5
hooks:
  on_elected: {exec: {image: alpine, commands: [echo]}}
  on_finish:
    mode: parallel
    steps:
      tell: {image: alpine}
steps:
  build:
    type: build
    image_name: acme/app
    dockerfile: {content: FROM alpine}
    build_arguments: [A=1]
    timeout: 1.5h
    retry: {maxAttempts: 3, delay: 10, exponentialFactor: 2}
  push:
    type: push
    candidate: \${{build}}
    tags: [v1]
    when:
      steps:
        - name: build
          on: [success, finished]
  tests:
    image: alpine
    services: [db]
    commands: make
    matrix:
      image: [node:18, node:20]
      environment: [[A=1], [A=2]]
    when: {steps: {any: [{name: build}]}}
  checks:
    type: parallel
    timeout: 30m
    success_criteria: {steps: {only: [lint]}, condition: {all: {ok: "steps.lint.result == 'success'"}}}
    steps:
      lint:
        image: alpine
        hooks: {on_fail: {exec: {image: alpine}}}
      docs:
        image: alpine
        scale: {en: {environment: [L=en]}, de: {environment: [L=de]}}
    when: {steps: [{name: push}]}
  compose:
    type: composition
    composition: {version: '3', services: {db: {image: redis, command: redis-server}}}
    composition_candidates: {test: {image: alpine, command: [sh, -c, 'true']}}
    composition_variables: [X=1]
  approve:
    type: pending-approval
    timeout: {duration: 2, timeUnit: hours}
`,
  `version: '1.0'
kind: pipeline
metadata: {name: demo/ci}
spec:
  triggers: []
  x-defaults: &defaults
    image: alpine
    shell: bash
  steps:
    one:
      type: freestyle
      arguments:
        <<: *defaults
        commands: [echo one]
    greet:
      type: acme/greet:1.0.0
      title: Greet
      arguments: {WHO: world}
    after:
      <<: *defaults
      when: {condition: {all: {ok: "steps.greet_hello.result == 'success'"}}}
`,
];

/** A small in-memory catalog, so typed steps in the seeds expand. */
const GREET = `version: '1.0'
kind: step-type
metadata: {name: acme/greet, version: 1.0.0}
spec:
  arguments:
    type: object
    additionalProperties: false
    required: [WHO]
    properties: {WHO: {type: string}}
  steps:
    hello: {image: alpine, commands: ['echo [[ .Arguments.WHO ]]']}
`;
const stepTypes = catalogFromDefinitions(
  [{ name: 'acme/greet', version: '1.0.0', source: 'memory', text: GREET }],
  'memory',
);

const PUNCTUATION = [':', ': ', '-', '- ', '[', ']', '{', '}', ',', '*', '&', '<<', '<<: '];
const ANCHORS = ['*base', '&base ', '<<: *base ', '*a', '&a '];
const MORE = ['!!', '!!str ', '!!binary ', '!!set ', '\t', '"', "'", '|', '>', '#', '? ', '---\n'];
const TOKENS = [
  ...PUNCTUATION,
  ...ANCHORS,
  ...MORE,
  '\n',
  '  ',
  '${{',
  '}}',
  '%YAML 1.2\n',
  '\u0000',
];

type Mutation = (text: string, random: ReturnType<typeof createRandom>) => string;

const mutations: Mutation[] = [
  (text, r) => text.slice(0, r.int(text.length + 1)),
  (text, r) => withLines(text, (lines) => lines.splice(r.int(lines.length), 1)),
  (text, r) =>
    withLines(text, (lines) => {
      const i = r.int(lines.length);
      lines.splice(i, 0, lines[i] ?? '');
    }),
  (text, r) =>
    withLines(text, (lines) => {
      const [i, j] = [r.int(lines.length), r.int(lines.length)];
      [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
    }),
  (text, r) => {
    const i = r.int(text.length);
    return text.slice(0, i) + String.fromCharCode(32 + r.int(95)) + text.slice(i + 1);
  },
  (text, r) => {
    const i = r.int(text.length + 1);
    return text.slice(0, i) + r.pick(TOKENS) + text.slice(i);
  },
];

function withLines(text: string, change: (lines: string[]) => void): string {
  const lines = text.split('\n');
  change(lines);
  return lines.join('\n');
}

function checkResult(text: string, result: ParsePipelineResult): void {
  const lines = text.split('\n');
  for (const issue of result.issues) {
    assert.ok(issue.message.trim().length > 0, 'an issue has an empty message');
    assert.ok(Number.isInteger(issue.line) && issue.line >= 1, `line ${issue.line}`);
    assert.ok(Number.isInteger(issue.column) && issue.column >= 1, `column ${issue.column}`);
    const line = lines[issue.line - 1];
    assert.ok(line !== undefined, `line ${issue.line} is past the end`);
    assert.ok(
      issue.column <= line.length + 1,
      `column ${issue.column} is past the end of its line`,
    );
  }
  if (result.ok) {
    assert.ok(result.pipeline.steps.length > 0, 'a valid pipeline has steps');
    assert.ok(result.issues.every((i) => i.severity === 'warning'));
  } else {
    assert.ok(
      result.issues.some((i) => i.severity === 'error'),
      'rejected without an error',
    );
  }
}

// The timeout only guards against a hang; 200 runs take under a second.
const timeout = Math.max(60_000, ITERATIONS * 50);
test(`parsePipeline survives ${ITERATIONS} mutated pipelines`, { timeout }, async () => {
  // The package is pure: nothing it parses may reach the process as a warning.
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  try {
    const outcomes = runMutations();
    // Both outcomes occur, so the mutations neither always break nor never break a file: each
    // is more than one run in 40 (4000 runs once asked for more than 100 of each).
    const least = ITERATIONS / 40;
    assert.ok(outcomes.ok > least && outcomes.rejected > least, JSON.stringify(outcomes));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      warnings.map((w) => w.message),
      [],
    );
  } finally {
    process.off('warning', onWarning);
  }
});

function runMutations(): { ok: number; rejected: number } {
  const random = createRandom(SEED);
  const outcomes = { ok: 0, rejected: 0 };
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    let text = SEEDS[iteration % SEEDS.length] ?? '';
    const count = 1 + random.int(4);
    for (let m = 0; m < count; m++) text = random.pick(mutations)(text, random);
    let result: ParsePipelineResult;
    try {
      result = parsePipeline(text, { stepTypes });
      checkResult(text, result);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      assert.fail(`iteration ${iteration}: ${message}\n--- input ---\n${text}`);
    }
    outcomes[result.ok ? 'ok' : 'rejected']++;
  }
  return outcomes;
}

test('every seed pipeline is valid before it is mutated', () => {
  for (const seed of SEEDS) {
    const result = parsePipeline(seed, { stepTypes });
    assert.ok(result.ok, JSON.stringify(result.issues));
  }
});
