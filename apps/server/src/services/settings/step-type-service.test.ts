import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EngineStepType } from '@sluice/protocol';
import { stepTypeCatalog, stepTypesNamedIn } from './step-type-service.js';
import type { NamedStepType } from './step-type-service.js';

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

/** A minimal valid step-type document. */
function document(name: string, version: string): EngineStepType {
  const text = `version: '1.0'
kind: step-type
metadata:
  name: ${name}
  version: ${version}
spec:
  steps:
    main:
      image: alpine
      commands: [echo hi]
`;
  return { source: `control plane: ${name}:${version}`, text };
}

test("the account's catalog finds each name at its versions, newest by default, from memory the second time", () => {
  const documents = [
    document('acme/say', '1.0.0'),
    document('acme/say', '1.2.0'),
    { source: 'control plane: broken:1.0.0', text: 'metadata: [not, a, map]\n' },
  ];
  for (const round of ['parsed', 'remembered']) {
    const catalog = stepTypeCatalog(documents);
    assert.equal(catalog.find('acme/say')?.version, '1.2.0', round);
    assert.equal(catalog.find('acme/say', '1.0.0')?.source, 'control plane: acme/say:1.0.0');
    assert.equal(catalog.find('acme/say', '1.0.0')?.text, documents[0]?.text);
    // The document that does not parse is left out, not an error for every pipeline.
    assert.deepEqual(
      catalog.list?.().map((d) => `${d.name}@${d.version}`),
      ['acme/say@1.0.0', 'acme/say@1.2.0'],
      round,
    );
  }
  // Remembered definitions are shared by every catalog: no caller can change another's.
  const found = stepTypeCatalog(documents).find('acme/say');
  assert.ok(found !== undefined && Object.isFrozen(found));
  // The same text from another source is its own entry, named by its own source.
  const moved = { ...documents[1]!, source: 'built-in: acme/say' };
  assert.equal(stepTypeCatalog([moved]).find('acme/say')?.source, 'built-in: acme/say');
});
