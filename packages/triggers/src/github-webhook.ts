/**
 * GitHub webhook payloads (`X-GitHub-Event`: `push`, `pull_request`, `ping`) read into the
 * neutral push and pull-request shapes.
 * @module
 */
import { PayloadReader } from './payload-reader.js';
import { pingEvent, pullRequestEvent, pushEvent, unknownEvent } from './webhook-event.js';
import type { CommitInfo, RepoInfo, WebhookEvent } from './webhook-event.js';

export function parseGitHubEvent(event: string, body: unknown): WebhookEvent {
  const payload = PayloadReader.of(body, `GitHub ${event}`);
  switch (event) {
    case 'push':
      return githubPush(event, payload);
    case 'pull_request':
      return githubPullRequest(event, payload);
    case 'ping':
      return pingEvent(event, optionalRepo(payload));
    default:
      return unknownEvent(event, 'GitHub', optionalRepo(payload));
  }
}

function githubPush(event: string, payload: PayloadReader): WebhookEvent {
  const head = payload.optionalObject('head_commit');
  const commit: CommitInfo | undefined = head && {
    sha: head.string('id'),
    message: head.optionalString('message'),
    author: head.optionalString('author.username') ?? head.optionalString('author.name'),
    url: head.optionalString('url'),
  };
  return pushEvent(event, {
    ref: payload.string('ref'),
    after: payload.string('after'),
    deleted: payload.optionalBoolean('deleted'),
    commit,
    repo: repo(payload),
    initiator: payload.optionalString('sender.login') ?? payload.optionalString('pusher.name'),
  });
}

function githubPullRequest(event: string, payload: PayloadReader): WebhookEvent {
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
    repo: repo(payload),
    author: payload.optionalString('pull_request.user.login'),
    commitUrl: repoUrl === undefined ? undefined : `${repoUrl}/commit/${headSha}`,
    initiator: payload.optionalString('sender.login'),
  });
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
