import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { parsePipeline } from '@sluice/pipeline';
import type { BuildEvent } from '@sluice/engine';
import { createBuildReporter, printSummary } from './build-reporter.js';
import { createTerminal } from './terminal.js';

const PIPELINE = `version: "1.0"
steps:
  checks:
    type: parallel
    steps:
      lint:
        image: alpine
        commands: ["lint"]
      unit:
        image: alpine
        commands: ["unit"]
  deploy:
    image: alpine
    commands: ["deploy"]
    retry:
      maxAttempts: 3
  gate:
    type: pending-approval
`;

/** A build event without its time (`Omit` over each member of the union). */
type EventInput = BuildEvent extends infer E
  ? E extends BuildEvent
    ? Omit<E, 'at'>
    : never
  : never;

function report(events: EventInput[]): string[] {
  const parsed = parsePipeline(PIPELINE);
  assert.ok(parsed.ok, JSON.stringify(parsed.issues));
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const reporter = createBuildReporter(createTerminal({ stdout, color: false }), {
    steps: parsed.pipeline.steps,
  });
  for (const event of events) reporter({ ...event, at: 0 });
  return text.split('\n').filter((line) => line !== '');
}

const started = (step: string, extra: Record<string, unknown> = {}) =>
  ({ type: 'step-started', step, title: undefined, ...extra }) as const;
const line = (step: string, text: string) =>
  ({ type: 'step-log', step, stream: 'stdout', line: text }) as const;
const finished = (step: string, result: string, extra: Record<string, unknown> = {}) =>
  ({ type: 'step-finished', step, result, durationMs: 1200, ...extra }) as EventInput;

test('log lines carry their step name only while more than one step runs', () => {
  const lines = report([
    started('checks'),
    started('lint', { parent: 'checks' }),
    line('lint', 'alone so far'),
    started('unit', { parent: 'checks' }),
    line('lint', 'lint output'),
    line('unit', 'unit output'),
    finished('lint', 'success'),
    line('unit', 'alone again'),
    finished('unit', 'success'),
    finished('checks', 'success'),
  ]);
  assert.deepEqual(lines, [
    '━━ [1/5] checks',
    '━━ [2/5] lint · in checks',
    '  alone so far',
    '━━ [3/5] unit · in checks',
    '  [lint] lint output',
    '  [unit] unit output',
    '✔ lint success in 1.2s',
    '  alone again',
    '✔ unit success in 1.2s',
    '✔ checks success in 1.2s',
  ]);
});

test('a retry shows its attempt; timeout and denied show why; hook steps count on', () => {
  const lines = report([
    started('deploy'),
    finished('deploy', 'failure', { exitCode: 1 }),
    started('deploy', { attempt: 2 }),
    finished('deploy', 'timeout', { reason: 'Stopped after its 1m timeout' }),
    started('gate'),
    { type: 'approval-requested', step: 'gate', timeoutMs: 3_600_000, finalState: 'denied' },
    finished('gate', 'denied', { reason: 'denied by alice' }),
    started('build.on_fail'),
  ]);
  assert.deepEqual(lines, [
    '━━ [1/5] deploy',
    '✖ deploy failure in 1.2s (exit code 1)',
    '━━ [1/5] deploy · attempt 2/3',
    '⏱ deploy timed out in 1.2s: Stopped after its 1m timeout',
    '━━ [2/5] gate',
    '⊘ gate denied in 1.2s: denied by alice',
    '━━ build.on_fail',
  ]);
});

test("sluice run's report prints the build's annotations and its images' after the steps", () => {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  printSummary(createTerminal({ stdout, color: false }), {
    buildId: 'b1',
    result: 'success',
    steps: [{ name: 'test', title: undefined, result: 'success', durationMs: 1200 }],
    durationMs: 1500,
    exported: {},
    annotations: {
      annotations: { tested: true, by: 'alice', flaky: null },
      imageAnnotations: { 'sha256:abc': { CF_QUALITY: false } },
    },
  });
  assert.deepEqual(text.split('\n').slice(3, 10), [
    '',
    'Annotations:',
    '  tested: true',
    '  by: alice',
    '  flaky',
    'Image sha256:abc:',
    '  CF_QUALITY: false',
  ]);
});
