/**
 * Tokens and the caller's identity.
 * @module
 */
import { z } from 'zod';
import { Id, Name, Timestamp } from './common.js';

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
});
export type TokenInfo = z.infer<typeof TokenInfo>;

export const CreateToken = z.object({
  name: z.string().min(1).max(100),
  expiresInDays: z.number().int().min(1).max(3650).optional(),
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
  user: z.object({ id: Id, name: z.string(), isAdmin: z.boolean() }),
});
