/**
 * How each git host takes a commit status, as its documented API has it: GitHub (and GitHub
 * Enterprise) `POST /repos/{owner}/{repo}/statuses/{sha}`, GitLab `POST
 * /projects/{id}/statuses/{sha}`, Gitea and Forgejo `POST /repos/{owner}/{repo}/statuses/{sha}`,
 * Bitbucket Cloud `POST /repositories/{workspace}/{repo}/commit/{sha}/statuses/build`, Bitbucket
 * Server and Data Center (a bitbucket integration at another URL than bitbucket.org) `POST
 * /rest/build-status/1.0/commits/{sha}`. Each host has its own words for a build's states.
 * Pure: the request, not the sending.
 * @module
 */
import { createHash } from 'node:crypto';
import type { GitIntegrationKind } from '@sluice/protocol';

/** A build's state as reported on its commit. */
export type CommitState = 'pending' | 'running' | 'success' | 'failure' | 'error' | 'cancelled';

export interface StatusTarget {
  kind: GitIntegrationKind;
  /** The integration's URL (its web address); null: the host's public service. */
  url: string | null;
  username: string | null;
  token: string;
  /** `owner/name`. */
  repo: string;
  sha: string;
  context: string;
  /** The build's page. */
  targetUrl: string;
  description: string;
}

export interface StatusRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const GITHUB: Record<CommitState, string> = {
  pending: 'pending',
  running: 'pending',
  success: 'success',
  failure: 'failure',
  error: 'error',
  cancelled: 'error',
};
const GITLAB: Record<CommitState, string> = {
  pending: 'pending',
  running: 'running',
  success: 'success',
  failure: 'failed',
  error: 'failed',
  cancelled: 'canceled',
};
const BITBUCKET: Record<CommitState, string> = {
  pending: 'INPROGRESS',
  running: 'INPROGRESS',
  success: 'SUCCESSFUL',
  failure: 'FAILED',
  error: 'FAILED',
  cancelled: 'STOPPED',
};

/** The hosts that take commit statuses; a plain `git` server has no such API. */
export function reportsStatuses(kind: GitIntegrationKind): boolean {
  return kind !== 'git';
}

/** The host's request for `state`; undefined for a host without a status API. */
export function statusRequest(target: StatusTarget, state: CommitState): StatusRequest | undefined {
  const json = { 'content-type': 'application/json', 'user-agent': 'sluice' };
  const base = (target.url ?? '').replace(/\/+$/, '');
  const description = target.description.slice(0, 140);
  switch (target.kind) {
    case 'github': {
      const api =
        base === '' || /^https?:\/\/(www\.)?github\.com$/.test(base)
          ? 'https://api.github.com'
          : `${base}/api/v3`;
      return {
        url: `${api}/repos/${target.repo}/statuses/${target.sha}`,
        headers: {
          ...json,
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${target.token}`,
        },
        body: JSON.stringify({
          state: GITHUB[state],
          target_url: target.targetUrl,
          description,
          context: target.context,
        }),
      };
    }
    case 'gitlab':
      return {
        url: `${base || 'https://gitlab.com'}/api/v4/projects/${encodeURIComponent(target.repo)}/statuses/${target.sha}`,
        headers: { ...json, 'private-token': target.token },
        body: JSON.stringify({
          state: GITLAB[state],
          name: target.context,
          target_url: target.targetUrl,
          description,
        }),
      };
    case 'gitea':
      if (base === '') return undefined;
      return {
        url: `${base}/api/v1/repos/${target.repo}/statuses/${target.sha}`,
        headers: { ...json, authorization: `token ${target.token}` },
        body: JSON.stringify({
          state: GITHUB[state],
          target_url: target.targetUrl,
          description,
          context: target.context,
        }),
      };
    case 'bitbucket': {
      const cloud = base === '' || /^https?:\/\/(www\.)?bitbucket\.org$/.test(base);
      const auth =
        target.username === null
          ? `Bearer ${target.token}`
          : `Basic ${Buffer.from(`${target.username}:${target.token}`).toString('base64')}`;
      // Bitbucket's key is at most 40 characters: a long context is named by its hash.
      const key =
        target.context.length <= 40
          ? target.context
          : createHash('sha256').update(target.context).digest('hex').slice(0, 40);
      return {
        url: cloud
          ? `https://api.bitbucket.org/2.0/repositories/${target.repo}/commit/${target.sha}/statuses/build`
          : `${base}/rest/build-status/1.0/commits/${target.sha}`,
        headers: { ...json, authorization: auth },
        body: JSON.stringify({
          key,
          // Server has no STOPPED before 7.x's newer releases; a cancelled build failed there.
          state: cloud || state !== 'cancelled' ? BITBUCKET[state] : 'FAILED',
          name: target.context,
          url: target.targetUrl,
          description,
        }),
      };
    }
    case 'git':
      return undefined;
  }
}
