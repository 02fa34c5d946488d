/**
 * Branch, revision, repository and last commit of the git checkout a pipeline file lives in,
 * for the CF_* variables of a local run. Not a git checkout: nothing is known, which is fine.
 * @module
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { repoFromUrl } from '@sluice/pipeline';
import type { BuildFacts } from '@sluice/pipeline';

const run = promisify(execFile);

/** The build facts (@sluice/pipeline's `BuildFacts`) that a checkout tells. */
export type GitFacts = Pick<
  BuildFacts,
  'branch' | 'revision' | 'repoOwner' | 'repoName' | 'commitAuthor' | 'commitMessage'
>;

async function git(dir: string, args: string[]): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', ['-C', dir, ...args], { timeout: 5000 });
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

export async function readGitFacts(dir: string): Promise<GitFacts> {
  const revision = await git(dir, ['rev-parse', 'HEAD']);
  if (revision === undefined) return {};
  const [branch, remote, author, message] = await Promise.all([
    git(dir, ['rev-parse', '--abbrev-ref', 'HEAD']),
    git(dir, ['config', '--get', 'remote.origin.url']),
    git(dir, ['log', '-1', '--format=%an']),
    git(dir, ['log', '-1', '--format=%B']),
  ]);
  const repo = remote ? repoFromUrl(remote) : {};
  return {
    branch: branch === 'HEAD' ? undefined : branch,
    revision,
    repoOwner: repo.owner,
    repoName: repo.name,
    commitAuthor: author,
    commitMessage: message,
  };
}
