import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stepTypesNamedIn } from './step-types-named.js';
import type { NamedStepType } from './step-types-named.js';

function stepType(name: string, text = `metadata: { name: ${name} }\n`): NamedStepType {
  return { name, document: { source: `built-in: ${name}`, text } };
}

const HELM = stepType('helm');
const SLACK = stepType('slack-message-sender');
const SAY = stepType('acme/say');
/** A step type whose template uses another one. */
const NOTIFY = stepType(
  'notify',
  'spec:\n  steps:\n    send: { type: slack-message-sender, arguments: {} }\n',
);
const ALL = [HELM, SLACK, SAY, NOTIFY];

const sources = (yaml: string) => stepTypesNamedIn(yaml, ALL).map((d) => d.source);

test('a pipeline that names no step type gets none', () => {
  const yaml = `version: '1.0'
steps:
  test: { image: alpine, commands: [make] }
  image: { type: build, image_name: app }
`;
  assert.deepEqual(sources(yaml), []);
});

test('the step types a pipeline names, however it writes them, in the documents order', () => {
  const yaml = `version: '1.0'
steps:
  deploy:
    type: helm:1.1.12
  say: {type: "acme/say:1.0.0", arguments: {WORDS: hi}}
  quoted:
    "type": 'slack-message-sender'
`;
  assert.deepEqual(sources(yaml), [
    'built-in: helm',
    'built-in: slack-message-sender',
    'built-in: acme/say',
  ]);
});

test('a step type named through an anchor, and the ones its template names, are sent too', () => {
  const yaml = `version: '1.0'
x-notify: &notify
  type: notify
steps:
  tell:
    <<: *notify
    arguments: {}
`;
  assert.deepEqual(sources(yaml), ['built-in: slack-message-sender', 'built-in: notify']);
});

test('every version of a named step type is sent', () => {
  const v2 = stepType('helm', 'metadata: { name: helm, version: 2.0.0 }\n');
  assert.deepEqual(stepTypesNamedIn('steps:\n  d: { type: helm }\n', [HELM, SLACK, v2]), [
    HELM.document,
    v2.document,
  ]);
});
