/**
 * Real git repositories for tests: commits made with the host's git, pushed to a bare repo that
 * clone steps can reach over `file://` (or bind-mounted into `sluice/git:1`). Author, committer
 * and dates are fixed, so the same input gives the same commit shas on every run.
 * @module
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InputError, UnavailableError } from '@sluice/errors';
import { findOrInstall } from './apt-install.js';
import { childEnv } from './config.js';
import { runCommand } from './run-command.js';
import { makeTempDir } from './temp-dir.js';

export const DEFAULT_BRANCH = 'main';

export interface CreateGitRepoOptions {
  /** Files of the first commit on `main`: relative path → content. */
  files: Record<string, string>;
  /** Branches made from that first commit, each with one commit adding or changing these files. */
  branches?: Record<string, Record<string, string>>;
  /** Parent directory to create the repo in; a fresh temp dir by default. */
  dir?: string;
}

export interface GitRepo {
  /** `file://` URL of the bare repository. */
  url: string;
  /** Path of the bare repository. */
  path: string;
  /** Branch name → commit sha. */
  commits: Record<string, string>;
  cleanup(): Promise<void>;
}

const GIT_ENV = childEnv({
  // Ignore the host's git configuration so hooks, templates or signing cannot leak in.
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
});
const GIT_IDENTITY = [
  'user.name=Sluice Test',
  'user.email=test@sluice.invalid',
  'commit.gpgsign=false',
  `init.defaultBranch=${DEFAULT_BRANCH}`,
].flatMap((setting) => ['-c', setting]);

export async function createGitRepo(options: CreateGitRepoOptions): Promise<GitRepo> {
  const temp = options.dir === undefined ? await makeTempDir('sluice-git-') : undefined;
  const parent = resolve(options.dir ?? temp?.path ?? '.');
  const work = join(parent, 'work');
  const bare = join(parent, 'repo.git');
  const cleanup = async (): Promise<void> => {
    if (temp !== undefined) return temp.cleanup();
    await Promise.all([work, bare].map((path) => rm(path, { recursive: true, force: true })));
  };
  try {
    const commits = await commitAll(work, options);
    await git(parent, ['init', '--quiet', '--bare', `--initial-branch=${DEFAULT_BRANCH}`, bare]);
    await git(work, ['push', '--quiet', bare, 'refs/heads/*:refs/heads/*']);
    return { url: pathToFileURL(bare).href, path: bare, commits, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

async function commitAll(
  work: string,
  options: CreateGitRepoOptions,
): Promise<Record<string, string>> {
  await mkdir(work, { recursive: true });
  await git(work, ['init', '--quiet', `--initial-branch=${DEFAULT_BRANCH}`]);
  const initial = await commitFiles(work, options.files, 'Initial commit');
  const commits: Record<string, string> = { [DEFAULT_BRANCH]: initial };
  for (const [branch, files] of Object.entries(options.branches ?? {})) {
    await checkBranchName(branch);
    await git(work, ['checkout', '--quiet', '-B', branch, initial]);
    // The branch name in the message keeps shas distinct even for identical trees.
    commits[branch] = await commitFiles(work, files, `Commit on ${branch}`);
  }
  return commits;
}

async function commitFiles(
  work: string,
  files: Record<string, string>,
  message: string,
): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    const target = join(work, checkRelativePath(path));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  await git(work, ['add', '--all']);
  await git(work, ['commit', '--quiet', '--allow-empty', '-m', message]);
  return (await git(work, ['rev-parse', 'HEAD'])).trim();
}

function checkRelativePath(path: string): string {
  const normal = normalize(path);
  if (
    path === '' ||
    isAbsolute(path) ||
    normal === '..' ||
    normal.startsWith(`..${sep}`) ||
    normal.split(sep).includes('.git')
  ) {
    throw new InputError(
      'SLUICE_TEST_GIT_PATH_INVALID',
      `File path ${JSON.stringify(path)} must stay inside the repository`,
    );
  }
  return normal;
}

async function checkBranchName(branch: string): Promise<void> {
  const result = await runCommand('git', ['check-ref-format', '--branch', branch], {
    env: GIT_ENV,
  });
  if (result.code !== 0) {
    throw new InputError(
      'SLUICE_TEST_GIT_BRANCH_INVALID',
      `Branch name ${JSON.stringify(branch)} is not valid in git`,
    );
  }
}

/** The host's git, which the fixtures commit with, installing Debian's `git` when it is missing. */
export async function ensureGit(log?: (line: string) => void): Promise<string> {
  const { path, failed } = await findOrInstall('git', 'git', { log });
  if (path !== undefined) return path;
  throw new UnavailableError('SLUICE_TEST_GIT_FAILED', 'git is not installed on this machine', {
    hint: `Run: apt-get install -y git${failed === undefined ? '' : ` (${failed} failed)`}`,
  });
}

async function git(cwd: string, args: readonly string[]): Promise<string> {
  const result = await runCommand('git', [...GIT_IDENTITY, ...args], { cwd, env: GIT_ENV });
  if (result.code === 0) return result.stdout;
  throw new UnavailableError(
    'SLUICE_TEST_GIT_FAILED',
    `git ${args.join(' ')} failed in ${cwd}: ${result.spawnError?.message ?? result.stderr.trim()}`,
    { hint: result.spawnError === undefined ? undefined : 'apt-get install -y git' },
  );
}
