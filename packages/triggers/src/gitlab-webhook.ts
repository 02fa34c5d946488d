/**
 * GitLab webhook payloads (`X-Gitlab-Event`: `Push Hook`, `Tag Push Hook`,
 * `Merge Request Hook`) read into the neutral push and pull-request shapes. A project in a
 * subgroup has owner `group/subgroup`.
 * @module
 */
import { InputError } from '@sluice/errors';
import { PayloadReader, WEBHOOK_PAYLOAD_INVALID } from './payload-reader.js';
import { pullRequestEvent, pushEvent, splitFullName, unknownEvent } from './webhook-event.js';
import type { CommitInfo, RepoInfo, WebhookEvent } from './webhook-event.js';

export function parseGitLabEvent(event: string, body: unknown): WebhookEvent {
  const payload = PayloadReader.of(body, `GitLab ${event}`);
  switch (event) {
    case 'Push Hook':
    case 'Tag Push Hook':
      return gitlabPush(event, payload);
    case 'Merge Request Hook':
      return gitlabMergeRequest(event, payload);
    default:
      return unknownEvent(event, 'GitLab', payload.has('project') ? repo(payload) : undefined);
  }
}

function gitlabPush(event: string, payload: PayloadReader): WebhookEvent {
  // For an annotated tag `after` is the tag object; checkout_sha is the commit it points at.
  const sha = payload.optionalString('checkout_sha') ?? payload.string('after');
  const head = payload.optionalList('commits').find((c) => c.string('id') === sha);
  const commit: CommitInfo = {
    sha,
    message: head?.optionalString('message'),
    author: head?.optionalString('author.name'),
    url: head?.optionalString('url'),
  };
  return pushEvent(event, {
    ref: payload.string('ref'),
    after: payload.string('after'),
    commit,
    repo: repo(payload),
    initiator: payload.optionalString('user_username') ?? payload.optionalString('user_name'),
  });
}

function gitlabMergeRequest(event: string, payload: PayloadReader): WebhookEvent {
  const state = payload.string('object_attributes.state');
  const labels = payload.has('labels')
    ? payload.optionalList('labels')
    : payload.optionalList('object_attributes.labels');
  return pullRequestEvent(event, {
    action: payload.optionalString('object_attributes.action') ?? state,
    id: payload.id('object_attributes.id'),
    number: payload.id('object_attributes.iid'),
    title: payload.string('object_attributes.title'),
    headBranch: payload.string('object_attributes.source_branch'),
    headSha: payload.string('object_attributes.last_commit.id'),
    targetBranch: payload.string('object_attributes.target_branch'),
    merged: state === 'merged',
    mergedSha: payload.optionalString('object_attributes.merge_commit_sha'),
    labels: labels.map((label) => label.string('title')),
    repo: repo(payload),
    author: payload.optionalString('object_attributes.last_commit.author.name'),
    commitMessage: payload.optionalString('object_attributes.last_commit.message'),
    commitUrl: payload.optionalString('object_attributes.last_commit.url'),
    initiator: payload.optionalString('user.username'),
  });
}

function repo(payload: PayloadReader): RepoInfo {
  const fullName = payload.string('project.path_with_namespace');
  const split = splitFullName(fullName);
  if (split === undefined)
    throw new InputError(
      WEBHOOK_PAYLOAD_INVALID,
      `GitLab payload has project.path_with_namespace "${fullName}", expected namespace/project`,
      { details: { path: 'project.path_with_namespace' } },
    );
  return split;
}
