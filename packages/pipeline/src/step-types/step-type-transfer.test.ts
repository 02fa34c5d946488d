import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandTypedStep } from './expand-typed-step.js';
import { catalogFromDefinitions } from './load-step-type-catalog.js';
import { parseStepTypeDocument } from './parse-step-type-document.js';
import { stepTypeFromData, stepTypeToData } from './step-type-transfer.js';

const TEXT = `version: '1.0'
kind: step-type
metadata:
  name: acme/tag
  version: 1.0.0
spec:
  arguments:
    type: object
    properties:
      TAG: { type: string, pattern: '^v[0-9]+$' }
      MORE:
        type: array
        items: { type: string, pattern: 'a/b' }
      EXTRA:
        type: object
        additionalProperties: { type: string, pattern: '^x$' }
  steps:
    tag:
      image: alpine
      commands: ['echo [[ .Arguments.TAG ]]']
`;

test('a parsed step type crosses a structured clone as data and expands as the original does', () => {
  const parsed = parseStepTypeDocument(TEXT, 'control plane: acme/tag:1.0.0');
  assert.ok(parsed.ok);
  assert.throws(() => structuredClone(parsed.definition), /could not be cloned/, 'patterns');
  const received = stepTypeFromData(structuredClone(stepTypeToData(parsed.definition)));
  const catalog = catalogFromDefinitions([received], 'control plane');
  const expand = (args: unknown) => {
    const problems: string[] = [];
    const reporter = { report: (_path: unknown, message: string) => problems.push(message) };
    const input = { stepName: 't', path: ['steps', 't'], type: 'acme/tag:1.0.0', arguments: args };
    return { expansion: expandTypedStep(input, catalog, reporter), problems };
  };
  assert.deepEqual(expand({ TAG: 'v1' }).expansion?.steps, {
    tag: { image: 'alpine', commands: ['echo v1'] },
  });
  assert.match(expand({ TAG: 'one' }).problems[0] ?? '', /must match \/\^v\[0-9\]\+\$\//);
  assert.match(expand({ MORE: ['c'] }).problems[0] ?? '', /must match \/a\\\/b\//);
  assert.deepEqual(expand({ MORE: ['xa/by'] }).problems, []);
  assert.match(expand({ EXTRA: { k: 'y' } }).problems[0] ?? '', /must match \/\^x\$\//);
});

test('a received document is expanded without its text being read again', () => {
  const parsed = parseStepTypeDocument(TEXT, 'control plane: acme/tag:1.0.0');
  assert.ok(parsed.ok);
  // The text no longer parses, but the document arrived parsed: expansion never reads it.
  const received = stepTypeFromData({ ...stepTypeToData(parsed.definition), text: 'not: [yaml' });
  const catalog = catalogFromDefinitions([received], 'control plane');
  const problems: string[] = [];
  const input = { stepName: 't', path: ['steps', 't'], type: 'acme/tag:1.0.0', arguments: {} };
  const expansion = expandTypedStep(input, catalog, { report: (_p, m) => problems.push(m) });
  assert.deepEqual(problems, []);
  assert.deepEqual(Object.keys(expansion?.steps ?? {}), ['tag']);
});
