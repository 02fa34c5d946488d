/**
 * HTTP headers as Node's `IncomingHttpHeaders` or a plain object give them, read
 * case-insensitively, and the header each provider names its event in.
 * @module
 */

/** The git hosts whose webhooks Sluice understands. */
export type GitProvider = 'github' | 'gitlab' | 'gitea';

/** Node's `req.headers` fits; so does any object of header name to value. */
export type WebhookHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Human names for messages. */
export const PROVIDER_NAMES: Readonly<Record<GitProvider, string>> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  gitea: 'Gitea',
};

export const EVENT_HEADERS: Readonly<Record<GitProvider, string>> = {
  github: 'X-GitHub-Event',
  gitlab: 'X-Gitlab-Event',
  gitea: 'X-Gitea-Event',
};

/** The header's value, the first one if it was sent twice; undefined when absent or empty. */
export function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    const first = typeof value === 'string' ? value : value[0];
    if (first !== undefined && first.trim() !== '') return first.trim();
  }
  return undefined;
}
