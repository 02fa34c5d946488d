/**
 * A large registered step type costs its parse once, off the event loop, and nothing per build:
 * (issue 33) a valid 1 MB document (a 490,000-item list in an `x-` field) blocked the loop for
 * 12.6 s when put, then every build creation for 8 s and every validation for 6.5 s, each
 * parsing it again. Here one of some 20,000 items, sized for CI; parses are counted by
 * `sluice_server_document_parses_total`, the loop's delay measured against a parse of the same
 * document on the test's own thread.
 * @module
 */
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { useTestDatabases } from '@sluice/db/testing';
import { parseStepTypeDocument } from '@sluice/pipeline';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { ONE_KIND, seedPipeline, startTestServer } from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';

const databases = useTestDatabases();

/** A valid step type whose metadata carries an `items`-long flow list; `WHO` required or not. */
function stepType(items: number, options: { required?: boolean } = {}): string {
  return `version: '1.0'
kind: step-type
metadata:
  name: acme/big
  version: 1.0.0
  description: Big
  x-padding: [${'1,'.repeat(items - 1)}1]
spec:
  arguments:
    type: object
    ${options.required === false ? '' : 'required: [WHO]'}
    properties:
      WHO: { type: string }
  steps:
    hello:
      image: alpine
      commands: ['echo [[ .Arguments.WHO ]]']
`;
}

const PIPELINE = `version: "1.0"
steps:
  hello:
    type: acme/big:1.0.0
    arguments: { WHO: world }
`;

/** Step-type documents this server has parsed, by where. */
async function stepTypeParses(t: TestServer): Promise<Record<string, number>> {
  const text = await t.server.metrics.render();
  const counts: Record<string, number> = {};
  for (const [, where = '', count = '0'] of text.matchAll(
    /^sluice_server_document_parses_total\{kind="step-type",where="(\w+)"\} (\d+)$/gm,
  ))
    counts[where] = Number(count);
  return counts;
}

/** How many `/api/health` answers came, one after another, until `done` settled. */
async function healthAnswersWhile(t: TestServer, done: Promise<unknown>): Promise<number> {
  let settled = false;
  void done.finally(() => (settled = true)).catch(() => undefined);
  let answers = 0;
  while (!settled) {
    const response = await fetch(`${t.url}/api/health`);
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    if (!settled) answers += 1;
  }
  return answers;
}

databases.test(
  'a large step type is parsed once, off the event loop; builds, validations and listings then read it from memory',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      // Big enough that a parse (~0.4 s) stands well clear of a loaded machine's own stalls (a
      // garbage collection, another file's work: 80 ms seen beside the Kubernetes build).
      const yaml = stepType(60_000);
      // The same parse on this thread, warm: what the PUT would hold the event loop for, in place.
      let baselineMs = Infinity;
      for (let i = 0; i < 2; i++) {
        const started = performance.now();
        assert.ok(parseStepTypeDocument(yaml, 'baseline').ok);
        baselineMs = Math.min(baselineMs, performance.now() - started);
      }

      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      const put = t.admin.call('putStepType', { body: { yaml } });
      const healthAnswers = await healthAnswersWhile(t, put);
      await put;
      delay.disable();
      const maxDelayMs = delay.max / 1e6;
      assert.ok(
        maxDelayMs < baselineMs / 2,
        `the event loop stalled ${Math.round(maxDelayMs)} ms; a parse takes ${Math.round(baselineMs)} ms`,
      );
      // Hundreds while a worker parses (a few when the parse held the loop).
      assert.ok(healthAnswers >= 20, `/api/health answered ${healthAnswers} times during the PUT`);
      assert.deepEqual(await stepTypeParses(t), { worker: 1 }, 'parsed once, in a worker');

      await t.admin.call('updatePipeline', {
        params: { pipelineId: pipeline.id },
        body: { yaml: PIPELINE },
      });
      for (let i = 0; i < 3; i++)
        await t.admin.call('createBuild', { params: { pipelineId: pipeline.id }, body: {} });
      const validation = await t.admin.call('validatePipeline', { body: { yaml: PIPELINE } });
      assert.deepEqual(validation.issues, []);
      const broken = await t.admin.call('validatePipeline', {
        body: { yaml: PIPELINE.replace('{ WHO: world }', '{}') },
      });
      assert.match(broken.issues[0]?.message ?? '', /WHO/, 'checked against the stored schema');
      const { items } = await t.admin.call('listStepTypes');
      assert.equal(items.find((s) => s.name === 'acme/big')?.description, 'Big');
      assert.equal(
        (await t.admin.call('getStepType', { params: { name: 'acme/big' } })).items[0]?.yaml,
        yaml,
      );
      assert.deepEqual(await stepTypeParses(t), { worker: 1 }, 'and never again');
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a step type put or deleted through one server is what another uses next, parsed there once',
  async (database) => {
    const key = { secretKey: exportSecretKey(generateSecretKey()) };
    const a = await startTestServer(database, key);
    const b = await startTestServer(database, key);
    try {
      await seedPipeline(a);
      const lacking = PIPELINE.replace('{ WHO: world }', '{}');
      const issues = async () =>
        (await b.admin.call('validatePipeline', { body: { yaml: lacking } })).issues.map(
          (i) => i.message,
        );
      await a.admin.call('putStepType', { body: { yaml: stepType(10) } });
      assert.match((await issues())[0] ?? '', /WHO/, 'B checks against what A stored');
      await a.admin.call('putStepType', { body: { yaml: stepType(10, { required: false }) } });
      assert.deepEqual(await issues(), [], "B sees A's change at once");
      assert.deepEqual(await issues(), []);
      assert.deepEqual(await stepTypeParses(b), { inline: 2 }, 'each version parsed once on B');
      await a.admin.call('deleteStepType', { params: { name: 'acme/big', version: '1.0.0' } });
      assert.match((await issues())[0] ?? '', /acme\/big/, 'and its deletion');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  },
);
