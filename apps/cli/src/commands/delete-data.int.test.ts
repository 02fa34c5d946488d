/**
 * `sluice delete pipeline|project|build` against a real server (PGlite in a temp directory):
 * what would go is shown before asking, a no or no terminal deletes nothing, a yes or `--yes`
 * deletes and says what went, and a build not finished is refused with the command to cancel it.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ConflictError, InputError } from '@sluice/errors';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import { createServer, loadServerConfig } from '@sluice/server';
import type { SluiceServer } from '@sluice/server';
import { makeTempDir } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import { createTerminal } from '../ui/terminal.js';
import { deleteBuild, deletePipeline, deleteProject } from './delete-data.js';
import type { Confirm } from './delete-data.js';
import type { ServerOptions } from './server-resources.js';

const TOKEN = 'slu_u_delete-data-test-token-0123456789';
const YAML = 'version: "1.0"\nsteps:\n  a:\n    image: alpine\n';

let dir: TempDir;
let server: SluiceServer;
let admin: SluiceClient;
let target: ServerOptions;

before(async () => {
  dir = await makeTempDir('sluice-delete-data-');
  const config = loadServerConfig(
    { port: 0, host: '127.0.0.1', dataDir: dir.path },
    // A URL no engine answers on: the builds stay elected until they are cancelled.
    { SLUICE_BOOTSTRAP_TOKEN: TOKEN, SLUICE_PUBLIC_URL: 'http://127.0.0.1:9' },
  );
  server = await createServer({ config });
  const url = await server.listen();
  admin = createClient({ baseUrl: url, token: TOKEN });
  target = {
    server: url,
    token: TOKEN,
    source: { context: undefined, server: '--server', token: '--token' },
  };
  await admin.call('createRuntimeEnvironment', {
    body: {
      name: 'local',
      spec: {
        metadata: { name: 'local' },
        runtimeScheduler: { type: 'LocalDocker' },
        dockerDaemonScheduler: { type: 'LocalDocker' },
      },
    },
  });
  await admin.call('setDefaultRuntimeEnvironment', { params: { name: 'local' } });
});

after(async () => {
  await server.close();
  await dir.cleanup();
});

/** A terminal whose output is kept. */
function capture() {
  const out = new PassThrough();
  const err = new PassThrough();
  const text = { out: '', err: '' };
  out.on('data', (chunk: Buffer) => (text.out += chunk.toString()));
  err.on('data', (chunk: Buffer) => (text.err += chunk.toString()));
  return { term: createTerminal({ stdout: out, stderr: err, color: false }), text };
}

/** Project `project` with pipeline `app` and `builds` finished builds of it. */
async function pipelineWithBuilds(project: string, builds: number) {
  await admin.call('createProject', { body: { name: project } });
  const pipeline = await admin.call('createPipeline', {
    params: { project },
    body: { name: 'app', yaml: YAML },
  });
  for (let i = 0; i < builds; i++) {
    const build = await admin.call('createBuild', {
      params: { pipelineId: pipeline.id },
      body: {},
    });
    await admin.call('cancelBuild', { params: { buildId: build.id } });
  }
  return pipeline;
}

test('delete pipeline shows what goes, asks, and deletes only on yes', async () => {
  const pipeline = await pipelineWithBuilds('shop', 2);
  const asked: string[] = [];
  const answer = (yes: boolean): Confirm => {
    return (question) => {
      asked.push(question);
      return Promise.resolve(yes);
    };
  };
  const no = capture();
  assert.equal(await deletePipeline(no.term, 'shop/app', { ...target, confirm: answer(false) }), 1);
  assert.deepEqual(asked, ['Delete pipeline/shop/app with 2 builds?']);
  assert.match(no.text.err, /Will delete pipeline\/shop\/app with 2 builds\.\nNothing was deleted/);
  assert.equal(
    (await admin.call('getPipeline', { params: { pipelineId: pipeline.id } })).id,
    pipeline.id,
  );

  // No terminal to ask on and no --yes: refused, nothing deleted.
  await assert.rejects(
    deletePipeline(capture().term, 'shop/app', { ...target, confirm: undefined }),
    (err: unknown) => err instanceof InputError && err.code === 'SLUICE_DELETE_UNCONFIRMED',
  );
  const { items } = await admin.call('listBuilds', { query: { pipelineId: pipeline.id } });
  assert.equal(items.length, 2);

  const yes = capture();
  assert.equal(await deletePipeline(yes.term, 'shop/app', { ...target, confirm: answer(true) }), 0);
  assert.equal(yes.text.out, 'pipeline/shop/app deleted with 2 builds\n');
  await assert.rejects(admin.call('getPipeline', { params: { pipelineId: pipeline.id } }));
});

test('delete project --yes deletes without asking; a build not finished is refused', async () => {
  const pipeline = await pipelineWithBuilds('docs', 1);
  const running = await admin.call('createBuild', {
    params: { pipelineId: pipeline.id },
    body: {},
  });
  const never: Confirm = () => assert.fail('asked despite --yes');
  await assert.rejects(
    deleteProject(capture().term, 'docs', { ...target, yes: true, confirm: never }),
    (err: unknown) =>
      err instanceof ConflictError &&
      err.message.includes(`build ${running.id} (#2 of docs/app) is elected`) &&
      (err.hint ?? '').includes(`sluice cancel ${running.id}`),
  );
  await assert.rejects(
    deleteBuild(capture().term, running.id, target),
    (err: unknown) => err instanceof ConflictError && err.code === 'SLUICE_BUILD_NOT_FINISHED',
  );
  await admin.call('cancelBuild', { params: { buildId: running.id } });
  const one = capture();
  assert.equal(await deleteBuild(one.term, running.id, target), 0);
  assert.equal(one.text.out, `build/${running.id} deleted with 1 build\n`);

  const all = capture();
  assert.equal(await deleteProject(all.term, 'docs', { ...target, yes: true, confirm: never }), 0);
  assert.match(all.text.err, /^Will delete project\/docs with 1 build\.\n$/);
  assert.equal(all.text.out, 'project/docs deleted with 1 build\n');
});
