/**
 * Rows most tests need: an account with a project, a pipeline and a build.
 * @module
 */
import type { Kysely } from 'kysely';
import type { Schema } from './schema.js';

export interface SeededBuild {
  accountId: string;
  projectId: string;
  pipelineId: string;
  buildId: string;
}

export async function seedBuild(db: Kysely<Schema>, suffix = '1'): Promise<SeededBuild> {
  const ids = {
    accountId: `acc-${suffix}`,
    projectId: `prj-${suffix}`,
    pipelineId: `pip-${suffix}`,
    buildId: `bld-${suffix}`,
  };
  await db
    .insertInto('accounts')
    .values({ id: ids.accountId, name: `acme-${suffix}` })
    .execute();
  await db
    .insertInto('projects')
    .values({ id: ids.projectId, account_id: ids.accountId, name: 'web' })
    .execute();
  await db
    .insertInto('pipelines')
    .values({
      id: ids.pipelineId,
      account_id: ids.accountId,
      project_id: ids.projectId,
      name: 'ci',
      yaml: 'version: "1.0"\nsteps: {}\n',
    })
    .execute();
  await db
    .insertInto('builds')
    .values({
      id: ids.buildId,
      account_id: ids.accountId,
      pipeline_id: ids.pipelineId,
      number: 1,
      status: 'pending',
      trigger: 'manual',
    })
    .execute();
  return ids;
}
