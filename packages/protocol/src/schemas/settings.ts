/**
 * Account settings the engine needs: Docker registries (passwords encrypted at rest, never
 * returned) and step types (the documents typed steps expand from).
 * @module
 */
import { z } from 'zod';
import { Name, Timestamp } from './common.js';

export const RegistryName = Name.describe('What `registry:` in a build or push step names');

/** `host[:port]`, no scheme or path. */
export const RegistryDomain = z
  .string()
  .min(1)
  .max(253)
  .regex(
    /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:\d{1,5})?$/,
    'A registry domain is host[:port], without a scheme or path, e.g. registry.example.com:5000',
  );

export const Registry = z.object({
  name: RegistryName,
  domain: RegistryDomain,
  username: z.string().nullable(),
  hasPassword: z.boolean().describe('The password itself is never returned'),
  default: z.boolean().describe('Used by build and push steps that name no registry'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Registry = z.infer<typeof Registry>;

export const PutRegistry = z.object({
  domain: RegistryDomain,
  username: z.string().min(1).max(255).optional(),
  password: z
    .string()
    .min(1)
    .max(10_000)
    .optional()
    .describe('Stored encrypted; never returned or logged'),
  default: z.boolean().optional().describe("Make it the account's default registry"),
});

/** `account/name` (or a bare name) of a step type. */
export const StepTypeName = z
  .string()
  .min(1)
  .max(200)
  // As `STEP_TYPE_NAME` of @sluice/pipeline, which checks the documents themselves.
  .regex(
    /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)?$/,
    'A step type is account/name or name, in lower case',
  );

export const StepTypeVersion = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[0-9A-Za-z.+-]+$/, 'A step type version is semver, e.g. 1.0.0');

export const StepTypeOrigin = z
  .enum(['built-in', 'account'])
  .describe(
    'built-in: shipped by the control plane (step-types/); account: registered in the account, which replaces a built-in one of the same name',
  );
export type StepTypeOrigin = z.infer<typeof StepTypeOrigin>;

export const StepType = z.object({
  name: StepTypeName,
  version: StepTypeVersion,
  origin: StepTypeOrigin,
  description: z.string().nullable().describe("The document's metadata.description"),
  yaml: z.string().describe('The step-type document as registered or shipped'),
  createdAt: Timestamp.nullable().describe('When it was registered; null for a built-in one'),
  createdBy: z.string().nullable(),
});
export type StepType = z.infer<typeof StepType>;

export const PutStepType = z.object({
  yaml: z
    .string()
    .min(1)
    .max(1_000_000)
    .describe('A step-type document (`kind: step-type`); 400 lists its problems with line:column'),
});
