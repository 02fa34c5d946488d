/**
 * GitHub webhook payloads (`X-GitHub-Event`: `push`, `pull_request`, `ping`) read into the
 * neutral push and pull-request shapes. Gitea copies GitHub's commit and pull-request objects,
 * so its reader uses `headCommit` and `githubStylePullRequest` from here.
 * @module
 */
import { PayloadReader } from './payload-reader.js';
import { pingEvent, pullRequestEvent, pushEvent, unknownEvent } from './webhook-event.js';
import type { CommitInfo, RepoInfo, WebhookEvent } from './webhook-event.js';

/** How a host names the user object at `path`: GitHub by `login`, Gitea also by `username`. */
export type UserReader = (payload: PayloadReader, path: string) => string | undefined;

export function parseGitHubEvent(event: string, body: unknown): WebhookEvent {
  const payload = PayloadReader.of(body, `GitHub ${event}`);
  switch (event) {
    case 'push':
      return githubPush(event, payload);
    case 'pull_request':
      return githubStylePullRequest(event, payload, repo, githubUser);
    case 'ping':
      return pingEvent(event, optionalRepo(payload));
    default:
      return unknownEvent(event, 'GitHub', optionalRepo(payload));
  }
}

function githubPush(event: string, payload: PayloadReader): WebhookEvent {
  const head = payload.optionalObject('head_commit');
  const commit = head && headCommit(head);
  return pushEvent(event, {
    ref: payload.string('ref'),
    after: payload.string('after'),
    deleted: payload.optionalBoolean('deleted'),
    commit,
    repo: repo(payload),
    initiator: payload.optionalString('sender.login') ?? payload.optionalString('pusher.name'),
  });
}

/** A commit object of a push (`head_commit`, an entry of `commits`) as GitHub and Gitea send it. */
export function headCommit(head: PayloadReader): CommitInfo {
  return {
    sha: head.string('id'),
    message: head.optionalString('message'),
    author: head.optionalString('author.username') ?? head.optionalString('author.name'),
    url: head.optionalString('url'),
  };
}

/** A `pull_request` event as GitHub sends it and Gitea copies it; the hosts differ in users. */
export function githubStylePullRequest(
  event: string,
  payload: PayloadReader,
  readRepo: (payload: PayloadReader) => RepoInfo,
  user: UserReader,
): WebhookEvent {
  const headSha = payload.string('pull_request.head.sha');
  const repoUrl = payload.optionalString('repository.html_url');
  return pullRequestEvent(event, {
    action: payload.string('action'),
    id: payload.id('pull_request.id'),
    number: payload.id('pull_request.number'),
    title: payload.string('pull_request.title'),
    headBranch: payload.string('pull_request.head.ref'),
    headSha,
    targetBranch: payload.string('pull_request.base.ref'),
    merged: payload.optionalBoolean('pull_request.merged') ?? false,
    mergedSha: payload.optionalString('pull_request.merge_commit_sha'),
    labels: payload.optionalList('pull_request.labels').map((label) => label.string('name')),
    repo: readRepo(payload),
    author: user(payload, 'pull_request.user'),
    commitUrl: repoUrl === undefined ? undefined : `${repoUrl}/commit/${headSha}`,
    initiator: user(payload, 'sender'),
  });
}

function githubUser(payload: PayloadReader, path: string): string | undefined {
  return payload.optionalString(`${path}.login`);
}

function repo(payload: PayloadReader): RepoInfo {
  return {
    owner: payload.string('repository.owner.login'),
    name: payload.string('repository.name'),
  };
}

/** Organization-level hooks ping without a repository. */
function optionalRepo(payload: PayloadReader): RepoInfo | undefined {
  return payload.has('repository') ? repo(payload) : undefined;
}
