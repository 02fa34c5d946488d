/**
 * Routes of `/api/v1` for where builds run: runtime environments (versioned specs) and the
 * agents that serve them.
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import { Id, RuntimeName } from './schemas/common.js';
import {
  Agent,
  CreateAgent,
  CreatedAgent,
  CreateRuntimeEnvironment,
  PatchRuntimeEnvironment,
  RuntimeEnvironment,
  UpdateAgent,
} from './schemas/agents.js';
import { BODY_LIMITS } from './schemas/limits.js';

const V1 = '/api/v1';
const RuntimeParams = z.object({ name: RuntimeName });

export const runtimeRoutes = {
  listRuntimeEnvironments: route({
    method: 'GET',
    path: `${V1}/runtime-environments`,
    scope: 'member',
    tag: 'runtime-environments',
    summary: 'Latest version of each runtime environment',
    response: z.object({ items: z.array(RuntimeEnvironment) }),
  }),
  createRuntimeEnvironment: route({
    method: 'POST',
    path: `${V1}/runtime-environments`,
    scope: 'admin',
    tag: 'runtime-environments',
    summary: 'Create a runtime environment (version 1); 422 names each bad field',
    body: CreateRuntimeEnvironment,
    bodyLimit: BODY_LIMITS.runtimeSpec,
    response: RuntimeEnvironment,
    status: 201,
  }),
  getRuntimeEnvironment: route({
    method: 'GET',
    path: `${V1}/runtime-environments/:name`,
    scope: 'member',
    tag: 'runtime-environments',
    summary: 'A runtime environment; ?extend=true merges its parents',
    params: RuntimeParams,
    query: z.object({
      version: z.coerce.number().int().optional(),
      extend: z.enum(['true', 'false']).optional(),
    }),
    response: RuntimeEnvironment,
  }),
  patchRuntimeEnvironment: route({
    method: 'PATCH',
    path: `${V1}/runtime-environments/:name`,
    scope: 'admin',
    tag: 'runtime-environments',
    summary: 'Apply a merge patch: a new version',
    params: RuntimeParams,
    body: PatchRuntimeEnvironment,
    bodyLimit: BODY_LIMITS.runtimeSpec,
    response: RuntimeEnvironment,
  }),
  runtimeEnvironmentHistory: route({
    method: 'GET',
    path: `${V1}/runtime-environments/:name/history`,
    scope: 'member',
    tag: 'runtime-environments',
    summary: 'Every version, newest first',
    params: RuntimeParams,
    response: z.object({ items: z.array(RuntimeEnvironment) }),
  }),
  setDefaultRuntimeEnvironment: route({
    method: 'PUT',
    path: `${V1}/runtime-environments/:name/default`,
    scope: 'admin',
    tag: 'runtime-environments',
    summary: "Make it the account's default",
    params: RuntimeParams,
    response: RuntimeEnvironment,
  }),
  deleteRuntimeEnvironment: route({
    method: 'DELETE',
    path: `${V1}/runtime-environments/:name`,
    scope: 'admin',
    tag: 'runtime-environments',
    summary: 'Delete every version',
    params: RuntimeParams,
    status: 204,
  }),
  listAgents: route({
    method: 'GET',
    path: `${V1}/agents`,
    scope: 'member',
    tag: 'agents',
    summary: 'Agents with online state and health',
    response: z.object({ items: z.array(Agent) }),
  }),
  createAgent: route({
    method: 'POST',
    path: `${V1}/agents`,
    scope: 'admin',
    tag: 'agents',
    summary: 'Create an agent for some runtimes; its token is shown once',
    body: CreateAgent,
    response: CreatedAgent,
    status: 201,
  }),
  updateAgent: route({
    method: 'PATCH',
    path: `${V1}/agents/:agentId`,
    scope: 'admin',
    tag: 'agents',
    summary: 'Replace the runtimes an agent serves; its token keeps working',
    params: z.object({ agentId: Id }),
    body: UpdateAgent,
    response: Agent,
  }),
  deleteAgent: route({
    method: 'DELETE',
    path: `${V1}/agents/:agentId`,
    scope: 'admin',
    tag: 'agents',
    summary: 'Delete an agent and revoke its token',
    params: z.object({ agentId: Id }),
    status: 204,
  }),
};
