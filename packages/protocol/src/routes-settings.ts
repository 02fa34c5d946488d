/**
 * Routes of `/api/v1` for account settings the engine uses: Docker registries and step types.
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import {
  PutRegistry,
  PutStepType,
  Registry,
  RegistryName,
  StepType,
  StepTypeName,
  StepTypeVersion,
} from './schemas/settings.js';
import { BODY_LIMITS } from './schemas/limits.js';

const V1 = '/api/v1';
const RegistryParams = z.object({ name: RegistryName });

export const settingsRoutes = {
  listRegistries: route({
    method: 'GET',
    path: `${V1}/registries`,
    scope: 'member',
    tag: 'registries',
    summary: "The account's Docker registries (never their passwords)",
    response: z.object({ items: z.array(Registry) }),
  }),
  putRegistry: route({
    method: 'PUT',
    path: `${V1}/registries/:name`,
    scope: 'admin',
    tag: 'registries',
    summary: 'Create or replace a registry; its password is encrypted at rest and never returned',
    params: RegistryParams,
    body: PutRegistry,
    response: Registry,
  }),
  deleteRegistry: route({
    method: 'DELETE',
    path: `${V1}/registries/:name`,
    scope: 'admin',
    tag: 'registries',
    summary: 'Delete a registry',
    params: RegistryParams,
    status: 204,
  }),
  listStepTypes: route({
    method: 'GET',
    path: `${V1}/step-types`,
    scope: 'viewer',
    tag: 'step-types',
    summary:
      "The account's step types, every version: its own and the built-in ones it has not replaced, each with its origin",
    response: z.object({ items: z.array(StepType) }),
  }),
  getStepType: route({
    method: 'GET',
    path: `${V1}/step-types/:name`,
    scope: 'viewer',
    tag: 'step-types',
    summary:
      "Every version of one step type (account/name URL-encoded): the account's own, else the built-in one; 404 when neither exists",
    params: z.object({ name: StepTypeName }),
    response: z.object({ items: z.array(StepType) }),
  }),
  putStepType: route({
    method: 'PUT',
    path: `${V1}/step-types`,
    scope: 'admin',
    tag: 'step-types',
    summary:
      'Register a step-type document (create or replace its name and version); 400 lists every problem with line:column',
    body: PutStepType,
    bodyLimit: BODY_LIMITS.stepType,
    response: StepType,
  }),
  deleteStepType: route({
    method: 'DELETE',
    path: `${V1}/step-types/:name/:version`,
    scope: 'admin',
    tag: 'step-types',
    summary: 'Delete one version of a step type',
    params: z.object({ name: StepTypeName, version: StepTypeVersion }),
    status: 204,
  }),
};
