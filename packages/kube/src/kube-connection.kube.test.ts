import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCert, useKubernetes } from '@sluice/testkit';
import { classifyKubeError } from './kube-errors.js';
import { KubeClient } from './kube-client.js';
import { createNamespace } from './testing/index.js';

// How the thin client reaches a real API server: client certificates and a CONNECT proxy.
const cluster = useKubernetes({ nodes: false });
const NS = 'kube-connection';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'sluice-kube-connection-'));
}

/** A kubeconfig in YAML, as kubectl writes it, with `user` and extra cluster lines. */
function writeKubeconfig(dir: string, user: string, clusterExtra = ''): string {
  const path = join(dir, 'config');
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
current-context: test
clusters:
- name: test
  cluster:
    server: ${cluster().server}
    certificate-authority: ${cluster().caFile}
${clusterExtra}contexts:
- name: test
  context:
    cluster: test
    user: u
    namespace: ${NS}
users:
- name: u
  user:
${user}`,
  );
  return path;
}

test('a client certificate signed by the cluster CA, files relative to the kubeconfig', async () => {
  await createNamespace(cluster(), NS);
  const dir = tempDir();
  try {
    const ca = { cert: cluster().caFile, key: cluster().caFile.replace(/\.crt$/, '.key') };
    await issueCert(dir, 'alice', {
      ca,
      commonName: 'alice',
      organization: 'system:masters',
      usage: 'client',
    });
    const path = writeKubeconfig(
      dir,
      '    client-certificate: alice.crt\n    client-key: alice.key\n',
    );
    const kube = KubeClient.create({ source: { type: 'kubeconfig', path }, env: {} });
    assert.equal(kube.defaultNamespace, NS);
    assert.equal((await kube.serverVersion()).gitVersion, 'v1.20.2');
    assert.deepEqual(await kube.missingPermissions(NS, [{ verb: 'delete', resource: 'pods' }]), []);
    kube.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no credentials: the API server answers 403 for the anonymous user, final', async () => {
  const dir = tempDir();
  try {
    const path = writeKubeconfig(dir, '    {}\n');
    const kube = KubeClient.create({ source: { type: 'kubeconfig', path }, env: {} });
    const err = await kube.list({ kind: 'Pod', namespace: NS }).then(
      () => assert.fail('an anonymous list should be refused'),
      (e: unknown) => e,
    );
    const { outcome, reason } = classifyKubeError(err, 'list');
    assert.equal(outcome, 'fail');
    assert.match(reason, /HTTP (401 Unauthorized|403 Forbidden)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A CONNECT proxy on loopback that records the targets it tunnels to. */
async function startConnectProxy() {
  const targets: string[] = [];
  const proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, client, head) => {
    targets.push(req.url ?? '');
    const [host = '', port = ''] = (req.url ?? '').split(/:(?=\d+$)/);
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    targets,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

test("the kubeconfig's proxy-url: requests go through a CONNECT tunnel, TLS checked end to end", async () => {
  const proxy = await startConnectProxy();
  const dir = tempDir();
  try {
    const { host } = new URL(cluster().server);
    const token = `    token: ${cluster().kubeConfig.getCurrentUser()?.token ?? ''}\n`;
    const path = writeKubeconfig(dir, token, `    proxy-url: ${proxy.url}\n`);
    const kube = KubeClient.create({ source: { type: 'kubeconfig', path }, env: {} });
    assert.equal((await kube.serverVersion()).gitVersion, 'v1.20.2');
    const name = 'through-proxy';
    const manifest = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: NS },
      data: { a: '1' },
    };
    assert.equal(await kube.create(manifest), 'created');
    assert.equal(await kube.delete({ kind: 'ConfigMap', namespace: NS, name }), 'deleted');
    assert.ok(proxy.targets.length >= 1);
    assert.ok(proxy.targets.every((t) => t === host));
    kube.close();
  } finally {
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
