/**
 * `sluice auth login`'s trade of a one-time code for an API token.
 * @module
 */
import { z } from 'zod';
import { TokenInfo, TokenScope } from './identity.js';

export const CLI_LOGIN_DEFAULT_EXPIRY_SECONDS = 30 * 86_400;

export const CliLoginToken = z.object({
  code: z.string().min(20).max(100).describe('The one-time code the loopback redirect brought'),
  codeVerifier: z
    .string()
    .regex(/^[A-Za-z0-9._~-]{43,128}$/, 'A PKCE verifier: 43 to 128 of A-Z a-z 0-9 . _ ~ -')
    .describe('The PKCE verifier of the challenge the login started with'),
  name: z.string().min(1).max(100).describe("The token's name: the CLI's host and the time"),
  scope: TokenScope.optional().describe("Default: the user's role"),
  expiresInSeconds: z
    .number()
    .int()
    .min(60)
    .max(365 * 86_400)
    .default(CLI_LOGIN_DEFAULT_EXPIRY_SECONDS)
    .describe('Default: 30 days'),
});

export const CliLoginTokenResult = z.object({
  token: z.string().describe('Shown once; only its hash is stored'),
  info: TokenInfo,
});
