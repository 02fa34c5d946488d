/**
 * Every route of the three APIs: `/api/v1` (people and the CLI, user tokens), `/api/agent/v1`
 * (runner agents, agent tokens) and `/api/engine/v1` (one build's engine, engine tokens).
 * @module
 */
import { runnerRoutes } from './routes-runner.js';
import { userRoutes } from './routes-user.js';

export const routes = { ...userRoutes, ...runnerRoutes };
export type Routes = typeof routes;
export type RouteName = keyof Routes;
