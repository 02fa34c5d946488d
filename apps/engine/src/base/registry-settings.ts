/**
 * Docker registries a build can push to and git integrations its clones use: held by the
 * control plane (account settings) or given to `sluice run --registry` and
 * `--git-integration`. Passwords, tokens and keys are secrets: masked in every log line.
 * @module
 */

export interface RegistrySetting {
  /** What `registry:` in a build or push step names. */
  name: string;
  /** `host[:port]` images are tagged with, e.g. `registry.example.com:5000`. */
  domain: string;
  username?: string;
  password?: string;
  /** The registry used when a step names none. */
  default?: boolean;
}

export type GitIntegrationKind = 'github' | 'gitlab' | 'bitbucket' | 'gitea' | 'git';

export interface GitIntegrationSetting {
  /** What `git:` in a git-clone step names. */
  name: string;
  kind: GitIntegrationKind;
  /** The host's URL, e.g. `https://github.com`: where `repo: owner/name` is cloned from. */
  url: string;
  username?: string;
  token?: string;
  sshKey?: string;
  default?: boolean;
}

/** What a step whose integration is not there does: fail it, or clone anonymously with a warning. */
export type UnknownGitIntegration = 'fail' | 'anonymous';
