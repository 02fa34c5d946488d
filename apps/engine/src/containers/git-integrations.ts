/**
 * Git integrations as the engine uses them: a `git-clone` step with `git: NAME` clones with
 * that integration's token (through a credential helper, never in the clone URL, so the URL
 * printed and kept in `.git/config` holds no secret) or SSH key. The control plane hands the
 * account's integrations to the build; `sluice run` takes them from `--git-integration` or a
 * file. Tokens and keys are secrets: masked in every log line.
 * @module
 */
import { repoFromUrl } from '@sluice/pipeline';
import type { GitIntegrationKind, GitIntegrationSetting } from '../base/registry-settings.js';

/** Where `repo: owner/name` is cloned from when the integration names no URL. */
const PROVIDER_URLS: Record<GitIntegrationKind, string> = {
  github: 'https://github.com',
  gitlab: 'https://gitlab.com',
  bitbucket: 'https://bitbucket.org',
  gitea: '',
  git: '',
};

/** The user name each provider takes with a token when none is set. */
const TOKEN_USERNAMES: Record<GitIntegrationKind, string> = {
  github: 'x-access-token',
  gitlab: 'oauth2',
  bitbucket: 'x-token-auth',
  gitea: 'git',
  git: 'git',
};

export type CloneCredentials =
  | { kind: 'none' }
  | { kind: 'token'; username: string; token: string }
  | { kind: 'ssh-key'; key: string };

export function credentialsOf(integration: GitIntegrationSetting | undefined): CloneCredentials {
  if (integration?.sshKey) return { kind: 'ssh-key', key: integration.sshKey };
  if (integration?.token)
    return {
      kind: 'token',
      username: integration.username ?? TOKEN_USERNAMES[integration.kind],
      token: integration.token,
    };
  return { kind: 'none' };
}

/**
 * The URL to clone: a full URL as written; `owner/name` on the integration's host (SSH form
 * when it holds a key), or on GitHub when the step names no integration.
 */
export function cloneUrlFor(repo: string, integration: GitIntegrationSetting | undefined): string {
  if (!/^[\w.-]+(\/[\w.-]+)+$/.test(repo)) return repo;
  const base = (integration?.url || PROVIDER_URLS[integration?.kind ?? 'github'] || '').replace(
    /\/+$/,
    '',
  );
  const path = repo.endsWith('.git') ? repo : `${repo}.git`;
  if (integration?.sshKey && /^https?:\/\//.test(base)) {
    const host = new URL(base).hostname;
    return `git@${host}:${path}`;
  }
  return `${base || 'https://github.com'}/${path}`;
}

/** What a step type's step names its git integration by (`SLUICE_GIT_INTEGRATION=[[ .Arguments.git ]]`). */
const STEP_TYPE_INTEGRATION = 'SLUICE_GIT_INTEGRATION';

/**
 * The credentials a step of a step type gets, as a git-clone does, when its environment names a
 * git integration in `SLUICE_GIT_INTEGRATION` (an empty name: the one the pipeline's clone used,
 * `CF_GIT_INTEGRATION`): `SLUICE_GIT_SSH_KEY`, or `SLUICE_GIT_TOKEN` and
 * `SLUICE_GIT_TOKEN_USERNAME`. Only steps a step type made get them, so a freestyle step of the
 * pipeline cannot ask for a key by setting the variable. Nothing for an integration the build
 * does not have: the step says so when it needs one (git-commit's `use_ssh`).
 */
export function stepTypeGitEnvironment(
  environment: readonly (readonly [string, string])[],
  fromStepType: boolean,
  options: {
    integrations: readonly GitIntegrationSetting[];
    cloneIntegration: string | undefined;
  },
): string[] {
  const named = environment.find(([key]) => key === STEP_TYPE_INTEGRATION);
  if (!fromStepType || named === undefined) return [];
  const name = named[1] || options.cloneIntegration;
  const credentials = credentialsOf(options.integrations.find((i) => i.name === name));
  switch (credentials.kind) {
    case 'ssh-key':
      return [`SLUICE_GIT_SSH_KEY=${credentials.key}`];
    case 'token':
      return [
        `SLUICE_GIT_TOKEN=${credentials.token}`,
        `SLUICE_GIT_TOKEN_USERNAME=${credentials.username}`,
      ];
    case 'none':
      return [];
  }
}

/** The `CF_*` variables a clone with an integration fills in when the build's facts lack them. */
export function repoVariables(
  url: string,
  integration: GitIntegrationSetting,
): Record<string, string> {
  const { owner, name } = repoFromUrl(url);
  return {
    ...(owner === undefined ? {} : { CF_REPO_OWNER: owner }),
    ...(name === undefined ? {} : { CF_REPO_NAME: name }),
    CF_GIT_PROVIDER: integration.kind,
    CF_GIT_INTEGRATION: integration.name,
  };
}

