/**
 * `createServer` builds the control plane (database, services, HTTP routes) without listening,
 * so tests can listen on port 0; `close` stops everything in order.
 * @module
 */
import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { SERVER_DEFAULTS } from '@sluice/config';
import { openDatabase } from '@sluice/db';
import type { Database } from '@sluice/db';
import { buildOpenApiDocument } from '@sluice/protocol';
import { silentLogger } from '@sluice/log';
import type { Logger } from '@sluice/log';
import type { ServerConfig } from './config.js';
import { createHttpApp } from './http/http-app.js';
import { registerAgentRoutes } from './http/agent-routes.js';
import { registerBuildRoutes } from './http/build-routes.js';
import { registerEngineRoutes } from './http/engine-routes.js';
import { registerIdentityRoutes } from './http/identity-routes.js';
import { registerUserRoutes } from './http/user-routes.js';
import { registerSessionRoutes } from './http/session-routes.js';
import { registerSignInRoutes } from './http/sign-in-routes.js';
import { registerAuditHook } from './http/audit-hook.js';
import type { Authenticate } from './http/register-routes.js';
import { projectOf } from './services/builds/project-of.js';
import { registerProjectRoutes } from './http/project-routes.js';
import { registerRuntimeRoutes } from './http/runtime-routes.js';
import { registerTriggerRoutes } from './http/trigger-routes.js';
import { registerSettingsRoutes } from './http/settings-routes.js';
import { registerClusterRoutes } from './http/cluster-routes.js';
import { registerGitIntegrationRoutes } from './http/git-integration-routes.js';
import { createIdGenerator } from './ids.js';
import { loadSecretKey } from './secret-key-file.js';
import { createServices } from './services/services.js';
import { startCronLoop } from './services/triggers/cron-triggers.js';
import { startSchedulingLoop } from './services/scheduling/scheduling-loop.js';
import { startCommitStatusLoop } from './services/statuses/commit-status-service.js';
import { startLimitsLoop } from './services/limits/workflow-limits.js';
import { startRetentionLoop } from './services/builds/build-retention.js';
import { startAuditRetentionLoop } from './services/identity/audit-retention.js';
import type { Services } from './services/services.js';
import { Signals } from './services/pg-notify.js';
import { instrumentHttp } from './http/http-metrics.js';
import { registerHealthRoutes } from './http/health-routes.js';
import { registerWebUi } from './http/web-ui.js';
import { startMetricsListener } from './observability/metrics-listener.js';
import type { MetricsListener } from './observability/metrics-listener.js';
import { createReadiness } from './observability/readiness.js';
import { createServerMetrics } from './observability/server-metrics.js';
import type { ServerMetrics } from './observability/server-metrics.js';

export const SERVER_VERSION = '0.1.0';

export interface CreateServerOptions {
  config: Readonly<ServerConfig>;
  logger?: Logger;
  clock?: () => number;
  /** An open database (tests); opened from the config otherwise. */
  database?: Database;
}

export interface SluiceServer {
  app: FastifyInstance;
  services: Services;
  metrics: ServerMetrics;
  /** `http://host:port` of `/metrics` once `listen()` ran, when `metricsPort` is set. */
  metricsUrl(): string | undefined;
  /** The admin token when this start created the admin; shown once. */
  bootstrapToken: string | undefined;
  listen(): Promise<string>;
  close(): Promise<void>;
}

