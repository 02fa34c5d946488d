/**
 * `/api/v1` for projects and their pipelines (user tokens, the caller's account).
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import { requireProject } from './auth.js';
import { registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';

export function registerProjectRoutes(app: FastifyInstance, s: Services, auth: Authenticate): void {
  registerRoute(app, routes.listProjects, auth, async ({ principal }) => ({
    // A user limited to some projects sees those only.
    items: (await s.projects.listProjects(principal.accountId)).filter(
      (project) => principal.projects === null || principal.projects.includes(project.name),
    ),
  }));
  registerRoute(app, routes.createProject, auth, ({ principal, body }) => {
    requireProject(principal, body.name);
    return s.projects.createProject(principal.accountId, body.name);
  });
  registerRoute(app, routes.getProject, auth, ({ principal, params }) =>
    s.projects.getProject(principal.accountId, params.project),
  );
  registerRoute(app, routes.deleteProject, auth, ({ principal, params, query }) =>
    s.deletion.deleteProject(principal.accountId, params.project, {
      dryRun: query.dryRun === 'true',
    }),
  );
  registerRoute(app, routes.listPipelines, auth, async ({ principal, params }) => ({
    items: await s.projects.listPipelines(principal.accountId, params.project),
  }));
  registerRoute(app, routes.createPipeline, auth, ({ principal, params, body }) =>
    s.projects.createPipeline(principal.accountId, params.project, body),
  );
  registerRoute(app, routes.validatePipeline, auth, ({ principal, body }) =>
    s.projects.validatePipeline(principal.accountId, body.yaml),
  );
  registerRoute(app, routes.getPipelineByName, auth, ({ principal, params }) =>
    s.projects.getPipelineByName(principal.accountId, params.project, params.name),
  );
  registerRoute(app, routes.getPipeline, auth, ({ principal, params }) =>
    s.projects.getPipeline(principal.accountId, params.pipelineId),
  );
  registerRoute(app, routes.updatePipeline, auth, ({ principal, params, body }) =>
    s.projects.updatePipeline(principal.accountId, params.pipelineId, body),
  );
  registerRoute(app, routes.deletePipeline, auth, ({ principal, params, query }) =>
    s.deletion.deletePipeline(principal.accountId, params.pipelineId, {
      dryRun: query.dryRun === 'true',
    }),
  );
  registerRoute(app, routes.setVariable, auth, ({ principal, params, body }) =>
    s.projects.setVariable(principal.accountId, params.pipelineId, params.name, body),
  );
}
