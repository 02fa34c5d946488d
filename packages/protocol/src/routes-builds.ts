/**
 * Routes of `/api/v1` for builds: run a pipeline, list, follow, cancel, approve, restart.
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import { Id, paged } from './schemas/common.js';
import {
  AnswerApproval,
  Build,
  BuildDefinition,
  BuildLogQuery,
  CommitStatusReport,
  CreateBuild,
  ListBuilds,
} from './schemas/builds.js';
import { DeletedData } from './schemas/lifecycle.js';
import { BODY_LIMITS } from './schemas/limits.js';

const V1 = '/api/v1';
const PipelineParams = z.object({ pipelineId: Id });
const BuildParams = z.object({ buildId: Id });

export const buildRoutes = {
  createBuild: route({
    method: 'POST',
    path: `${V1}/pipelines/:pipelineId/builds`,
    scope: 'member',
    tag: 'builds',
    summary: 'Run a pipeline (manual trigger)',
    params: PipelineParams,
    body: CreateBuild,
    bodyLimit: BODY_LIMITS.pipeline,
    response: Build,
    status: 201,
  }),
  listBuilds: route({
    method: 'GET',
    path: `${V1}/builds`,
    scope: 'viewer',
    tag: 'builds',
    summary: 'Builds, newest first, filtered and paginated',
    query: ListBuilds,
    response: paged(Build),
  }),
  getBuild: route({
    method: 'GET',
    path: `${V1}/builds/:buildId`,
    scope: 'viewer',
    tag: 'builds',
    summary: 'One build with its steps and timing',
    params: BuildParams,
    response: Build,
  }),
  getBuildDefinition: route({
    method: 'GET',
    path: `${V1}/builds/:buildId/definition`,
    scope: 'viewer',
    tag: 'builds',
    summary:
      'The pipeline definition the build ran, as it ran it: its YAML (null until its engine read it from the repository) and where it came from',
    params: BuildParams,
    response: BuildDefinition.extend({
      yaml: z.string().nullable(),
      fileUrl: z
        .string()
        .nullable()
        .describe(
          "git: the file at its commit on the host's web pages (GitHub, GitLab, Gitea, Bitbucket); null for other hosts",
        ),
    }),
  }),
  getBuildCommitStatus: route({
    method: 'GET',
    path: `${V1}/builds/:buildId/commit-status`,
    scope: 'viewer',
    tag: 'builds',
    summary:
      "What the build's commit was told on its git host (pending, running, then its end), and the host's last refusal; null for a build without a commit to report on",
    params: BuildParams,
    response: CommitStatusReport.nullable(),
  }),
  deleteBuild: route({
    method: 'DELETE',
    path: `${V1}/builds/:buildId`,
    scope: 'member',
    tag: 'builds',
    summary:
      'Delete a finished build with its steps, log, tasks and approvals; 409 naming its status while it has not finished',
    params: BuildParams,
    response: DeletedData,
  }),
  cancelBuild: route({
    method: 'POST',
    path: `${V1}/builds/:buildId/cancel`,
    scope: 'member',
    tag: 'builds',
    summary: 'Cancel a build (pending: at once; running: through its engine)',
    params: BuildParams,
    response: Build,
  }),
  approveBuild: route({
    method: 'POST',
    path: `${V1}/builds/:buildId/approve`,
    scope: 'member',
    tag: 'builds',
    summary:
      'Approve a pending-approval step (the named one, or every waiting one); 409 when none waits',
    params: BuildParams,
    body: AnswerApproval,
    response: Build,
  }),
  denyBuild: route({
    method: 'POST',
    path: `${V1}/builds/:buildId/deny`,
    scope: 'member',
    tag: 'builds',
    summary:
      'Deny a pending-approval step (the named one, or every waiting one); 409 when none waits',
    params: BuildParams,
    body: AnswerApproval,
    response: Build,
  }),
  restartBuild: route({
    method: 'POST',
    path: `${V1}/builds/:buildId/restart`,
    scope: 'member',
    tag: 'builds',
    summary: 'Run the same build again as a new build',
    params: BuildParams,
    response: Build,
    status: 201,
  }),
  buildLog: route({
    method: 'GET',
    path: `${V1}/builds/:buildId/log`,
    scope: 'viewer',
    tag: 'builds',
    summary:
      "The log as text, or one step's (`?step=`), from a chunk on (`?from=`); the `X-Sluice-Log-Next-Seq` header says where the next download starts",
    params: BuildParams,
    query: BuildLogQuery,
    raw: true,
  }),
  buildLogStream: route({
    method: 'GET',
    path: `${V1}/builds/:buildId/log/stream`,
    scope: 'viewer',
    tag: 'builds',
    summary:
      'Server-Sent Events, one event per log chunk (id = seq), `end` when the build has ended; resumes after Last-Event-ID. A reader that falls behind the live log by more than the server keeps gets a `behind` event and the stream ends: resume after its `lastEventId`',
    params: BuildParams,
    raw: true,
  }),
};
