import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestDatabases } from '@sluice/db/testing';
import { makeTempDir } from '@sluice/testkit';
import { builtInStepTypesDir } from './services/settings/built-in-step-types.js';
import {
  seedPipeline,
  startEngine,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

/** The repository's step-types/, which the server finds from its own location by default. */
const REPOSITORY_STEP_TYPES = new URL('../../../step-types/', import.meta.url).pathname;

const SLACK_PIPELINE = `version: "1.0"
steps:
  notify:
    type: slack-message-sender
    arguments:
      WEBHOOK_URL: http://hooks.test/x
      MESSAGE: built
`;

/** An account's own `slack-message-sender`, with other arguments than Sluice's. */
const OWN_SLACK = `version: '1.0'
kind: step-type
metadata:
  name: slack-message-sender
  version: 0.0.1
spec:
  arguments: |-
    {
      "type": "object",
      "additionalProperties": false,
      "properties": { "TEXT": { "type": "string" } }
    }
  steps:
    send:
      image: alpine
      commands:
        - echo [[ .Arguments.TEXT ]]
`;

/** Names `say` (the test's own built-in) in a flow map, with a version. */
const SAY_PIPELINE = `version: "1.0"
steps:
  hello: { type: 'say:0.0.1', arguments: { TEXT: hi } }
`;

databases.test(
  "the built-in step types serve every account without registering them; an account's own of the same name wins",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const updated = await t.admin.call('updatePipeline', {
        params: { pipelineId: pipeline.id },
        body: { yaml: SLACK_PIPELINE },
      });
      assert.equal(updated.yaml, SLACK_PIPELINE, 'a built-in typed step validates unregistered');
      const listed = (await t.admin.call('listStepTypes')).items;
      assert.deepEqual(
        listed.map((s) => [s.name, s.version, s.origin, s.createdAt]),
        listed
          .map((s) => [s.name, '1.0.0', 'built-in', null])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        'the built-in step types are listed, in name order, as built-in',
      );
      const slack = listed.find((s) => s.name === 'slack-message-sender');
      assert.ok(slack);
      assert.equal(
        slack?.description,
        'Send a message to a Slack channel through an incoming webhook',
      );
      assert.match(slack.yaml, /kind: step-type/);
      assert.deepEqual(
        (await t.admin.call('getStepType', { params: { name: 'helm' } })).items.map((s) => [
          s.name,
          s.origin,
        ]),
        [['helm', 'built-in']],
      );
      await assert.rejects(
        t.admin.call('getStepType', { params: { name: 'acme/nothing' } }),
        (err: Error & { code?: string; status?: number }) =>
          err.code === 'SLUICE_STEP_TYPE_NOT_FOUND' && /acme\/nothing/.test(err.message),
      );

      const first = await startEngine(t, pipeline.id);
      const sources = (await first.engine.call('engineBuild')).stepTypes.map((d) => d.source);
      assert.deepEqual(
        sources,
        ['built-in: step-types/slack-message-sender.yml'],
        'the engine gets the step type the pipeline names, not the other built-in ones',
      );
      const files = readdirSync(REPOSITORY_STEP_TYPES).filter((f) => f.endsWith('.yml'));
      assert.ok(files.length > 5, files.join(', '));

      await t.admin.call('putStepType', { body: { yaml: OWN_SLACK } });
      // Sluice's arguments no longer validate: the pipeline is parsed with the account's own.
      await assert.rejects(
        t.admin.call('updatePipeline', {
          params: { pipelineId: pipeline.id },
          body: { yaml: SLACK_PIPELINE.replace('MESSAGE: built', 'MESSAGE: again') },
        }),
        /WEBHOOK_URL|MESSAGE/,
      );
      // What an engine fetches from now on (the list is read when it asks).
      const stepTypes = (await first.engine.call('engineBuild')).stepTypes;
      assert.deepEqual(
        stepTypes.filter((d) => /slack-message-sender/.test(d.source)),
        [{ source: 'control plane: slack-message-sender:0.0.1', text: OWN_SLACK }],
      );
      assert.equal(stepTypes.length, 1, 'the built-in one it replaced is not sent too');
      // Listed once, as the account's: the built-in one of that name no longer applies.
      const own = (await t.admin.call('listStepTypes')).items.filter(
        (s) => s.name === 'slack-message-sender',
      );
      assert.deepEqual(
        own.map((s) => [s.version, s.origin, s.createdBy]),
        [['0.0.1', 'account', 'admin']],
      );
      assert.deepEqual(
        (await t.admin.call('getStepType', { params: { name: 'slack-message-sender' } })).items,
        own,
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'SLUICE_STEP_TYPES_DIR names the built-in step types; a document that does not parse is left out with a warning; a missing directory stops the server',
  async (database) => {
    const temp = await makeTempDir('sluice-step-types-');
    try {
      const dir = join(temp.path, 'types');
      mkdirSync(dir);
      writeFileSync(join(dir, 'say.yml'), OWN_SLACK.replace('slack-message-sender', 'say'));
      writeFileSync(join(dir, 'broken.yml'), 'kind: step-type\nmetadata: [\n');
      writeFileSync(join(dir, 'README.md'), '# not a step type\n');
      const t = await startTestServer(database, { stepTypesDir: dir });
      try {
        const pipeline = await seedPipeline(t);
        const { engine } = await startEngine(t, pipeline.id);
        assert.deepEqual((await engine.call('engineBuild')).stepTypes, [], 'it names none');
        // A build runs the definition it was made with: the next build names the step type.
        await t.admin.call('updatePipeline', {
          params: { pipelineId: pipeline.id },
          body: { yaml: SAY_PIPELINE },
        });
        assert.deepEqual((await engine.call('engineBuild')).stepTypes, [], 'its own copy');
        const { engine: next } = await startEngine(t, pipeline.id, 'agent-2');
        const sources = (await next.call('engineBuild')).stepTypes.map((d) => d.source);
        assert.deepEqual(sources, ['built-in: step-types/say.yml']);
        assert.match(t.logs(), /"file":"broken\.yml".*"msg":"built-in step type left out"/);
      } finally {
        await t.close();
      }
      await assert.rejects(
        startTestServer(database, { stepTypesDir: join(temp.path, 'missing') }),
        /Step-type directory .*missing \(SLUICE_STEP_TYPES_DIR\) does not exist/,
      );
      // Without the repository's directory, the bundle's (images/engine/bundle.sh) is used.
      const bundled = join(temp.path, 'bundle-step-types');
      mkdirSync(bundled);
      assert.equal(builtInStepTypesDir([join(temp.path, 'no-repo'), bundled]), bundled);
    } finally {
      await temp.cleanup();
    }
  },
);
