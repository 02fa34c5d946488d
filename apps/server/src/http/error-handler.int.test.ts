import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { silentLogger } from '@sluice/log';
import { seedPipeline, startTestServer } from '../server-harness.test-support.js';
import { createHttpApp } from './http-app.js';

const databases = useTestDatabases();

/**
 * The last resort: a conflict the database finds that no service words itself (here, statements
 * a route runs as they are) answers 409 in words, with neither the constraint's nor the
 * table's name nor PostgreSQL's detail.
 */
databases.test(
  'a database conflict no service words answers 409 in words, never the driver text',
  async (database) => {
    const t = await startTestServer(database);
    const app = createHttpApp(silentLogger, { bodyTimeoutMs: 30_000 });
    try {
      const pipeline = await seedPipeline(t);
      const build = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      await t.admin.call('cancelBuild', { params: { buildId: build.id } });
      const project = await database.db
        .selectFrom('projects')
        .selectAll()
        .executeTakeFirstOrThrow();
      app.delete('/raw/pipeline', async () => {
        await database.db.deleteFrom('pipelines').where('id', '=', pipeline.id).execute();
        return null;
      });
      app.post('/raw/project', async () => {
        await database.db
          .insertInto('projects')
          .values({ id: 'prj_twice', account_id: project.account_id, name: project.name })
          .execute();
        return null;
      });
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      const cases = [
        {
          method: 'DELETE',
          path: '/raw/pipeline',
          code: 'SLUICE_DB_REFERENCE',
          message: 'The pipeline cannot be deleted while builds refer to it',
        },
        {
          method: 'POST',
          path: '/raw/project',
          code: 'SLUICE_DB_CONFLICT',
          message: 'A project with the same name already exists',
        },
      ];
      for (const { method, path, code, message } of cases) {
        const response = await fetch(`${url}${path}`, { method });
        const text = await response.text();
        assert.equal(response.status, 409, text);
        const { error } = JSON.parse(text) as {
          error: { code: string; message: string; details?: unknown };
        };
        assert.equal(error.code, code);
        assert.equal(error.message, message);
        assert.equal(error.details, undefined);
        assert.doesNotMatch(
          text,
          /_fkey|_key|constraint|"builds"|"pipelines"|Key \(|still referenced/,
        );
      }
    } finally {
      await app.close();
      await t.close();
    }
  },
);
