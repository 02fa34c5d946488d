import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCommand } from '@sluice/testkit';
import { runCompositionStep } from './step-composition.js';
import { LABELS } from '../base/resource-names.js';
import {
  compositionStep,
  createStepRuntime,
  service,
  SHELL_IMAGE,
  shService,
} from './step-runtime.test-support.js';

const sh = shService;

/**
 * migrate (runs to exit 0) → db (after migrate completed; answers on 80) → api (after db answers;
 * reaches it by its link alias `database`) → the candidate (after api answers). `shared` is the
 * composition's own volume; the flow volume carries what api saw to the candidate.
 */
const services = [
  service({
    name: 'migrate',
    ...sh('sleep 1; echo migrated > /shared/state'),
    volumes: ['shared:/shared'],
  }),
  service({
    name: 'db',
    ...sh('exec nc -ll -p 80 -e cat /shared/state'),
    volumes: ['shared:/shared'],
    dependsOn: [{ name: 'migrate', condition: 'service_completed_successfully' }],
    ports: ['80'],
  }),
  service({
    name: 'api',
    ...sh('nc -w 2 database 80 > /codefresh/volume/api-saw; exec nc -ll -p 80 -e echo api-up'),
    dependsOn: [{ name: 'db', condition: 'service_healthy' }],
    links: ['db:database'],
    labels: [['com.example.tier', 'api']],
    ports: ['8080:80'],
  }),
];

