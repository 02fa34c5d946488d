/**
 * Kubeconfig files for a test cluster: one token user per component, all pointing at the
 * apiserver on loopback and trusting the cluster CA by file path. Written as JSON, which every
 * kubeconfig reader accepts since YAML is a superset of it.
 * @module
 */
import { writeFile } from 'node:fs/promises';

export interface KubeconfigOptions {
  server: string;
  caFile: string;
  user: string;
  token: string;
  cluster?: string;
}

export function renderKubeconfig(options: KubeconfigOptions): string {
  const cluster = options.cluster ?? 'sluice-test';
  const context = `${options.user}@${cluster}`;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: cluster,
        cluster: { server: options.server, 'certificate-authority': options.caFile },
      },
    ],
    users: [{ name: options.user, user: { token: options.token } }],
    contexts: [{ name: context, context: { cluster, user: options.user, namespace: 'default' } }],
    'current-context': context,
    preferences: {},
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

export async function writeKubeconfig(path: string, options: KubeconfigOptions): Promise<string> {
  await writeFile(path, renderKubeconfig(options), { mode: 0o600 });
  return path;
}
