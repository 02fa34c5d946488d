/**
 * Routes of `/api/v1` for projects and their pipelines (YAML, runtime, limits, variables).
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import { Id, Name } from './schemas/common.js';
import { DeletedData, DeleteQuery } from './schemas/lifecycle.js';
import {
  CreatePipeline,
  CreateProject,
  Pipeline,
  PipelineValidation,
  Project,
  UpdatePipeline,
  ValidatePipeline,
  VariableInput,
} from './schemas/projects.js';
import { BODY_LIMITS } from './schemas/limits.js';

const V1 = '/api/v1';
const ProjectParams = z.object({ project: Name });
const PipelineParams = z.object({ pipelineId: Id });

export const projectRoutes = {
  listProjects: route({
    method: 'GET',
    path: `${V1}/projects`,
    scope: 'viewer',
    tag: 'projects',
    summary: 'Projects of the account',
    response: z.object({ items: z.array(Project) }),
  }),
  createProject: route({
    method: 'POST',
    path: `${V1}/projects`,
    scope: 'member',
    tag: 'projects',
    summary: 'Create a project',
    body: CreateProject,
    response: Project,
    status: 201,
  }),
  getProject: route({
    method: 'GET',
    path: `${V1}/projects/:project`,
    scope: 'viewer',
    tag: 'projects',
    summary: 'One project',
    params: ProjectParams,
    response: Project,
  }),
  deleteProject: route({
    method: 'DELETE',
    path: `${V1}/projects/:project`,
    scope: 'admin',
    tag: 'projects',
    summary:
      'Delete a project, its pipelines and their builds and logs (in batches); 409 while a build of it has not finished',
    params: ProjectParams,
    query: DeleteQuery,
    response: DeletedData,
  }),
  listPipelines: route({
    method: 'GET',
    path: `${V1}/projects/:project/pipelines`,
    scope: 'viewer',
    tag: 'pipelines',
    summary: 'Pipelines of a project',
    params: ProjectParams,
    response: z.object({ items: z.array(Pipeline) }),
  }),
  createPipeline: route({
    method: 'POST',
    path: `${V1}/projects/:project/pipelines`,
    scope: 'member',
    tag: 'pipelines',
    summary: 'Create a pipeline; 422 lists every problem of its YAML with line:column',
    params: ProjectParams,
    body: CreatePipeline,
    bodyLimit: BODY_LIMITS.pipeline,
    response: Pipeline,
    status: 201,
  }),
  validatePipeline: route({
    method: 'POST',
    path: `${V1}/pipelines/validate`,
    scope: 'viewer',
    tag: 'pipelines',
    summary:
      "Check a pipeline's YAML without saving it: every problem with line:column (the UI's editor, as you type)",
    body: ValidatePipeline,
    bodyLimit: BODY_LIMITS.pipeline,
    response: PipelineValidation,
  }),
  getPipelineByName: route({
    method: 'GET',
    path: `${V1}/projects/:project/pipelines/:name`,
    scope: 'viewer',
    tag: 'pipelines',
    summary: 'One pipeline by its project and name (`sluice run-pipeline project/pipeline`)',
    params: ProjectParams.extend({ name: Name }),
    response: Pipeline,
  }),
  getPipeline: route({
    method: 'GET',
    path: `${V1}/pipelines/:pipelineId`,
    scope: 'viewer',
    tag: 'pipelines',
    summary: 'One pipeline',
    params: PipelineParams,
    response: Pipeline,
  }),
  updatePipeline: route({
    method: 'PATCH',
    path: `${V1}/pipelines/:pipelineId`,
    scope: 'member',
    tag: 'pipelines',
    summary:
      'Change YAML, runtime, limits or variables (`variables` set or replace, `removeVariables` delete); with `ifUpdatedAt`, 409 SLUICE_PIPELINE_CHANGED when it changed since',
    params: PipelineParams,
    body: UpdatePipeline,
    bodyLimit: BODY_LIMITS.pipeline,
    response: Pipeline,
  }),
  deletePipeline: route({
    method: 'DELETE',
    path: `${V1}/pipelines/:pipelineId`,
    scope: 'member',
    tag: 'pipelines',
    summary:
      'Delete a pipeline and its builds and logs (in batches); 409 while a build of it has not finished',
    params: PipelineParams,
    query: DeleteQuery,
    response: DeletedData,
  }),
  setVariable: route({
    method: 'PUT',
    path: `${V1}/pipelines/:pipelineId/variables/:name`,
    scope: 'member',
    tag: 'pipelines',
    summary: 'Set a variable or secret (secrets are encrypted at rest and never returned)',
    params: PipelineParams.extend({ name: z.string() }),
    body: VariableInput,
    bodyLimit: BODY_LIMITS.variables,
    response: Pipeline,
  }),
};
