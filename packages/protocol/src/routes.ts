/**
 * Every route of the three APIs: `/api/v1` (people and the CLI, user tokens), `/api/agent/v1`
 * (runner agents, agent tokens) and `/api/engine/v1` (one build's engine, engine tokens), plus
 * account settings (registries, step types), triggers and the public webhook endpoint git hosts
 * post to.
 * @module
 */
import { runnerRoutes } from './routes-runner.js';
import { settingsRoutes } from './routes-settings.js';
import { systemRoutes } from './routes-system.js';
import { triggerRoutes } from './routes-triggers.js';
import { userRoutes } from './routes-user.js';

export const routes = {
  ...userRoutes,
  ...systemRoutes,
  ...settingsRoutes,
  ...runnerRoutes,
  ...triggerRoutes,
};
export type Routes = typeof routes;
export type RouteName = keyof Routes;
