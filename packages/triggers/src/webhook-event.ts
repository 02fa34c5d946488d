/**
 * What a webhook means for Sluice, whatever host sent it: a push (branch or tag), a pull
 * request, a ping, or something that starts no build and why. Each provider's module reads its
 * own payload into the neutral `PushInfo` / `PullRequestInfo`; this module turns those into
 * `BuildFacts` fields plus the `CF_*` variables that `systemVariables` does not compute.
 * @module
 */
import type { BuildFacts } from '@sluice/pipeline';

/** The `BuildFacts` a webhook knows; spread into the build's facts. */
export type WebhookFacts = Pick<
  BuildFacts,
  | 'branch'
  | 'revision'
  | 'repoOwner'
  | 'repoName'
  | 'commitAuthor'
  | 'commitMessage'
  | 'commitUrl'
  | 'initiator'
  | 'trigger'
>;

interface EventBase {
  /** The provider's event header value, e.g. `push` or `Merge Request Hook`. */
  event: string;
  facts: WebhookFacts;
  /** `CF_PULL_REQUEST_*`, `CF_RELEASE_TAG`: the variables beyond `systemVariables(facts)`. */
  variables: Record<string, string>;
}

export type WebhookEvent =
  | (EventBase & { kind: 'push'; ref: { type: 'branch' | 'tag'; name: string } })
  | (EventBase & { kind: 'pull_request'; action: string })
  | (EventBase & { kind: 'ping' })
  | (EventBase & { kind: 'ignored'; reason: string });

export interface RepoInfo {
  owner: string;
  name: string;
}

export interface CommitInfo {
  sha: string;
  message?: string;
  author?: string;
  url?: string;
}

export interface PushInfo {
  ref: string;
  /** The new tip; all zeros when the ref was deleted. */
  after: string;
  /** Set by hosts that say so explicitly (GitHub `deleted`). */
  deleted?: boolean;
  /** The commit the ref now points at, when the payload names it. */
  commit?: CommitInfo;
  repo: RepoInfo;
  initiator?: string;
}

export interface PullRequestInfo {
  action: string;
  id: string;
  number: string;
  title: string;
  headBranch: string;
  headSha: string;
  targetBranch: string;
  merged: boolean;
  mergedSha?: string;
  labels: readonly string[];
  repo: RepoInfo;
  author?: string;
  commitMessage?: string;
  commitUrl?: string;
  initiator?: string;
}

const ZERO_SHA = /^0+$/;

export function pushEvent(event: string, push: PushInfo): WebhookEvent {
  const facts = repoFacts(push.repo, push.initiator);
  const ref = parseRef(push.ref);
  if (ref === undefined)
    return ignored(event, facts, `Push to ${push.ref}, which is neither a branch nor a tag`);
  if (push.deleted === true || ZERO_SHA.test(push.after))
    return ignored(event, facts, `Push deletes ${ref.type} ${ref.name}`);
  const commit = push.commit;
  Object.assign(facts, {
    branch: ref.name,
    revision: commit?.sha ?? push.after,
    commitAuthor: commit?.author,
    commitMessage: commit?.message,
    commitUrl: commit?.url,
  });
  const variables: Record<string, string> = ref.type === 'tag' ? { CF_RELEASE_TAG: ref.name } : {};
  return { kind: 'push', event, ref, facts: withoutUndefined(facts), variables };
}

export function pullRequestEvent(event: string, pr: PullRequestInfo): WebhookEvent {
  const facts = withoutUndefined({
    ...repoFacts(pr.repo, pr.initiator),
    branch: pr.headBranch,
    revision: pr.headSha,
    commitAuthor: pr.author,
    commitMessage: pr.commitMessage,
    commitUrl: pr.commitUrl,
  });
  const variables: Record<string, string> = {
    CF_PULL_REQUEST_ACTION: pr.action,
    CF_PULL_REQUEST_ID: pr.id,
    CF_PULL_REQUEST_NUMBER: pr.number,
    CF_PULL_REQUEST_TARGET: pr.targetBranch,
    CF_PULL_REQUEST_TITLE: pr.title,
    CF_PULL_REQUEST_HEAD_BRANCH: pr.headBranch,
    CF_PULL_REQUEST_HEAD_COMMIT_SHA: pr.headSha,
    CF_PULL_REQUEST_MERGED: String(pr.merged),
    CF_PULL_REQUEST_LABELS: pr.labels.join(','),
  };
  if (pr.merged && pr.mergedSha !== undefined)
    variables.CF_PULL_REQUEST_MERGED_COMMIT_SHA = pr.mergedSha;
  return { kind: 'pull_request', event, action: pr.action, facts, variables };
}

export function pingEvent(event: string, repo: RepoInfo | undefined): WebhookEvent {
  const facts = repo === undefined ? { trigger: 'webhook' as const } : repoFacts(repo, undefined);
  return { kind: 'ping', event, facts: withoutUndefined(facts), variables: {} };
}

/** An event this host sends that starts no build. */
export function unknownEvent(
  event: string,
  provider: string,
  repo: RepoInfo | undefined,
): WebhookEvent {
  const facts = repo === undefined ? { trigger: 'webhook' as const } : repoFacts(repo, undefined);
  return ignored(event, facts, `${provider} event "${event}" does not trigger builds`);
}

/** `refs/heads/a/b` → branch `a/b`; `refs/tags/v1` → tag `v1`; anything else → undefined. */
export function parseRef(ref: string): { type: 'branch' | 'tag'; name: string } | undefined {
  for (const [prefix, type] of [
    ['refs/heads/', 'branch'],
    ['refs/tags/', 'tag'],
  ] as const) {
    if (ref.startsWith(prefix) && ref.length > prefix.length)
      return { type, name: ref.slice(prefix.length) };
  }
  return undefined;
}

function repoFacts(repo: RepoInfo, initiator: string | undefined): WebhookFacts {
  return { repoOwner: repo.owner, repoName: repo.name, initiator, trigger: 'webhook' };
}

function ignored(event: string, facts: WebhookFacts, reason: string): WebhookEvent {
  return { kind: 'ignored', event, reason, facts: withoutUndefined(facts), variables: {} };
}

/** Absent facts stay absent keys, so `{ ...facts }` never overwrites with undefined. */
function withoutUndefined(facts: WebhookFacts): WebhookFacts {
  return Object.fromEntries(Object.entries(facts).filter(([, value]) => value !== undefined));
}

/** `group/sub/project` → owner `group/sub`, name `project`. */
export function splitFullName(fullName: string): RepoInfo | undefined {
  const slash = fullName.lastIndexOf('/');
  if (slash <= 0 || slash === fullName.length - 1) return undefined;
  return { owner: fullName.slice(0, slash), name: fullName.slice(slash + 1) };
}
