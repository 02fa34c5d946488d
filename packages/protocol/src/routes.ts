/**
 * Every route of the three APIs: `/api/v1` (people and the CLI, user tokens: identity, users
 * and the audit log, projects, builds, runtimes, account settings, triggers), `/api/agent/v1` (runner agents,
 * agent tokens) and `/api/engine/v1` (one build's engine, engine tokens), plus the probes and
 * the public webhook endpoint git hosts post to.
 * @module
 */
import { agentRoutes } from './routes-agent.js';
import { authRoutes } from './routes-auth.js';
import { buildRoutes } from './routes-builds.js';
import { clusterRoutes } from './routes-clusters.js';
import { engineRoutes } from './routes-engine.js';
import { gitIntegrationRoutes } from './routes-git-integrations.js';
import { identityRoutes } from './routes-identity.js';
import { projectRoutes } from './routes-projects.js';
import { runtimeRoutes } from './routes-runtimes.js';
import { sessionRoutes } from './routes-sessions.js';
import { settingsRoutes } from './routes-settings.js';
import { systemRoutes } from './routes-system.js';
import { triggerRoutes } from './routes-triggers.js';
import { userRoutes } from './routes-users.js';

export const routes = {
  ...identityRoutes,
  ...userRoutes,
  ...sessionRoutes,
  ...authRoutes,
  ...projectRoutes,
  ...buildRoutes,
  ...runtimeRoutes,
  ...systemRoutes,
  ...settingsRoutes,
  ...gitIntegrationRoutes,
  ...clusterRoutes,
  ...agentRoutes,
  ...engineRoutes,
  ...triggerRoutes,
};
export type Routes = typeof routes;
export type RouteName = keyof Routes;
