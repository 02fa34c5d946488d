import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '@sluice/errors';
import { loadKubeConfig } from './kube-config.js';

const PROXY_ENV = { HTTPS_PROXY: 'http://proxy.corp:3128', NO_PROXY: '.internal' };

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-kube-config-'));
  dirs.push(dir);
  return dir;
}

function kubeconfigFile(extraCluster = ''): string {
  const path = join(tempDir(), 'config');
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
clusters:
- name: remote
  cluster: { server: 'https://api.remote.example:6443'${extraCluster} }
- name: inside
  cluster: { server: 'https://api.cluster.internal:6443' }
users:
- name: u
  user: { token: 'kubeconfig-token-value' }
contexts:
- name: remote
  context: { cluster: remote, user: u, namespace: builds }
- name: inside
  context: { cluster: inside, user: u }
current-context: remote
`,
  );
  return path;
}

function isConfigError(text: RegExp) {
  return (err: unknown) =>
    err instanceof InputError &&
    err.code === 'SLUICE_KUBE_CONFIG_INVALID' &&
    text.test(err.message) &&
    !err.message.includes('token-value');
}

test('a kubeconfig file: current context, its namespace, and the proxy from the environment', () => {
  const loaded = loadKubeConfig({ type: 'kubeconfig', path: kubeconfigFile() }, { env: PROXY_ENV });
  assert.equal(loaded.server, 'https://api.remote.example:6443');
  assert.equal(loaded.namespace, 'builds');
  assert.equal(loaded.proxyUrl, 'http://proxy.corp:3128');
});

test('a named context is used; NO_PROXY keeps its cluster direct', () => {
  const source = { type: 'kubeconfig', path: kubeconfigFile(), context: 'inside' } as const;
  const loaded = loadKubeConfig(source, { env: PROXY_ENV });
  assert.equal(loaded.server, 'https://api.cluster.internal:6443');
  assert.equal(loaded.namespace, undefined);
  assert.equal(loaded.proxyUrl, undefined);
});

test("a kubeconfig's own proxy-url wins over the environment", () => {
  const path = kubeconfigFile(", proxy-url: 'http://own-proxy:8080'");
  const loaded = loadKubeConfig({ type: 'kubeconfig', path }, { env: PROXY_ENV });
  assert.equal(loaded.proxyUrl, 'http://own-proxy:8080');
});

test('a missing file, an unknown context and a file without clusters are named', () => {
  const missing = join(tempDir(), 'nope');
  assert.throws(
    () => loadKubeConfig({ type: 'kubeconfig', path: missing }, { env: {} }),
    isConfigError(new RegExp(`Kubeconfig ${missing} could not be read`)),
  );
  assert.throws(
    () =>
      loadKubeConfig({ type: 'kubeconfig', path: kubeconfigFile(), context: 'prod' }, { env: {} }),
    isConfigError(/has no context "prod" \(it has: remote, inside\)/),
  );
  const empty = join(tempDir(), 'empty');
  writeFileSync(empty, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
  assert.throws(
    () => loadKubeConfig({ type: 'kubeconfig', path: empty }, { env: {} }),
    isConfigError(/names no cluster for its current context/),
  );
});

test('a runtime token: URL checked, CA carried, token never in a message', () => {
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  const source = {
    type: 'token',
    host: 'https://10.0.0.1:6443/',
    token: ' sa-token-value\n',
    caPem: pem,
  } as const;
  const loaded = loadKubeConfig(source, { env: {} });
  assert.equal(loaded.server, 'https://10.0.0.1:6443');
  assert.equal(loaded.user.token, 'sa-token-value');
  const caData = loaded.cluster.caData ?? '';
  assert.equal(Buffer.from(caData, 'base64').toString(), pem);
  assert.throws(
    () => loadKubeConfig({ ...source, host: 'ftp://x' }, { env: {} }),
    isConfigError(/"ftp:\/\/x" is not an http\(s\) URL/),
  );
  assert.throws(
    () => loadKubeConfig({ ...source, token: '  ' }, { env: {} }),
    isConfigError(/No token for the Kubernetes API server/),
  );
});

test('in-cluster: the service account mount and KUBERNETES_SERVICE_HOST/PORT', () => {
  const dir = join(tempDir(), 'sa');
  mkdirSync(dir);
  const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' };
  assert.throws(
    () => loadKubeConfig({ type: 'in-cluster' }, { env, serviceAccountDir: dir }),
    isConfigError(new RegExp(`No service-account token at ${join(dir, 'token')}`)),
  );
  writeFileSync(join(dir, 'token'), 'in-cluster-token-value');
  writeFileSync(join(dir, 'namespace'), 'sluice\n');
  const loaded = loadKubeConfig({ type: 'in-cluster' }, { env, serviceAccountDir: dir });
  assert.equal(loaded.server, 'https://[fd00::1]:6443');
  assert.equal(loaded.namespace, 'sluice');
  assert.equal(loaded.cluster.caFile, join(dir, 'ca.crt'));
  assert.deepEqual(loaded.user, { tokenFile: join(dir, 'token') });
  assert.throws(
    () => loadKubeConfig({ type: 'in-cluster' }, { env: {}, serviceAccountDir: dir }),
    isConfigError(/KUBERNETES_SERVICE_HOST is not set/),
  );
});

test('kubectl-style YAML: client certificate files relative to the file, skip-verify, server name', () => {
  const dir = tempDir();
  const path = join(dir, 'config');
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev
  cluster:
    server: https://dev.example:6443/
    certificate-authority: certs/ca.crt
    insecure-skip-tls-verify: true
    tls-server-name: kubernetes
contexts:
- name: dev
  context:
    cluster: dev
    user: alice
    namespace: ' team-a '
users:
- name: alice
  user:
    client-certificate: /abs/alice.crt
    client-key: alice.key
    client-key-data: a2V5
    as: bob
    token-file: token
`,
  );
  const loaded = loadKubeConfig({ type: 'kubeconfig', path }, { env: PROXY_ENV });
  assert.equal(loaded.server, 'https://dev.example:6443');
  assert.equal(loaded.namespace, 'team-a');
  assert.equal(loaded.proxyUrl, 'http://proxy.corp:3128');
  assert.deepEqual(loaded.cluster, {
    caFile: join(dir, 'certs/ca.crt'),
    insecureSkipTlsVerify: true,
    tlsServerName: 'kubernetes',
  });
  assert.deepEqual(loaded.user, {
    certFile: '/abs/alice.crt',
    keyFile: join(dir, 'alice.key'),
    keyData: 'a2V5',
    impersonate: 'bob',
    tokenFile: join(dir, 'token'),
  });
});

