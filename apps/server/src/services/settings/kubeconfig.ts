/**
 * A kubeconfig file as a cluster integration keeps it: one context of it (the one asked for, or
 * its current-context), renamed after the integration, with its cluster and user, as a
 * self-contained kubeconfig (JSON, which kubectl and helm read as YAML). What a build's steps
 * cannot use is refused with what to change: files outside the kubeconfig (`certificate-authority`,
 * `client-key` paths), exec and auth-provider plugins (binaries and cloud credentials the step
 * images do not have), a server that is not https. Pure: no network, no files.
 * @module
 */
import { parse } from 'yaml';
import { InputError } from '@sluice/errors';

export const KUBECONFIG_INVALID = 'SLUICE_CLUSTER_KUBECONFIG_INVALID';

type Entry = Record<string, unknown>;

export interface SingleContext {
  /** The kubeconfig of this cluster alone, as JSON text. */
  kubeconfig: string;
  server: string;
  namespace: string | null;
  /** Its credentials (token, password, key data), for engines to mask. */
  secrets: string[];
}

/** Fields of a user entry that name files or programs a step cannot have. */
const UNUSABLE_USER_FIELDS: Record<string, string> = {
  exec: 'an exec plugin runs a program (a cloud CLI) that step images do not have: use a service account token',
  'auth-provider':
    'an auth-provider plugin needs cloud credentials steps do not have: use a service account token',
  tokenFile: 'a token file is on your machine: give the token itself (`token:`)',
  'client-certificate':
    'a certificate file is on your machine: give it inline (`client-certificate-data:`)',
  'client-key': 'a key file is on your machine: give it inline (`client-key-data:`)',
};

export function singleContext(
  text: string,
  options: { name: string; context?: string; namespace?: string },
): SingleContext {
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 100 });
  } catch (err) {
    throw invalid(`the file is not YAML or JSON: ${(err as Error).message.split('\n')[0] ?? ''}`);
  }
  if (!isEntry(doc)) throw invalid('the file is not a kubeconfig (a map with `contexts`)');
  const contextName = options.context ?? stringOf(doc['current-context']);
  if (contextName === undefined)
    throw invalid('it has no current-context: name the context to use (--kube-context)');
  const context = named(doc.contexts, contextName)?.context;
  if (!isEntry(context)) {
    const known = namesOf(doc.contexts);
    throw invalid(
      `it has no context "${contextName}"${known.length ? `; it has ${known.join(', ')}` : ''}`,
    );
  }
  const clusterName = stringOf(context.cluster) ?? '';
  const userName = stringOf(context.user) ?? '';
  const cluster = named(doc.clusters, clusterName)?.cluster;
  if (!isEntry(cluster))
    throw invalid(
      `context "${contextName}" names cluster "${clusterName}", which it does not have`,
    );
  const user = named(doc.users, userName)?.user ?? {};
  if (!isEntry(user))
    throw invalid(`context "${contextName}" names user "${userName}", which it does not have`);
  const server = stringOf(cluster.server) ?? '';
  if (!/^https:\/\/[^\s/]+/.test(server))
    throw invalid(`cluster "${clusterName}" has server "${server}": give its https:// URL`);
  if (cluster['certificate-authority'] !== undefined)
    throw invalid(
      `cluster "${clusterName}" names a CA file on your machine: give it inline (\`certificate-authority-data:\`)`,
    );
  for (const [field, why] of Object.entries(UNUSABLE_USER_FIELDS))
    if (user[field] !== undefined) throw invalid(`user "${userName}" has ${field}: ${why}`);
  const namespace = options.namespace ?? stringOf(context.namespace) ?? null;
  const secrets = ['token', 'password', 'client-key-data']
    .map((field) => stringOf(user[field]))
    .filter((value): value is string => value !== undefined && value !== '');
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: options.name, cluster }],
    users: [{ name: options.name, user }],
    contexts: [
      {
        name: options.name,
        context: {
          cluster: options.name,
          user: options.name,
          ...(namespace === null ? {} : { namespace }),
        },
      },
    ],
    'current-context': options.name,
  };
  return { kubeconfig: JSON.stringify(kubeconfig), server, namespace, secrets };
}

function invalid(why: string): InputError {
  return new InputError(KUBECONFIG_INVALID, `The kubeconfig cannot be used: ${why}`, {
    hint: 'kubectl config view --minify --flatten --context NAME writes one context with its certificates inline',
  });
}

function isEntry(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function named(list: unknown, name: string): Entry | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.find((item): item is Entry => isEntry(item) && item.name === name);
}

function namesOf(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item) =>
    isEntry(item) && typeof item.name === 'string' ? [item.name] : [],
  );
}
