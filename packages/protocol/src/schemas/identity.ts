/**
 * Tokens, users and their roles, the caller's identity and the audit log.
 * @module
 */
import { z } from 'zod';
import { ROLES, TOKEN_SCOPES } from '../access.js';
import { Id, Name, Page, Timestamp } from './common.js';

export const Role = z
  .enum(ROLES)
  .describe('viewer: reads; member: runs builds and edits pipelines; admin: everything');
export type Role = z.infer<typeof Role>;
export const TokenScope = z
  .enum(TOKEN_SCOPES)
  .describe("The most of its user's rights a token carries: read (viewer), run (member), admin");
export type TokenScope = z.infer<typeof TokenScope>;

/** A user's name: lowercase, and room for an e-mail address (what single sign-on will give). */
export const UserName = z
  .string()
  .min(1)
  .max(100)
  .regex(
    /^[a-z0-9]([a-z0-9._@+-]*[a-z0-9])?$/,
    'Use lowercase letters, digits, ".", "_", "@", "+" and "-", starting and ending with a letter or digit',
  );

export const ProjectGrants = z
  .array(Name)
  .max(1000)
  .nullable()
  .describe('The projects a member or viewer may use, by name; null: every project');

export const TokenKind = z.enum(['user', 'agent', 'engine']);
export type TokenKind = z.infer<typeof TokenKind>;

export const TokenInfo = z.object({
  id: Id,
  name: z.string(),
  kind: TokenKind,
  prefix: z.string().describe('The first characters, to recognise a token without revealing it'),
  createdAt: Timestamp,
  lastUsedAt: Timestamp.nullable(),
  expiresAt: Timestamp.nullable(),
  revokedAt: Timestamp.nullable(),
  scope: TokenScope.nullable().describe("A user token's scope; null for agent and engine tokens"),
  user: z.string().nullable().describe("A user token's user; null for agent and engine tokens"),
});
export type TokenInfo = z.infer<typeof TokenInfo>;

export const CreateToken = z.object({
  name: z.string().min(1).max(100),
  scope: TokenScope.optional().describe("Default: the user's role (viewer read, member run)"),
  expiresInSeconds: z
    .number()
    .int()
    .min(60)
    .max(3650 * 86_400)
    .optional()
    .describe('Default: never expires'),
  user: UserName.optional().describe('Another user (administrators): a colleague or a robot'),
});

export const ListTokens = z.object({
  user: UserName.optional().describe("Another user's tokens (administrators)"),
});

export const CreatedToken = z.object({
  token: z.string().describe('Shown once; only its hash is stored'),
  info: TokenInfo,
});

export const Account = z.object({
  id: Id,
  name: Name,
  defaultRuntime: z.string().nullable(),
  maxConcurrentBuilds: z
    .number()
    .int()
    .nullable()
    .describe('Builds running at once across the account; null: no limit'),
});

export const UpdateAccount = z.object({
  maxConcurrentBuilds: z.number().int().min(1).max(10_000).nullable(),
});

export const Me = z.object({
  account: z.object({ id: Id, name: Name }),
  user: z.object({
    id: Id,
    name: z.string(),
    isAdmin: z.boolean(),
    role: Role,
    projects: ProjectGrants,
  }),
  token: z.object({
    id: Id,
    scope: TokenScope,
    role: Role.describe("What this token acts as: the user's role narrowed by its scope"),
  }),
});

export const User = z.object({
  id: Id,
  name: z.string(),
  role: Role,
  projects: ProjectGrants,
  hasPassword: z.boolean().describe('Whether the user may sign in to the web UI with a password'),
  createdAt: Timestamp,
});
export type User = z.infer<typeof User>;

export const Password = z
  .string()
  .min(8, 'Use at least 8 characters')
  .max(1024)
  .describe('A password to sign in to the web UI with; stored as a scrypt hash, never returned');

export const CreateUser = z.object({
  name: UserName,
  role: Role,
  projects: ProjectGrants.optional(),
  password: Password.optional(),
});

export const UpdateUser = z.object({
  role: Role.optional(),
  projects: ProjectGrants.optional(),
  password: Password.nullable().optional().describe('A new password; null removes it'),
});

export const AuditOutcome = z.enum(['succeeded', 'denied', 'failed']);

export const AuditEvent = z.object({
  id: Id,
  at: Timestamp,
  actor: z.object({
    user: z.string().nullable().describe("The user's name when it happened; null: the server"),
    userId: Id.nullable(),
    tokenId: Id.nullable().describe('The token used (its id, never its value)'),
  }),
  action: z.string().describe('The route name (createPipeline, ...) or a token event'),
  target: z.string().describe('What it was done to: the request path, or the token'),
  source: z.string().nullable().describe("The client's address"),
  outcome: AuditOutcome,
  status: z.number().int().nullable().describe('The HTTP status answered'),
  details: z
    .record(z.string(), z.union([z.string(), z.array(z.string()), z.null()]))
    .describe('Names and roles from the request; never a value, a secret or a token'),
});
export type AuditEvent = z.infer<typeof AuditEvent>;

export const ListAudit = Page.extend({
  since: z.iso.datetime({ offset: true }).optional().describe('Only events at or after'),
  user: UserName.optional().describe("Only this user's events"),
});