test('exec and auth-provider users are left to client-node, with the file and context', () => {
  const path = join(tempDir(), 'config');
  writeFileSync(
    path,
    JSON.stringify({
      clusters: [{ name: 'gke', cluster: { server: 'https://gke.example' } }],
      users: [
        { name: 'exec', user: { exec: { command: 'gke-gcloud-auth-plugin' } } },
        { name: 'oidc', user: { 'auth-provider': { name: 'oidc', config: {} } } },
      ],
      contexts: [
        { name: 'a', context: { cluster: 'gke', user: 'exec' } },
        { name: 'b', context: { cluster: 'gke', user: 'oidc' } },
      ],
      'current-context': 'a',
    }),
  );
  const exec = loadKubeConfig({ type: 'kubeconfig', path }, { env: {} });
  assert.deepEqual(exec.user, { plugin: { kind: 'exec', kubeconfigPath: path, context: 'a' } });
  const oidc = loadKubeConfig({ type: 'kubeconfig', path, context: 'b' }, { env: {} });
  assert.deepEqual(oidc.user.plugin, { kind: 'auth-provider', kubeconfigPath: path, context: 'b' });
});

test('a file that is not a kubeconfig is named with the reason', () => {
  const path = join(tempDir(), 'config');
  writeFileSync(path, 'clusters:\n- cluster: { server: https://x }\n');
  assert.throws(
    () => loadKubeConfig({ type: 'kubeconfig', path }, { env: {} }),
    isConfigError(/could not be read: clusters\[0\]\.name is missing/),
  );
  writeFileSync(path, '- a\n- b\n');
  assert.throws(
    () => loadKubeConfig({ type: 'kubeconfig', path }, { env: {} }),
    isConfigError(/could not be read: the file is not a YAML mapping/),
  );
});
