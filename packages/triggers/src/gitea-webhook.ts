/**
 * Gitea webhook payloads (`X-Gitea-Event`: `push`, `pull_request`) read into the neutral push
 * and pull-request shapes. Gitea's payloads follow GitHub's closely; the differences are the
 * user objects (`login` and `username`) and PR actions such as `synchronized`.
 * @module
 */
import { PayloadReader } from './payload-reader.js';
import { pullRequestEvent, pushEvent, unknownEvent } from './webhook-event.js';
import type { CommitInfo, RepoInfo, WebhookEvent } from './webhook-event.js';

export function parseGiteaEvent(event: string, body: unknown): WebhookEvent {
  const payload = PayloadReader.of(body, `Gitea ${event}`);
  switch (event) {
    case 'push':
      return giteaPush(event, payload);
    case 'pull_request':
      return giteaPullRequest(event, payload);
    default:
      return unknownEvent(event, 'Gitea', payload.has('repository') ? repo(payload) : undefined);
  }
}

function giteaPush(event: string, payload: PayloadReader): WebhookEvent {
  const after = payload.string('after');
  // Older Gitea versions send no head_commit; the commit list then holds the new tip.
  const head =
    payload.optionalObject('head_commit') ??
    payload.optionalList('commits').find((c) => c.string('id') === after);
  const commit: CommitInfo | undefined = head && {
    sha: head.string('id'),
    message: head.optionalString('message'),
    author: head.optionalString('author.username') ?? head.optionalString('author.name'),
    url: head.optionalString('url'),
  };
  return pushEvent(event, {
    ref: payload.string('ref'),
    after,
    commit,
    repo: repo(payload),
    initiator: user(payload, 'sender') ?? user(payload, 'pusher'),
  });
}

function giteaPullRequest(event: string, payload: PayloadReader): WebhookEvent {
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
    author: user(payload, 'pull_request.user'),
    commitUrl: repoUrl === undefined ? undefined : `${repoUrl}/commit/${headSha}`,
    initiator: user(payload, 'sender'),
  });
}

function repo(payload: PayloadReader): RepoInfo {
  const owner = user(payload, 'repository.owner');
  return {
    owner: owner ?? payload.string('repository.owner.login'),
    name: payload.string('repository.name'),
  };
}

function user(payload: PayloadReader, path: string): string | undefined {
  return payload.optionalString(`${path}.login`) ?? payload.optionalString(`${path}.username`);
}