/**
 * Whether `repo` lives on the integration's host: `owner/name` always does; a URL only when its
 * host is the integration's, so a default integration's token never goes to another host.
 */
export function onIntegrationHost(repo: string, integration: GitIntegrationSetting): boolean {
  if (/^[\w.-]+(\/[\w.-]+)+$/.test(repo)) return true;
  const base = integration.url || PROVIDER_URLS[integration.kind];
  const host = hostOf(repo);
  return host !== undefined && base !== '' && host === hostOf(base);
}

function hostOf(url: string): string | undefined {
  const scp = /^[^@/\s]+@([^:/\s]+):/.exec(url);
  if (scp !== null) return scp[1]?.toLowerCase();
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'file:' ? undefined : parsed.hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** git's complaints that mean the host refused the credentials (or wanted some). */
const REFUSED =
  /Authentication failed|could not read (Username|Password)|Permission denied \(publickey|Access denied|HTTP Basic|returned error: 40[13]|Invalid username or password/i;

/**
 * The reason of a clone that failed because the integration's credentials were refused: when
 * any of git's last complaints (`stderr`, oldest first) says so.
 */
export function refusedReason(
  integration: string | undefined,
  displayUrl: string,
  stderr: readonly string[],
): string | undefined {
  if (integration === undefined || !stderr.some((line) => REFUSED.test(line))) return undefined;
  return `git integration "${integration}" was refused by ${displayUrl}: authentication failed; check its token or key`;
}

/**
 * The line of git's last complaints (`stderr`, oldest first) that says what went wrong: the SSH
 * transport's own (`ssh: Could not resolve hostname …`), else git's last `fatal:` or `error:`,
 * else the last line with text. git's advice after it ("Please make sure you have the correct
 * access rights / and the repository exists.") says nothing particular.
 */
export function gitComplaint(stderr: readonly string[]): string | undefined {
  const lines = stderr.map((line) => line.trim()).filter((line) => line !== '');
  return (
    lines.find((line) => line.startsWith('ssh: ')) ??
    lines.findLast((line) => /^(fatal|error):/i.test(line)) ??
    lines.at(-1)
  );
}

/**
 * `NAME=token:VALUE`, `NAME=user:USER:token:VALUE` or `NAME=ssh-key-file:PATH` (the CLI reads
 * the file), with an optional `,url=https://host` and `,kind=gitlab`: what `sluice run
 * --git-integration` takes. Returns a message naming what is wrong, or the setting.
 */
export function parseGitIntegrationFlag(
  text: string,
):
  | { ok: true; value: GitIntegrationSetting & { sshKeyFile?: string } }
  | { ok: false; message: string } {
  const eq = text.indexOf('=');
  const name = eq === -1 ? '' : text.slice(0, eq);
  if (!/^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/.test(name))
    return { ok: false, message: `--git-integration "${redact(text)}": expected NAME=token:VALUE` };
  const [secretPart = '', ...options] = text.slice(eq + 1).split(',');
  const setting: GitIntegrationSetting & { sshKeyFile?: string } = { name, kind: 'git', url: '' };
  const user = /^user:([^:]+):(.*)$/.exec(secretPart);
  const secret = user ? (user[2] ?? '') : secretPart;
  if (user) setting.username = user[1];
  if (secret.startsWith('token:') && secret.length > 'token:'.length)
    setting.token = secret.slice('token:'.length);
  else if (secret.startsWith('ssh-key-file:') && secret.length > 'ssh-key-file:'.length)
    setting.sshKeyFile = secret.slice('ssh-key-file:'.length);
  else
    return {
      ok: false,
      message: `--git-integration ${name}: expected token:VALUE, user:NAME:token:VALUE or ssh-key-file:PATH after "${name}="`,
    };
  for (const option of options) {
    const [key, value = ''] = option.split(/=(.*)/s);
    if (key === 'url' && /^(https?|ssh):\/\//.test(value)) setting.url = value;
    else if (key === 'kind' && value in PROVIDER_URLS) setting.kind = value as GitIntegrationKind;
    else
      return {
        ok: false,
        message: `--git-integration ${name}: unknown option "${option}" (expected url=https://host or kind=github|gitlab|bitbucket|gitea|git)`,
      };
  }
  if (setting.kind === 'git' && setting.url === '') setting.kind = 'github';
  return { ok: true, value: setting };
}

function redact(text: string): string {
  return text.replace(/(token:).*/, '$1****');
}
