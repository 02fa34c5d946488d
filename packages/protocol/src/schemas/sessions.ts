/**
 * Signing in to the web UI: a session started by a password or by an API token exchanged once,
 * what the UI learns of its session (its CSRF token), and the ways of signing in offered.
 * @module
 */
import { z } from 'zod';
import { Role } from './identity.js';
import { Timestamp } from './common.js';

export const SignIn = z
  .object({
    user: z.string().min(1).max(100).optional().describe('With `password`: the user name'),
    password: z.string().min(1).max(1024).optional(),
    token: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Instead of a user name and password: an API token, exchanged for a session'),
  })
  .describe('A user name and password, or an API token');

export const SessionInfo = z.object({
  user: z.object({ name: z.string(), role: Role }),
  csrfToken: z
    .string()
    .nullable()
    .describe(
      'Send as X-Sluice-CSRF with every change made with the session cookie; null when the caller used a token',
    ),
  expiresAt: Timestamp.nullable().describe("The session's absolute end; null for a token"),
  idleMinutes: z.number().int().nullable().describe('The session ends after this long unused'),
});
export type SessionInfo = z.infer<typeof SessionInfo>;

export const AuthProviders = z.object({
  password: z.boolean().describe('Whether users may sign in with a user name and password'),
  oidc: z
    .object({
      label: z.string().describe('What the sign-in button says'),
      startPath: z.string().describe('Where the button goes to start single sign-on'),
    })
    .nullable()
    .describe('Single sign-on (OpenID Connect), when configured'),
});
export type AuthProviders = z.infer<typeof AuthProviders>;
