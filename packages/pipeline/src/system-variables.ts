/**
 * The `CF_*` system variables (reference §5.5) that make sense for a build, computed from what
 * the caller knows about it. Pure: the CLI or the control plane gathers the facts.
 * @module
 */

export interface BuildFacts {
  buildId: string;
  /** Milliseconds since the epoch. */
  startedAt: number;
  pipelineName: string;
  branch?: string;
  revision?: string;
  repoOwner?: string;
  repoName?: string;
  commitAuthor?: string;
  commitMessage?: string;
  commitUrl?: string;
  volumeName: string;
  buildUrl?: string;
  account?: string;
  initiator?: string;
  trigger?: 'build' | 'webhook' | 'cron';
}

export const VOLUME_PATH = '/codefresh/volume';

/** Branch name made safe as a Docker tag: `feature/x` → `feature_x`. */
export function normalizeBranchTag(branch: string): string {
  return branch
    .replace(/[^\w.-]/g, '_')
    .replace(/^[.-]+/, '')
    .slice(0, 128);
}

export function systemVariables(facts: BuildFacts): Record<string, string> {
  const vars: Record<string, string> = {
    CF_BUILD_ID: facts.buildId,
    CF_BUILD_TIMESTAMP: String(facts.startedAt),
    CF_PIPELINE_NAME: facts.pipelineName,
    CF_VOLUME_NAME: facts.volumeName,
    CF_VOLUME_PATH: VOLUME_PATH,
    CF_BUILD_TRIGGER: facts.trigger ?? 'build',
    CF_ACCOUNT: facts.account ?? 'local',
  };
  const optional: Record<string, string | undefined> = {
    CF_BRANCH: facts.branch,
    CF_BRANCH_TAG_NORMALIZED: facts.branch && normalizeBranchTag(facts.branch),
    CF_BRANCH_TAG_NORMALIZED_LOWER_CASE:
      facts.branch && normalizeBranchTag(facts.branch).toLowerCase(),
    CF_REVISION: facts.revision,
    CF_SHORT_REVISION: facts.revision?.slice(0, 7),
    CF_REPO_OWNER: facts.repoOwner,
    CF_REPO_NAME: facts.repoName,
    CF_COMMIT_AUTHOR: facts.commitAuthor,
    CF_COMMIT_MESSAGE: facts.commitMessage,
    CF_COMMIT_MESSAGE_ESCAPED: facts.commitMessage && escapeMessage(facts.commitMessage),
    CF_COMMIT_URL: facts.commitUrl,
    CF_BUILD_URL: facts.buildUrl,
    CF_BUILD_INITIATOR: facts.initiator,
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) vars[key] = value;
  return vars;
}

/** Backslashes first, so an escaped `\\n` and a real line break stay distinguishable. */
function escapeMessage(message: string): string {
  return message
    .replace(/\\/g, '\\\\')
    .replace(/\r/g, '\\r')
    .replace(/\n/g, '\\n')
    .replace(/"/g, '\\"');
}

/**
 * `owner` and `name` from a git remote: `https://host/owner/repo.git`,
 * `git@host:owner/repo.git`, `ssh://git@host:22/owner/repo`, `file:///srv/owner/repo.git` or a
 * plain path. Either is absent when the URL has too few path segments to hold it.
 */
export function repoFromUrl(url: string): { owner?: string; name?: string } {
  const parts = repoPath(url.trim())
    .replace(/\.git\/?$/, '')
    .split('/')
    .filter(Boolean);
  const name = parts[parts.length - 1];
  const owner = parts.length >= 2 ? parts[parts.length - 2] : undefined;
  return { owner, name };
}

/** The path part of a remote, without scheme, credentials, host or port. */
function repoPath(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url);
  if (scheme !== null) {
    const rest = url.slice(scheme[0].length);
    const slash = rest.indexOf('/');
    return slash === -1 ? '' : rest.slice(slash);
  }
  // scp-like `user@host:path`; a colon after a slash belongs to the path.
  const scp = /^[^/:]+:/.exec(url);
  return scp === null ? url : url.slice(scp[0].length);
}
