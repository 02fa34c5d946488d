/**
 * A kubeconfig file read without @kubernetes/client-node: the entries kubectl writes (clusters,
 * users, contexts, current-context) in YAML or JSON, one context chosen, relative file paths
 * taken from the file's directory, as client-go does. What it returns is the raw choice; the
 * credentials that need a program or a provider (`exec`, `auth-provider`) are only flagged, for
 * `kube-config.ts` to hand to client-node.
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface KubeconfigCluster {
  server: string;
  caData?: string;
  caFile?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
}

export interface KubeconfigUser {
  token?: string;
  tokenFile?: string;
  certData?: string;
  certFile?: string;
  keyData?: string;
  keyFile?: string;
  username?: string;
  password?: string;
  impersonate?: string;
  /** `exec` or `auth-provider`: only client-node knows how to get these credentials. */
  plugin?: 'exec' | 'auth-provider';
}

export interface KubeconfigChoice {
  contextName: string;
  cluster: KubeconfigCluster;
  /** Undefined when the context names no user (an unauthenticated cluster). */
  user: KubeconfigUser | undefined;
  namespace: string | undefined;
}

/** Why a kubeconfig cannot be used; `kube-config.ts` turns it into a Sluice error. */
export class KubeconfigProblem extends Error {
  readonly kind: 'unreadable' | 'no-context' | 'no-cluster';
  constructor(kind: KubeconfigProblem['kind'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

type Entry = Record<string, unknown>;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function named(list: unknown, section: string, body: string): Map<string, Entry> {
  const byName = new Map<string, Entry>();
  if (list === undefined || list === null) return byName;
  if (!Array.isArray(list)) throw new Error(`${section} is not a list`);
  list.forEach((item: unknown, index) => {
    const entry = (typeof item === 'object' && item !== null ? item : {}) as Entry;
    const name = str(entry['name']);
    if (name === undefined) throw new Error(`${section}[${index}].name is missing`);
    const inner = entry[body];
    byName.set(name, (typeof inner === 'object' && inner !== null ? inner : {}) as Entry);
  });
  return byName;
}

function readDocument(path: string): Entry {
  const text = readFileSync(path, 'utf8');
  const document: unknown = parseYaml(text);
  if (document === null || document === undefined) return {};
  if (typeof document !== 'object' || Array.isArray(document))
    throw new Error('the file is not a YAML mapping');
  return document as Entry;
}

/**
 * Reads the file and picks `context` (else its current-context).
 * @throws KubeconfigProblem naming what is wrong (never a credential).
 */
export function readKubeconfig(path: string, context?: string): KubeconfigChoice {
  let clusters: Map<string, Entry>;
  let users: Map<string, Entry>;
  let contexts: Map<string, Entry>;
  let current: string | undefined;
  try {
    const document = readDocument(path);
    clusters = named(document['clusters'], 'clusters', 'cluster');
    users = named(document['users'], 'users', 'user');
    contexts = named(document['contexts'], 'contexts', 'context');
    current = str(document['current-context']);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new KubeconfigProblem('unreadable', reason, { cause: err });
  }
  if (context !== undefined && !contexts.has(context)) {
    const known = [...contexts.keys()].join(', ') || 'none';
    throw new KubeconfigProblem('no-context', `has no context "${context}" (it has: ${known})`);
  }
  const contextName = context ?? current ?? '';
  const chosen = contexts.get(contextName);
  const clusterEntry =
    chosen === undefined ? undefined : clusters.get(str(chosen['cluster']) ?? '');
  const server = str(clusterEntry?.['server']);
  if (chosen === undefined || clusterEntry === undefined || server === undefined) {
    throw new KubeconfigProblem(
      'no-cluster',
      `names no cluster for its current context ${contextName || '(none)'}`,
    );
  }
  const base = dirname(path);
  const userEntry = users.get(str(chosen['user']) ?? '');
  return {
    contextName,
    cluster: clusterOf(clusterEntry, server, base),
    user: userEntry === undefined ? undefined : userOf(userEntry, base),
    namespace: str(chosen['namespace'])?.trim() || undefined,
  };
}

function fileIn(base: string, value: unknown): string | undefined {
  const path = str(value);
  return path === undefined || isAbsolute(path) ? path : resolve(base, path);
}

function clusterOf(entry: Entry, server: string, base: string): KubeconfigCluster {
  const optional = {
    caData: str(entry['certificate-authority-data']),
    caFile: fileIn(base, entry['certificate-authority']),
    tlsServerName: str(entry['tls-server-name']),
    proxyUrl: str(entry['proxy-url']),
  };
  return {
    server: server.replace(/\/+$/, ''),
    insecureSkipTlsVerify: entry['insecure-skip-tls-verify'] === true,
    ...withoutUndefined(optional),
  };
}

function userOf(entry: Entry, base: string): KubeconfigUser {
  const plugin =
    entry['exec'] !== undefined && entry['exec'] !== null
      ? 'exec'
      : entry['auth-provider'] !== undefined && entry['auth-provider'] !== null
        ? 'auth-provider'
        : undefined;
  return withoutUndefined({
    token: str(entry['token']),
    tokenFile: fileIn(base, entry['tokenFile'] ?? entry['token-file']),
    certData: str(entry['client-certificate-data']),
    certFile: fileIn(base, entry['client-certificate']),
    keyData: str(entry['client-key-data']),
    keyFile: fileIn(base, entry['client-key']),
    username: str(entry['username']),
    password: str(entry['password']),
    impersonate: str(entry['as']),
    plugin,
  });
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * The contexts a kubeconfig file names, and its current one, for a person to choose from.
 * @throws KubeconfigProblem when the file cannot be read.
 */
export function kubeconfigContexts(path: string): { names: string[]; current: string | undefined } {
  try {
    const document = readDocument(path);
    const contexts = named(document['contexts'], 'contexts', 'context');
    return { names: [...contexts.keys()], current: str(document['current-context']) };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new KubeconfigProblem('unreadable', reason, { cause: err });
  }
}
