/**
 * Routes of `/api/v1/git-integrations`: the account's git credentials (tokens and SSH keys
 * write-only).
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import {
  CreateGitIntegration,
  GitIntegration,
  GitIntegrationName,
  UpdateGitIntegration,
} from './schemas/git-integrations.js';

const V1 = '/api/v1';
const Params = z.object({ name: GitIntegrationName });
const TAG = 'git-integrations';

export const gitIntegrationRoutes = {
  listGitIntegrations: route({
    method: 'GET',
    path: `${V1}/git-integrations`,
    scope: 'member',
    tag: TAG,
    summary: "The account's git integrations (never their tokens or keys)",
    response: z.object({ items: z.array(GitIntegration) }),
  }),
  createGitIntegration: route({
    method: 'POST',
    path: `${V1}/git-integrations`,
    scope: 'admin',
    tag: TAG,
    summary:
      'Create a git integration; its token or SSH key is encrypted at rest and never returned; 409 SLUICE_GIT_INTEGRATION_EXISTS when the name is taken',
    body: CreateGitIntegration,
    response: GitIntegration,
    status: 201,
  }),
  getGitIntegration: route({
    method: 'GET',
    path: `${V1}/git-integrations/:name`,
    scope: 'member',
    tag: TAG,
    summary: 'One git integration (never its token or key)',
    params: Params,
    response: GitIntegration,
  }),
  updateGitIntegration: route({
    method: 'PATCH',
    path: `${V1}/git-integrations/:name`,
    scope: 'admin',
    tag: TAG,
    summary:
      'Change a git integration: absent fields are kept, a new token or key replaces the old',
    params: Params,
    body: UpdateGitIntegration,
    response: GitIntegration,
  }),
  deleteGitIntegration: route({
    method: 'DELETE',
    path: `${V1}/git-integrations/:name`,
    scope: 'admin',
    tag: TAG,
    summary: 'Delete a git integration',
    params: Params,
    status: 204,
  }),
};