test('services start in depends_on order with their conditions, with links, labels and volumes', async () => {
  const step = compositionStep({
    name: 'compose',
    services,
    volumes: ['shared'],
    addFlowVolume: true,
    candidates: [
      service({
        name: 'tests',
        ...sh(
          'echo "api says $(nc -w 2 api 80)"; echo "api saw $(cat /codefresh/volume/api-saw)"; cat /shared/state; sleep 2',
        ),
        volumes: ['shared:/shared'],
        dependsOn: [{ name: 'api', condition: 'service_healthy' }],
      }),
    ],
  });
  const fx = await createStepRuntime({ steps: [step] });
  try {
    let settled = false;
    const running = runCompositionStep(step, fx.runtime).finally(() => (settled = true));
    // Looked for while the composition runs (its services go with it), however long it takes
    // to come up on a busy machine.
    let labelled: string[] = [];
    while (labelled.length === 0 && !settled) {
      labelled = await fx.containers({ 'com.example.tier': 'api', [LABELS.step]: 'compose' });
      if (labelled.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    const outcome = await running;
    assert.equal(outcome.result, 'success', outcome.reason);
    assert.equal(labelled.length, 1, 'the api container carries its compose label');
    assert.deepEqual(fx.lines('compose', 'stdout'), [
      'api says api-up',
      'api saw migrated',
      'migrated',
    ]);
    const system = fx.lines('compose', 'system');
    const at = (line: string) => {
      const index = system.indexOf(line);
      assert.notEqual(index, -1, `${line} in ${system.join('\n')}`);
      return index;
    };
    const order = [
      at(`[migrate] starting ${SHELL_IMAGE}`),
      at('[db] waiting for migrate to complete'),
      at(`[db] starting ${SHELL_IMAGE}`),
      at('[api] waiting for db on port 80'),
      at(`[api] starting ${SHELL_IMAGE}`),
      at('[tests] waiting for api on port 80'),
    ];
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
    );
    assert.deepEqual(await fx.containers({ [LABELS.step]: 'compose' }), []);
    // This build's volumes only: other test files' compositions may have a `shared` of their own.
    const volumes = await runCommand('docker', ['volume', 'ls', '-q']);
    const ofBuild = volumes.stdout
      .split('\n')
      .filter((name) => name.startsWith(`sluice-${fx.runtime.buildId}-`));
    assert.ok(!ofBuild.some((name) => name.includes('volume-shared')), volumes.stdout);
  } finally {
    await fx.close();
  }
});

test('a service that must complete but fails, and an unknown or circular dependency, fail the step by name', async () => {
  const failing = compositionStep({
    name: 'broken',
    services: [
      service({ name: 'migrate', ...sh('exit 3') }),
      service({
        name: 'db',
        ...sh('sleep 30'),
        dependsOn: [{ name: 'migrate', condition: 'service_completed_successfully' }],
      }),
    ],
    candidates: [service({ name: 'tests', ...sh('true') })],
  });
  const circle = compositionStep({
    name: 'circle',
    services: [
      service({ name: 'a', ...sh('true'), links: ['b'] }),
      service({
        name: 'b',
        ...sh('true'),
        dependsOn: [{ name: 'a', condition: 'service_started' }],
      }),
    ],
    candidates: [service({ name: 'tests', ...sh('true') })],
  });
  const unknown = compositionStep({
    name: 'unknown',
    services: [service({ name: 'a', ...sh('true') })],
    candidates: [
      service({
        name: 'tests',
        ...sh('true'),
        dependsOn: [{ name: 'nope', condition: 'service_started' }],
      }),
    ],
  });
  const fx = await createStepRuntime({ steps: [failing, circle, unknown] });
  try {
    const outcome = await runCompositionStep(failing, fx.runtime);
    assert.equal(outcome.result, 'failure');
    assert.equal(
      outcome.reason,
      'Composition service db depends on migrate completing successfully, but it exited with code 3',
    );
    assert.deepEqual(await fx.containers({ [LABELS.step]: 'broken' }), []);
    const circular = await runCompositionStep(circle, fx.runtime);
    assert.equal(
      circular.reason,
      'Composition services depend on each other in a circle: a → b → a',
    );
    const missing = await runCompositionStep(unknown, fx.runtime);
    assert.equal(
      missing.reason,
      'Composition service tests depends on nope, which is not a service of the composition (a)',
    );
  } finally {
    await fx.close();
  }
});

const COMPOSE_FILE = `version: '3'
services:
  web:
    image: ${SHELL_IMAGE}
    entrypoint: [sh, -c]
    command: ['exec nc -ll -p 80 -e cat /data/greeting']
    volumes: ['data:/data']
    ports: ['80']
  seed:
    image: ${SHELL_IMAGE}
    entrypoint: [sh, -c]
    command: ['echo from-file > /data/greeting']
    volumes: ['data:/data']
volumes:
  data: {}
`;

test('a composition given as a file in the working directory runs; a bad file or a stored name says why', async () => {
  const fromFile = compositionStep({
    name: 'from-file',
    file: 'docker-compose.yml',
    workingDirectory: '/codefresh/volume/app',
    candidates: [service({ name: 'tests', ...sh('sleep 1; echo "web says $(nc -w 2 web 80)"') })],
  });
  const badFile = { ...fromFile, name: 'bad-file', file: 'broken.yml' };
  const stored = { ...fromFile, name: 'stored', file: 'my-stored-composition' };
  const fx = await createStepRuntime({ steps: [fromFile, badFile, stored] });
  try {
    await fx.writeFiles('app', {
      'docker-compose.yml': COMPOSE_FILE,
      'broken.yml': `services:\n  web:\n    imag: ${SHELL_IMAGE}\n`,
    });
    const outcome = await runCompositionStep(fromFile, fx.runtime);
    assert.equal(outcome.result, 'success', outcome.reason);
    assert.deepEqual(fx.lines('from-file', 'stdout'), ['web says from-file']);

    const bad = await runCompositionStep(badFile, fx.runtime);
    assert.equal(bad.result, 'failure');
    assert.match(
      bad.reason ?? '',
      /^Composition file \/codefresh\/volume\/app\/broken\.yml is not a valid composition: .*\/codefresh\/volume\/app\/broken\.yml:2:3: error: Missing required field "image" in compose service.*; .*broken\.yml:3:5: warning: Unknown field "imag" in compose service \(Codefresh ignores unknown fields here, and so does Sluice\); did you mean "image"\?/,
    );
    const named = await runCompositionStep(stored, fx.runtime);
    assert.equal(
      named.reason,
      'Composition "my-stored-composition" is not a file in /codefresh/volume/app, and stored compositions are not available in Sluice',
    );
  } finally {
    await fx.close();
  }
});
