/**
 * Links to a git host's web pages: a file at a commit, for the hosts whose page layout is known
 * (GitHub and GitHub Enterprise, GitLab, Gitea and Forgejo, Bitbucket Cloud). A plain `git`
 * server has no such pages.
 * @module
 */
import type { GitIntegrationKind } from '@sluice/protocol';

/** Where `repo: owner/name` is, when the integration names no URL. */
export const PROVIDER_URLS: Partial<Record<GitIntegrationKind, string>> = {
  github: 'https://github.com',
  gitlab: 'https://gitlab.com',
  bitbucket: 'https://bitbucket.org',
};

/**
 * The page of `path` at `sha` in `repo` (`owner/name` on the integration's host, or an https
 * clone URL), or null when the host's pages are not known.
 */
export function fileLink(
  host: { kind: GitIntegrationKind; url: string | null },
  repo: string,
  sha: string,
  path: string,
): string | null {
  const clone = /^https?:\/\/([^/@\s]+)\/(.+?)(?:\.git)?\/?$/.exec(repo);
  const base = clone
    ? new URL(repo).origin
    : (host.url ?? '').replace(/\/+$/, '') || PROVIDER_URLS[host.kind];
  const name = clone ? clone[2] : repo;
  if (base === undefined || name === undefined || !/^[\w.-]+(\/[\w.-]+)+$/.test(name)) return null;
  const file = path.split('/').map(encodeURIComponent).join('/');
  const commit = encodeURIComponent(sha);
  switch (host.kind) {
    case 'github':
      return `${base}/${name}/blob/${commit}/${file}`;
    case 'gitlab':
      return `${base}/${name}/-/blob/${commit}/${file}`;
    case 'gitea':
      return `${base}/${name}/src/commit/${commit}/${file}`;
    case 'bitbucket':
      return `${base}/${name}/src/${commit}/${file}`;
    case 'git':
      return null;
  }
}
