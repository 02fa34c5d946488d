/**
 * Gitea webhook payloads (`X-Gitea-Event`: `push`, `pull_request`) read into the neutral push
 * and pull-request shapes. Gitea's payloads follow GitHub's closely, so the commit and
 * pull-request objects are read by the GitHub reader; the differences are the user objects
 * (`login` and `username`), PR actions such as `synchronized`, and pushes without `head_commit`.
 * @module
 */
import { githubStylePullRequest, headCommit } from './github-webhook.js';
import { PayloadReader } from './payload-reader.js';
import { pushEvent, unknownEvent } from './webhook-event.js';
import type { RepoInfo, WebhookEvent } from './webhook-event.js';

export function parseGiteaEvent(event: string, body: unknown): WebhookEvent {
  const payload = PayloadReader.of(body, `Gitea ${event}`);
  switch (event) {
    case 'push':
      return giteaPush(event, payload);
    case 'pull_request':
      return githubStylePullRequest(event, payload, repo, user);
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
  const commit = head && headCommit(head);
  return pushEvent(event, {
    ref: payload.string('ref'),
    after,
    commit,
    repo: repo(payload),
    initiator: user(payload, 'sender') ?? user(payload, 'pusher'),
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
