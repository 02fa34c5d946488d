/**
 * The git integrations of a local run, which `git: NAME` of a git-clone step names: from
 * `sluice run --git-integration NAME=token:VALUE` (repeatable; `user:U:token:V`,
 * `ssh-key-file:PATH`, `,url=…`, `,kind=…`) and from `--git-integrations FILE`, a YAML map of
 * name → `{kind, url, username, token | tokenFile | sshKeyFile}`. A flag wins over the file
 * for the same name. Tokens never appear in an error message.
 * @module
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '@sluice/errors';
import { parseGitIntegrationFlag } from '@sluice/engine';
import type { GitIntegrationSetting } from '@sluice/engine';
import { yaml } from '../../lazy-yaml.js';

const CODE = 'SLUICE_CLI_BAD_GIT_INTEGRATION';
const KINDS = ['github', 'gitlab', 'bitbucket', 'gitea', 'git'];
const FIELDS = ['kind', 'url', 'username', 'token', 'tokenFile', 'sshKeyFile'];

export interface GitIntegrationFlags {
  /** `--git-integration` values. */
  flags: readonly string[];
  /** `--git-integrations FILE`. */
  file?: string;
  cwd: string;
}

export function gitIntegrationsForRun(options: GitIntegrationFlags): GitIntegrationSetting[] {
  const byName = new Map<string, GitIntegrationSetting>();
  if (options.file !== undefined)
    for (const setting of readIntegrationsFile(resolve(options.cwd, options.file)))
      byName.set(setting.name, setting);
  const seen = new Set<string>();
  for (const text of options.flags) {
    const parsed = parseGitIntegrationFlag(text);
    if (!parsed.ok)
      throw new InputError(CODE, parsed.message, {
        hint: 'Write --git-integration github-main=token:$GITHUB_TOKEN',
      });
    const { sshKeyFile, ...setting } = parsed.value;
    if (seen.has(setting.name))
      throw new InputError(CODE, `--git-integration names "${setting.name}" twice`);
    seen.add(setting.name);
    byName.set(setting.name, {
      ...setting,
      ...(sshKeyFile === undefined
        ? {}
        : {
            sshKey: readSecretFile(
              resolve(options.cwd, sshKeyFile),
              `--git-integration ${setting.name}`,
            ),
          }),
    });
  }
  return [...byName.values()];
}

function readIntegrationsFile(path: string): GitIntegrationSetting[] {
  let doc: unknown;
  try {
    doc = yaml().parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new InputError(
      CODE,
      `Cannot read the git integrations file ${path}: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new InputError(CODE, `${path}: expected a map of integration name to its settings`);
  return Object.entries(doc as Record<string, unknown>).map(([name, value]) =>
    integrationOf(path, name, value),
  );
}

function integrationOf(path: string, name: string, value: unknown): GitIntegrationSetting {
  const where = `${path}: ${name}`;
  if (!/^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/.test(name))
    throw new InputError(
      CODE,
      `${path}: "${name}" is not a valid integration name (lowercase letters, digits, ".", "_", "-")`,
    );
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new InputError(
      CODE,
      `${where}: expected a map with kind and token, tokenFile or sshKeyFile`,
    );
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields))
    if (!FIELDS.includes(key))
      throw new InputError(
        CODE,
        `${where}.${key}: unknown field (expected one of ${FIELDS.join(', ')})`,
      );
  const text = (key: string): string | undefined => {
    const v = fields[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v === '')
      throw new InputError(CODE, `${where}.${key}: expected a non-empty string`);
    return v;
  };
  const kind = text('kind') ?? 'github';
  if (!KINDS.includes(kind))
    throw new InputError(CODE, `${where}.kind: "${kind}" is not one of ${KINDS.join(', ')}`);
  const secrets = ['token', 'tokenFile', 'sshKeyFile'].filter((k) => fields[k] !== undefined);
  if (secrets.length !== 1)
    throw new InputError(CODE, `${where}: give exactly one of token, tokenFile and sshKeyFile`);
  const tokenFile = text('tokenFile');
  const sshKeyFile = text('sshKeyFile');
  const username = text('username');
  const token =
    text('token') ??
    (tokenFile === undefined
      ? undefined
      : readSecretFile(resolve(path, '..', tokenFile), `${where}.tokenFile`).trim());
  return {
    name,
    kind: kind as GitIntegrationSetting['kind'],
    url: text('url') ?? '',
    ...(username === undefined ? {} : { username }),
    ...(token === undefined ? {} : { token }),
    ...(sshKeyFile === undefined
      ? {}
      : { sshKey: readSecretFile(resolve(path, '..', sshKeyFile), `${where}.sshKeyFile`) }),
  };
}

function readSecretFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(
      CODE,
      `${what}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      {
        cause: err,
      },
    );
  }
}
