/**
 * The CLI's contexts, kubectl style: named pairs of a server URL and a user token, and the one
 * in use, kept in one YAML file (`SLUICE_CONFIG`, else `~/.config/sluice/config.yaml`). The file
 * holds tokens, so it is written 0600 in a 0700 directory, through a temporary file and a
 * rename: a crash mid-write leaves the old file whole. The CLI's own directory is made 0700
 * even when it existed before (made by hand, or by an older CLI, 0755); a directory that
 * `SLUICE_CONFIG` points into is the user's, and only the file's mode is the CLI's to set.
 * @module
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { InputError } from '@sluice/errors';
import { yaml } from '../lazy-yaml.js';

export interface SluiceContext {
  name: string;
  url: string;
  token: string;
}

export interface Contexts {
  current: string | null;
  contexts: SluiceContext[];
}

const HEADER = '# Sluice CLI contexts (sluice auth --help). It holds tokens: keep it 0600.\n';
const NAME = /^[A-Za-z0-9][\w.@-]{0,62}$/;

/** The contexts in `file`; none when it does not exist yet. */
export function readContexts(file: string): Contexts {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { current: null, contexts: [] };
    throw new InputError('SLUICE_CONTEXT_FILE_INVALID', `Cannot read ${file}`, { cause: err });
  }
  const doc = yaml().parseDocument(text, { prettyErrors: false });
  const problem = doc.errors[0];
  if (problem !== undefined) {
    const at = problem.linePos?.[0];
    throw invalid(file, `${at?.line ?? 1}:${at?.col ?? 1}`, problem.message.split('\n')[0] ?? '');
  }
  return fromYaml(file, doc.toJS() as unknown);
}

function fromYaml(file: string, value: unknown): Contexts {
  if (value === null || value === undefined) return { current: null, contexts: [] };
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalid(file, '1:1', 'expected a map with current-context and contexts');
  const record = value as Record<string, unknown>;
  const list = record.contexts ?? [];
  if (!Array.isArray(list)) throw invalid(file, 'contexts', 'expected a list');
  const contexts = list.map((item: unknown, i) => {
    const c = (item ?? {}) as Record<string, unknown>;
    for (const field of ['name', 'url', 'token'])
      if (typeof c[field] !== 'string' || c[field] === '')
        throw invalid(file, `contexts[${i}].${field}`, 'expected a non-empty string');
    return { name: c.name as string, url: c.url as string, token: c.token as string };
  });
  const current = record['current-context'];
  if (current !== undefined && current !== null && typeof current !== 'string')
    throw invalid(file, 'current-context', 'expected a context name');
  return { current: current ?? null, contexts };
}

function invalid(file: string, where: string, message: string): InputError {
  return new InputError('SLUICE_CONTEXT_FILE_INVALID', `${file} (${where}): ${message}`, {
    hint: 'Fix the file, or remove it and add the contexts again with sluice auth create-context',
  });
}

export interface WriteContextsOptions {
  /** The file's directory is the CLI's own: made 0700 whatever its mode was. */
  ownDirectory?: boolean;
}

/** Writes the whole file, 0600, atomically. */
export function writeContexts(
  file: string,
  value: Contexts,
  options: WriteContextsOptions = {},
): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (options.ownDirectory) chmodSync(dirname(file), 0o700);
  const body = {
    'current-context': value.current,
    contexts: value.contexts.map((c) => ({ name: c.name, url: c.url, token: c.token })),
  };
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, HEADER + yaml().stringify(body), { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/** Whether anyone but the owner may read the file (a token file should not be). */
export function isExposed(file: string): boolean {
  try {
    return (statSync(file).mode & 0o077) !== 0;
  } catch {
    return false;
  }
}

export function checkContextName(name: string): void {
  if (!NAME.test(name))
    throw new InputError(
      'SLUICE_CONTEXT_NAME_INVALID',
      `Context name "${name}" must be letters, digits, ".", "_", "@" and "-", up to 63 characters`,
    );
}

/** Normalises a server URL (no trailing slash) and refuses anything but http(s). */
export function checkServerUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InputError('SLUICE_CONTEXT_URL_INVALID', `"${url}" is not a URL`, {
      hint: 'Give the server as http://HOST:PORT or https://HOST',
    });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new InputError('SLUICE_CONTEXT_URL_INVALID', `"${url}" is not an http(s) URL`, {
      hint: 'Give the server as http://HOST:PORT or https://HOST',
    });
  return url.replace(/\/+$/, '');
}
