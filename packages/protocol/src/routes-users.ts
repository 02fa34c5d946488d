/**
 * Routes of `/api/v1` for the account's users (their roles and project grants) and the audit
 * log of what was done, by whom: administrators only.
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import { paged } from './schemas/common.js';
import {
  AuditEvent,
  CreateUser,
  ListAudit,
  UpdateUser,
  User,
  UserName,
} from './schemas/identity.js';

const V1 = '/api/v1';
const UserParams = z.object({ name: UserName });

export const userRoutes = {
  listUsers: route({
    method: 'GET',
    path: `${V1}/users`,
    scope: 'admin',
    tag: 'users',
    summary: "The account's users with their roles and project grants",
    response: z.object({ items: z.array(User) }),
  }),
  createUser: route({
    method: 'POST',
    path: `${V1}/users`,
    scope: 'admin',
    tag: 'users',
    summary: 'Add a user (a colleague, or a robot for automation) with a role',
    body: CreateUser,
    response: User,
    status: 201,
  }),
  updateUser: route({
    method: 'PATCH',
    path: `${V1}/users/:name`,
    scope: 'admin',
    tag: 'users',
    summary: "Change a user's role or project grants; their tokens follow at once",
    params: UserParams,
    body: UpdateUser,
    response: User,
  }),
  deleteUser: route({
    method: 'DELETE',
    path: `${V1}/users/:name`,
    scope: 'admin',
    tag: 'users',
    summary: 'Remove a user; their tokens stop working at once',
    params: UserParams,
    status: 204,
  }),
  listAudit: route({
    method: 'GET',
    path: `${V1}/audit`,
    scope: 'admin',
    tag: 'audit',
    summary: 'Who did what, newest first: every change, refusal and token event',
    query: ListAudit,
    response: paged(AuditEvent),
  }),
};