export async function createServer(options: CreateServerOptions): Promise<SluiceServer> {
  const { config } = options;
  const log = (options.logger ?? silentLogger).child({ component: 'server' });
  // Private: it holds the server key, the admin token and the embedded database.
  if (config.dataDir !== undefined) mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const database =
    options.database ??
    (await openDatabase({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      logger: log,
      preparedStatements: config.databaseUnnamedStatements !== true,
    }));
  const clock = options.clock ?? Date.now;
  const secretKey = loadSecretKey({ secretKey: config.secretKey, dataDir: config.dataDir });
  const signals = await Signals.create(database);
  const metrics = createServerMetrics({ database, clock, log });
  const services = createServices({
    config,
    database,
    clock,
    ids: createIdGenerator(clock),
    log,
    secretKey,
    signals,
    metrics,
  });
  metrics.observeLogReaders(() => services.logs.stats());
  const adminPassword = config.bootstrapPassword;
  const bootstrap = await services.identity.bootstrap(config.bootstrapToken, {
    passwordHash:
      adminPassword === undefined ? undefined : () => services.signIn.passwords.hash(adminPassword),
  });

  const app = createHttpApp(log, {
    bodyTimeoutMs: config.requestBodyTimeoutMs ?? SERVER_DEFAULTS.requestBodyTimeoutMs,
    trustProxy: config.trustProxy === true,
  });
  instrumentHttp(app, metrics);
  // The UI at `/`: its catch-all is a GET wildcard, so the API routes registered below win.
  registerWebUi(app, config.webDir);
  // Every change and refused token is recorded before its answer is sent (docs/access.md).
  registerAuditHook(app, services.audit, log);
  const auth: Authenticate = {
    lookup: (token) => services.identity.lookup(token),
    projectOf: (accountId, target) => projectOf(database.db, accountId, target),
    sessions: { store: services.sessions, publicUrl: config.publicUrl },
  };
  let closing = false;
  registerHealthRoutes(app, createReadiness({ database, log, stopping: () => closing }), auth);
  app.get('/api/openapi.json', () => buildOpenApiDocument({ version: SERVER_VERSION }));
  registerIdentityRoutes(app, services, auth);
  registerUserRoutes(app, services, auth);
  registerSessionRoutes(app, services, auth, {
    providers: () =>
      services.oidc === undefined
        ? null
        : { label: `Sign in with ${services.oidc.name}`, startPath: '/auth/oidc/start' },
  });
  registerSignInRoutes(app, services, auth);
  registerProjectRoutes(app, services, auth);
  registerBuildRoutes(app, services, auth);
  registerRuntimeRoutes(app, services, auth);
  registerSettingsRoutes(app, services, auth);
  registerGitIntegrationRoutes(app, services, auth);
  registerClusterRoutes(app, services, auth);
  registerAgentRoutes(app, services, auth);
  registerEngineRoutes(app, services, auth);
  registerTriggerRoutes(app, services, auth);

  // Ends or stops builds over their runtime's workflowLimits (the silent engine among them).
  const limits = startLimitsLoop(services.limits, { intervalMs: config.limitsIntervalMs, log });
  // Fires cron triggers due while the server was down at once, then checks every 15 s.
  const cron = startCronLoop(services.cron, { intervalMs: 15_000, log });
  // Schedules builds left pending by a crash at once, then re-checks every 30 s (sooner while the
  // database is unreachable, so a pass runs as soon as it is back).
  const scheduling = startSchedulingLoop(services.scheduler, { intervalMs: 30_000, log });
  // Reports builds' states on their commits (commit statuses), retrying hosts that are away.
  const statuses = startCommitStatusLoop(services.commitStatuses, {
    intervalMs: config.commitStatusIntervalMs,
    log,
  });
  // Deletes builds past their pipeline's retention (or the server's default), in small batches.
  const retention = startRetentionLoop(services.retention, {
    intervalMs: config.retentionIntervalMs ?? SERVER_DEFAULTS.retentionIntervalMs,
    log,
  });

  // Deletes audit events past SLUICE_AUDIT_RETENTION_DAYS and sessions past their limit.
  const auditRetention = startAuditRetentionLoop(services.auditRetention, {
    intervalMs: config.retentionIntervalMs ?? SERVER_DEFAULTS.retentionIntervalMs,
    log,
  });

  let metricsListener: MetricsListener | undefined;
  return {
    app,
    services,
    metrics,
    metricsUrl: () => metricsListener?.url,
    bootstrapToken: bootstrap?.token,
    async listen() {
      const url = await app.listen({ port: config.port, host: config.host });
      if (config.metricsPort !== undefined) {
        const { metricsHost: host, metricsPort: port } = config;
        metricsListener = await startMetricsListener({ host, port, metrics, log });
        log.info('metrics listening', { url: `${metricsListener.url}/metrics` });
      }
      return url;
    },
    async close() {
      closing = true;
      await metricsListener?.close();
      await limits.stop();
      await cron.stop();
      await scheduling.stop();
      await statuses.stop();
      await retention.stop();
      await auditRetention.stop();
      // Log streams end now (their clients resume elsewhere), or the close would wait for them.
      services.logs.close();
      await app.close();
      await signals.close();
      if (options.database === undefined) await database.close();
    },
  };
}
