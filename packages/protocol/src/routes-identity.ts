/**
 * Routes of `/api/v1` for who calls: the account, the caller and their API tokens.
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import { Id } from './schemas/common.js';
import {
  Account,
  CreatedToken,
  CreateToken,
  ListTokens,
  Me,
  TokenInfo,
  UpdateAccount,
} from './schemas/identity.js';

const V1 = '/api/v1';

export const identityRoutes = {
  updateAccount: route({
    method: 'PATCH',
    path: `${V1}/account`,
    scope: 'admin',
    tag: 'identity',
    summary: "Change the account's settings (administrators)",
    body: UpdateAccount,
    response: Account,
  }),
  me: route({
    method: 'GET',
    path: `${V1}/me`,
    scope: 'viewer',
    tag: 'identity',
    summary: 'The caller: account and user',
    response: Me,
  }),
  listTokens: route({
    method: 'GET',
    path: `${V1}/tokens`,
    scope: 'viewer',
    tag: 'identity',
    summary: "The caller's API tokens, or another user's (administrators); never their values",
    query: ListTokens,
    response: z.object({ items: z.array(TokenInfo) }),
  }),
  createToken: route({
    method: 'POST',
    path: `${V1}/tokens`,
    scope: 'member',
    tag: 'identity',
    summary:
      'Create an API token, for the caller or (administrators) another user; its value is shown once',
    body: CreateToken,
    response: CreatedToken,
    status: 201,
  }),
  revokeToken: route({
    method: 'DELETE',
    path: `${V1}/tokens/:tokenId`,
    scope: 'member',
    tag: 'identity',
    summary: "Revoke one of the caller's tokens, or (administrators) any user token",
    params: z.object({ tokenId: Id }),
    status: 204,
  }),
};
