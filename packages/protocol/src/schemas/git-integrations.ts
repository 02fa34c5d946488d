/**
 * Git integrations: named credentials (a token, with an optional username, or an SSH private
 * key) for a git host. `git-clone` steps and git triggers name them (`git: NAME`). The secret
 * parts are write-only: accepted on create and update, stored encrypted, never returned; only a
 * build's engine gets them, decrypted, and masks them.
 * @module
 */
import { z } from 'zod';
import { Name, Timestamp } from './common.js';

export const GitIntegrationName = Name.describe(
  'What `git:` in a git-clone step or a trigger names',
);

/** Codefresh's git providers, and plain git (any host, no provider API). */
export const GitIntegrationKind = z.enum(['github', 'gitlab', 'bitbucket', 'gitea', 'git']);
export type GitIntegrationKind = z.infer<typeof GitIntegrationKind>;

/** Where the host is: `https://host[:port][/prefix]`, no credentials, query or fragment. */
export const GitHostUrl = z
  .string()
  .max(2048)
  .regex(
    /^(https?|ssh):\/\/[^\s/@?#]+(\/[^\s?#@]*)?$/,
    'A git host URL is scheme://host[:port][/path], without credentials, e.g. https://gitea.example.com',
  );

export const GitIntegration = z.object({
  name: GitIntegrationName,
  kind: GitIntegrationKind,
  url: z
    .string()
    .describe(
      "The host's URL: `repo: owner/name` in a git-clone step is cloned from it (github.com, gitlab.com, bitbucket.org by default)",
    ),
  username: z.string().nullable(),
  auth: z.enum(['token', 'ssh-key']).describe('What secret it holds; the secret is never returned'),
  default: z.boolean().describe("The account's default git integration"),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type GitIntegration = z.infer<typeof GitIntegration>;

const Username = z.string().min(1).max(255);
const Token = z
  .string()
  .min(1)
  .max(10_000)
  .describe('A token or password; stored encrypted, never returned or logged');
const SshKey = z
  .string()
  .min(1)
  .max(20_000)
  .regex(
    /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
    'An SSH private key is a PEM block (-----BEGIN … PRIVATE KEY-----)',
  )
  .describe('An SSH private key (PEM); stored encrypted, never returned or logged');

export const CreateGitIntegration = z
  .object({
    name: GitIntegrationName,
    kind: GitIntegrationKind,
    url: GitHostUrl.optional().describe(
      "Required for gitea and git; the provider's host otherwise",
    ),
    username: Username.optional(),
    token: Token.optional(),
    sshKey: SshKey.optional(),
    default: z.boolean().optional().describe("Make it the account's default git integration"),
  })
  .superRefine((value, ctx) => {
    if ((value.token === undefined) === (value.sshKey === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['token'],
        message: 'Give exactly one of token and sshKey',
      });
    if (value.url === undefined && (value.kind === 'gitea' || value.kind === 'git'))
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: `A ${value.kind} integration needs url, the host's address (e.g. https://git.example.com)`,
      });
  });
export type CreateGitIntegration = z.infer<typeof CreateGitIntegration>;

/** Fields absent are kept; a new token or sshKey replaces the secret (and the other one). */
export const UpdateGitIntegration = z
  .object({
    url: GitHostUrl.optional(),
    username: Username.nullable().optional(),
    token: Token.optional(),
    sshKey: SshKey.optional(),
    default: z.boolean().optional(),
  })
  .refine((value) => value.token === undefined || value.sshKey === undefined, {
    path: ['token'],
    message: 'Give at most one of token and sshKey',
  });
export type UpdateGitIntegration = z.infer<typeof UpdateGitIntegration>;

/** A git integration as a build's engine uses it: the secret decrypted, to mask. */
export const EngineGitIntegration = z.object({
  name: z.string(),
  kind: GitIntegrationKind,
  url: z.string(),
  username: z.string().optional(),
  token: z.string().optional(),
  sshKey: z.string().optional(),
  default: z.boolean().optional(),
});
export type EngineGitIntegration = z.infer<typeof EngineGitIntegration>;
