/**
 * `/api/v1` for builds: run, list, read and follow the log, cancel, approve or deny, restart
 * (user tokens, the caller's account).
 * @module
 */
import { Readable } from 'node:stream';
import { LOG_NEXT_SEQ_HEADER, routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import type { z } from 'zod';
import { coalescePasses } from '../services/coalesced-passes.js';
import { JsonText, disconnectSignal, registerRoute } from './register-routes.js';
import type { Authenticate, Handler } from './register-routes.js';

export function registerBuildRoutes(app: FastifyInstance, s: Services, auth: Authenticate): void {
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
  // Clients polling the same page at once (dashboards, `get builds -w`) share one read and one
  // serialization; each answer comes from a read that started after its request arrived.
  const listPage = coalescePasses(async (key) => {
    const { accountId, projects, query } = JSON.parse(key) as {
      accountId: string;
      projects: string[] | null;
      query: z.output<typeof routes.listBuilds.query>;
    };
    const page = await s.builds.list({ accountId, projects, ...query }, s.ctx.database.passes);
    return new JsonText(JSON.stringify(page));
  });
  registerRoute(app, routes.listBuilds, auth, ({ principal, query }) =>
    // A user limited to some projects sees their builds only.
    listPage(
      JSON.stringify({ accountId: principal.accountId, projects: principal.projects, query }),
    ),
  );
  registerRoute(app, routes.getBuild, auth, ({ principal, params }) =>
    s.builds.get(principal.accountId, params.buildId),
  );
  registerRoute(app, routes.getBuildDefinition, auth, async ({ principal, params }) => {
    const { integration, ...definition } = await s.builds.definition(
      principal.accountId,
      params.buildId,
    );
    const { repo, path, sha } = definition;
    const fileUrl =
      repo === null || path === null || sha === null
        ? null
        : await s.gitIntegrations.fileLink(principal.accountId, integration, { repo, path, sha });
    return { ...definition, fileUrl };
  });
  registerRoute(app, routes.getBuildCommitStatus, auth, ({ principal, params }) =>
    s.commitStatuses.report(principal.accountId, params.buildId),
  );
  registerRoute(app, routes.deleteBuild, auth, ({ principal, params }) =>
    s.deletion.deleteBuild(principal.accountId, params.buildId),
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
  registerRoute(app, routes.buildLog, auth, async ({ principal, params, query, reply }) => {
    await s.builds.get(principal.accountId, params.buildId);
    // The answer is the chunks stored now, from `from`: the next download starts at `next`.
    const from = query.from ?? 0;
    const next = await s.logs.nextSeq(params.buildId);
    const text = s.logs.text(params.buildId, { step: query.step, from, upTo: next - 1 });
    void reply
      .type('text/plain; charset=utf-8')
      .header(LOG_NEXT_SEQ_HEADER, String(Math.max(next, from)))
      // Read a page at a time as the socket takes it, never the whole log at once.
      .send(Readable.from(text, { objectMode: false }));
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
    const outcome = await s.logs.follow(
      params.buildId,
      Number.isFinite(lastEventId) ? lastEventId : -1,
      reply.raw,
      disconnectSignal(request),
    );
    // The follow ended the stream itself unless the reader or the server went away.
    if (outcome === 'gone') reply.raw.end();
    return undefined;
  });
}
