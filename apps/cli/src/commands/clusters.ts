/**
 * `sluice get clusters [NAME] [-o yaml|json]`, `sluice describe cluster NAME`, `sluice create
 * cluster NAME --kubeconfig-file F [--kube-context C] [--namespace N]` and `sluice delete cluster
 * NAME`, kubectl style, through the control plane's API. The kubeconfig goes in (one context
 * kept, its credentials encrypted) and its credentials never come back. With `--runtime R`, the
 * cluster is behind that runtime's firewall (cluster-firewall.ts): its objects are made through
 * the kube context, and `delete` removes them.
 * @module
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '@sluice/errors';
import type { Cluster } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import type { FirewallClusterOptions } from './cluster-firewall.js';
import { printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';
import { processEnvironment } from '../config.js';

const TABLE = {
  header: ['NAME', 'KIND', 'RUNTIME', 'SERVER', 'NAMESPACE', 'PROJECTS', 'CREATED'],
  row: (c: Cluster) => [
    c.name,
    c.kind,
    c.runtime ?? '',
    c.server,
    c.namespace ?? '',
    c.projects === null ? '*' : c.projects.join(','),
    c.createdAt,
  ],
};

export async function getClusters(
  term: Terminal,
  name: string | undefined,
  options: ServerOptions & { output: OutputFormat },
): Promise<number> {
  const client = serverClient(options);
  const value =
    name === undefined
      ? (await client.call('listClusters')).items
      : await client.call('getCluster', { params: { name } });
  printResources(term, value, options.output, TABLE);
  return 0;
}

export async function describeCluster(
  term: Terminal,
  name: string,
  options: ServerOptions,
): Promise<number> {
  const cluster = await serverClient(options).call('getCluster', { params: { name } });
  const rows: [string, string][] = [
    ['Name', cluster.name],
    ['Kind', cluster.kind],
    ['Server', cluster.server],
    ['Namespace', cluster.namespace ?? '(the context’s, else default)'],
    ...(cluster.kind === 'behind-firewall'
      ? ([
          ['Runtime', `${cluster.runtime ?? ''} (only its builds reach it)`],
          ['Service account', cluster.serviceAccount ?? ''],
          ['Namespaces', cluster.namespaces.join(', ')],
          ['Credentials', 'a token minted in the cluster for each build, bound to it'],
        ] as [string, string][])
      : ([
          ['Credentials', cluster.hasCredentials ? 'kept encrypted; never shown' : 'none here'],
        ] as [string, string][])),
    ['Projects', cluster.projects === null ? 'every project' : cluster.projects.join(', ')],
    ['In steps', `KUBECONFIG context "${cluster.name}" (kubectl --context ${cluster.name})`],
    ['Created', cluster.createdAt],
  ];
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  for (const [label, value] of rows) term.out(`${`${label}:`.padEnd(width)}${value}`);
  return 0;
}

export interface CreateClusterOptions extends Omit<FirewallClusterOptions, 'runtime'> {
  /** Behind this runtime's firewall, instead of from a kubeconfig. */
  runtime?: string;
}

export async function createCluster(
  term: Terminal,
  name: string,
  options: CreateClusterOptions,
): Promise<number> {
  if (options.runtime !== undefined) {
    const { createFirewallCluster } = await import('./cluster-firewall.js');
    return createFirewallCluster(term, name, { ...options, runtime: options.runtime });
  }
  const file =
    options.kubeconfigFile ??
    processEnvironment()['KUBECONFIG']?.split(':')[0] ??
    join(homedir(), '.kube', 'config');
  let kubeconfig: string;
  try {
    kubeconfig = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(
      'SLUICE_CLI_BAD_CLUSTER',
      `Cannot read the kubeconfig ${file}: ${(err as Error).message}`,
      {
        hint: `sluice create cluster ${name} --kubeconfig-file FILE --kube-context CONTEXT`,
      },
    );
  }
  const created = await serverClient(options).call('createCluster', {
    body: {
      name,
      kubeconfig,
      context: options.kubeContext,
      namespace: options.namespace,
      projects: options.projects
        ?.split(',')
        .map((p) => p.trim())
        .filter((p) => p !== ''),
    },
  });
  term.out(`cluster/${created.name} created (${created.server})`);
  return 0;
}

export async function deleteCluster(
  term: Terminal,
  name: string,
  options: ServerOptions & { kubeconfigFile?: string; kubeContext?: string },
): Promise<number> {
  const client = serverClient(options);
  const found = await client.call('getCluster', { params: { name } });
  if (found.kind === 'behind-firewall') {
    const { deleteFirewallCluster } = await import('./cluster-firewall.js');
    await deleteFirewallCluster(term, found, options);
  }
  await client.call('deleteCluster', { params: { name } });
  term.out(`cluster/${name} deleted`);
  return 0;
}
