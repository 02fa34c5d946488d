/**
 * `/api/v1`: what people and the CLI call with a user token.
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import { disconnectSignal, registerRoute } from './register-routes.js';
import type { Authenticate, Handler } from './register-routes.js';

export function registerUserRoutes(app: FastifyInstance, s: Services, auth: Authenticate): void {
  registerRoute(app, routes.me, auth, ({ principal }) => s.identity.me(principal));
  registerRoute(app, routes.updateAccount, auth, async ({ principal, body }) => {
    const account = await s.identity.updateAccount(principal.accountId, body);
    await s.scheduler.schedule(principal.accountId);
    return account;
  });
  registerRoute(app, routes.listTokens, auth, async ({ principal }) => ({
    items: await s.identity.listTokens(principal),
  }));
  registerRoute(app, routes.createToken, auth, ({ principal, body }) => {
    const expiresAt =
      body.expiresInDays === undefined
        ? undefined
        : new Date(s.ctx.clock() + body.expiresInDays * 86_400_000);
    return s.identity.issueToken({
      accountId: principal.accountId,
      kind: 'user',
      subjectId: principal.userId ?? '',
      name: body.name,
      expiresAt,
    });
  });
  registerRoute(
    app,
    routes.revokeToken,
    auth,
    async ({ principal, params }) => void (await s.identity.revokeToken(principal, params.tokenId)),
  );

  registerRoute(app, routes.listProjects, auth, async ({ principal }) => ({
    items: await s.projects.listProjects(principal.accountId),
  }));
  registerRoute(app, routes.createProject, auth, ({ principal, body }) =>
    s.projects.createProject(principal.accountId, body.name),
  );
  registerRoute(app, routes.getProject, auth, ({ principal, params }) =>
    s.projects.getProject(principal.accountId, params.project),
  );
  registerRoute(
    app,
    routes.deleteProject,
    auth,
    async ({ principal, params }) =>
      void (await s.projects.deleteProject(principal.accountId, params.project)),
  );
  registerRoute(app, routes.listPipelines, auth, async ({ principal, params }) => ({
    items: await s.projects.listPipelines(principal.accountId, params.project),
  }));
  registerRoute(app, routes.createPipeline, auth, ({ principal, params, body }) =>
    s.projects.createPipeline(principal.accountId, params.project, body),
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
  registerRoute(
    app,
    routes.deletePipeline,
    auth,
    async ({ principal, params }) =>
      void (await s.projects.deletePipeline(principal.accountId, params.pipelineId)),
  );
  registerRoute(app, routes.setVariable, auth, ({ principal, params, body }) =>
    s.projects.setVariable(principal.accountId, params.pipelineId, params.name, body),
  );

  registerRoute(app, routes.createBuild, auth, async ({ principal, params, body }) => {
    if (body.runtimeEnvironment !== undefined)
      await s.runtimes.assertExists(principal.accountId, body.runtimeEnvironment);
    return s.builds.create({
      accountId: principal.accountId,
      pipelineId: params.pipelineId,
      trigger: 'manual',
      initiator: principal.userId,
      ...body,
    });
  });
  registerRoute(app, routes.listBuilds, auth, ({ principal, query }) =>
    s.builds.list({ accountId: principal.accountId, ...query }),
  );
  registerRoute(app, routes.getBuild, auth, ({ principal, params }) =>
    s.builds.get(principal.accountId, params.buildId),
  );
  registerRoute(app, routes.cancelBuild, auth, ({ principal, params }) =>
    s.builds.cancel(principal.accountId, params.buildId),
  );
  const answer =
    (decision: 'approve' | 'deny'): Handler<typeof routes.approveBuild> =>
    ({ principal, params, body }) =>
      s.approvals.answer({
        accountId: principal.accountId,
        buildId: params.buildId,
        decision,
        step: body.step,
        userId: principal.userId,
      });
  registerRoute(app, routes.approveBuild, auth, answer('approve'));
  registerRoute(app, routes.denyBuild, auth, answer('deny'));
  registerRoute(app, routes.restartBuild, auth, ({ principal, params }) =>
    s.builds.restart(principal.accountId, params.buildId, principal.userId),
  );
  registerRoute(app, routes.buildLog, auth, async ({ principal, params, reply }) => {
    await s.builds.get(principal.accountId, params.buildId);
    void reply.type('text/plain; charset=utf-8').send(await s.logs.text(params.buildId));
    return undefined;
  });
  registerRoute(app, routes.buildLogStream, auth, async ({ principal, params, request, reply }) => {
    await s.builds.get(principal.accountId, params.buildId);
    const lastEventId = Number(
      request.headers['last-event-id'] ?? (request.query as { after?: string }).after ?? -1,
    );
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    await s.logs.follow(
      params.buildId,
      Number.isFinite(lastEventId) ? lastEventId : -1,
      (text) => reply.raw.write(text),
      disconnectSignal(request),
    );
    reply.raw.end();
    return undefined;
  });

  registerRoute(app, routes.listRuntimeEnvironments, auth, async ({ principal }) => ({
    items: await s.runtimes.list(principal.accountId),
  }));
  registerRoute(app, routes.createRuntimeEnvironment, auth, ({ principal, body }) =>
    s.runtimes.create(principal.accountId, body, principal.userId),
  );
  registerRoute(app, routes.getRuntimeEnvironment, auth, ({ principal, params, query }) =>
    s.runtimes.get(principal.accountId, params.name, {
      version: query.version,
      extend: query.extend === 'true',
    }),
  );
  registerRoute(app, routes.patchRuntimeEnvironment, auth, ({ principal, params, body }) =>
    s.runtimes.patch(
      principal.accountId,
      params.name,
      body.patch,
      body.description,
      principal.userId,
    ),
  );
  registerRoute(app, routes.runtimeEnvironmentHistory, auth, async ({ principal, params }) => ({
    items: await s.runtimes.history(principal.accountId, params.name),
  }));
  registerRoute(app, routes.setDefaultRuntimeEnvironment, auth, ({ principal, params }) =>
    s.runtimes.setDefault(principal.accountId, params.name),
  );
  registerRoute(
    app,
    routes.deleteRuntimeEnvironment,
    auth,
    async ({ principal, params }) =>
      void (await s.runtimes.delete(principal.accountId, params.name)),
  );

  registerRoute(app, routes.listAgents, auth, async ({ principal }) => ({
    items: await s.agents.list(principal.accountId),
  }));
  registerRoute(app, routes.createAgent, auth, ({ principal, body }) =>
    s.agents.create(principal.accountId, body),
  );
  registerRoute(app, routes.updateAgent, auth, ({ principal, params, body }) =>
    s.agents.update(principal.accountId, params.agentId, body),
  );
  registerRoute(
    app,
    routes.deleteAgent,
    auth,
    async ({ principal, params }) =>
      void (await s.agents.delete(principal.accountId, params.agentId)),
  );
}
