/**
 * What the parse-pipeline test files share: the usual first two lines of a fixture, a pipeline
 * that must parse without a single issue, and a table of broken pipelines, one test per row.
 * Never shipped (`files` leaves out `*.test.*`), so it may use node:test like the tests do.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';
import type { Pipeline } from './model.js';
import type { ParsePipelineOptions } from './parse-pipeline.js';

export const HEAD = ["version: '1.0'", 'steps:'];

/** The model of a pipeline that must be accepted with no warnings either. */
export function parseOk(lines: string[], options?: ParsePipelineOptions): Pipeline {
  const result = parsePipeline(lines.join('\n') + '\n', options);
  if (!result.ok) assert.fail(result.issues.map((i) => i.message).join('\n'));
  assert.deepEqual(result.issues, []);
  return result.pipeline;
}

export interface RejectedRow {
  name: string;
  yaml: string[];
  /** `line:column CODE-suffix message`, e.g. `4:11 UNSUPPORTED Step type "deploy" is not…`. */
  issues: string[];
}

export interface TestRejectionsOptions {
  /** Also end each issue with its field path: `… message (steps.build.image)`. */
  withPath?: boolean;
}

/** One test per row: the pipeline is rejected with exactly the row's issues, in order. */
export function testRejections(
  rows: readonly RejectedRow[],
  options: TestRejectionsOptions = {},
): void {
  for (const row of rows) {
    test(`rejects ${row.name}`, () => {
      assert.deepEqual(describeIssues(row.yaml.join('\n') + '\n', options), row.issues);
    });
  }
}

function describeIssues(text: string, options: TestRejectionsOptions): string[] {
  const result = parsePipeline(text);
  assert.equal(result.ok, false, 'expected the pipeline to be rejected');
  return result.issues.map((i) => {
    const where = options.withPath ? ` (${i.path.join('.')})` : '';
    return `${i.line}:${i.column} ${i.code.replace('SLUICE_PIPELINE_', '')} ${i.message}${where}`;
  });
}
