import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api } from '@kubernetes/client-node';
import { makeTempDir } from '../temp-dir.js';
import { CLUSTER_IMAGES } from './cluster-images.js';
import {
  clientPod,
  CLIENT_TLS_DIR,
  createDindTls,
  dindPod,
  DIND_PORT,
  waitForPod,
} from './test-pods.js';
import { useKubernetes } from './use-kubernetes.js';

// One cluster with a node for the file: containerd, the CNI bridge and a kubelet run the pods.
// Its own, not the test run's shared one: the last test stops it and checks nothing is left.
const cluster = useKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.busybox, CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind],
  ownCluster: true,
});
const NS = 'default';

function core(): CoreV1Api {
  return cluster().kubeConfig.makeApiClient(CoreV1Api);
}

/** Calls dind's /version with the client certificate, then without one; prints one RESULT line. */
const VERSION_CALL = `
const https = require('node:https');
const fs = require('node:fs');
const tls = (file) => fs.readFileSync('${CLIENT_TLS_DIR}/' + file);
const base = { host: process.env.DIND_HOST, port: ${DIND_PORT}, path: '/version', ca: tls('ca.crt') };
const get = (options) => new Promise((resolve) => {
  https.get(options, (res) => {
    let body = '';
    res.on('data', (chunk) => (body += chunk));
    res.on('end', () => resolve({ status: res.statusCode, body }));
  }).on('error', (err) => resolve({ error: err.code || err.message }));
});
(async () => {
  const withCert = await get({ ...base, cert: tls('client.crt'), key: tls('client.key') });
  const withoutCert = await get(base);
  console.log('RESULT ' + JSON.stringify({ withCert, withoutCert }));
})();
`;

test('the node is Ready and a pod on the pod network runs, with its logs readable', async () => {
  assert.equal(cluster().mode, 'node');
  const node = await core().readNode({ name: cluster().nodeName ?? '' });
  assert.ok(node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
  await core().createNamespacedPod({
    namespace: NS,
    body: clientPod('hello', {
      image: CLUSTER_IMAGES.busybox,
      command: ['sh', '-c', 'echo "hello from $(hostname)"; sleep 3600'],
    }),
  });
  const pod = await waitForPod(core(), NS, 'hello', { phases: ['Running'] });
  const subnetPrefix = (cluster().podSubnet ?? '').split('.').slice(0, 3).join('.');
  assert.ok(
    pod.status?.podIP?.startsWith(`${subnetPrefix}.`),
    `pod IP ${pod.status?.podIP} in ${cluster().podSubnet}`,
  );
  let logs = '';
  for (let i = 0; i < 50 && !logs.includes('hello'); i++) {
    logs = await core().readNamespacedPodLog({ name: 'hello', namespace: NS });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(logs.trim(), 'hello from hello');
});

test('an engine-image pod calls a privileged dind pod over mutual TLS on the pod network', async () => {
  const temp = await makeTempDir('sluice-dind-tls-');
  try {
    const tls = await createDindTls(temp.path, 'smoke');
    await core().createNamespacedSecret({ namespace: NS, body: tls.caSecret });
    await core().createNamespacedSecret({ namespace: NS, body: tls.clientSecret });
  } finally {
    await temp.cleanup();
  }
  await core().createNamespacedPod({
    namespace: NS,
    body: dindPod('dind', { image: CLUSTER_IMAGES.dind, caSecretName: 'smoke-ca' }),
  });
  const dind = await waitForPod(core(), NS, 'dind', {
    phases: ['Running'],
    ready: true,
    timeoutMs: 90_000,
  });
  const dindIp = dind.status?.podIP ?? '';
  await core().createNamespacedPod({
    namespace: NS,
    body: clientPod('engine', {
      image: CLUSTER_IMAGES.engine,
      command: ['sh', '-c', 'sluice --help && node -e "$VERSION_CALL"'],
      clientSecretName: 'smoke-client',
      env: { DIND_HOST: dindIp, VERSION_CALL },
    }),
  });
  await waitForPod(core(), NS, 'engine', { phases: ['Succeeded'], timeoutMs: 60_000 });
  const logs = await core().readNamespacedPodLog({ name: 'engine', namespace: NS });
  assert.match(logs, /Usage: sluice/);
  const line = logs.split('\n').find((l) => l.startsWith('RESULT ')) ?? 'RESULT {}';
  const result = JSON.parse(line.slice('RESULT '.length)) as {
    withCert?: { status?: number; body?: string };
    withoutCert?: { status?: number; error?: string };
  };
  assert.equal(result.withCert?.status, 200, logs);
  const version = JSON.parse(result.withCert?.body ?? '{}') as {
    Version?: string;
    ApiVersion?: string;
  };
  assert.match(version.Version ?? '', /^20\.10\./);
  assert.ok(
    result.withoutCert?.error !== undefined,
    `a client without a certificate got ${JSON.stringify(result.withoutCert)}`,
  );
});

/** In-cluster config by hand: the Service variables, the ServiceAccount's token and CA. */
const IN_CLUSTER_CALL = `
const https = require('node:https');
const fs = require('node:fs');
const sa = '/var/run/secrets/kubernetes.io/serviceaccount/';
const host = process.env.KUBERNETES_SERVICE_HOST;
const port = process.env.KUBERNETES_SERVICE_PORT;
const get = (path) => new Promise((resolve) => {
  const headers = { authorization: 'Bearer ' + fs.readFileSync(sa + 'token', 'utf8') };
  https.get({ host, port, path, headers, ca: fs.readFileSync(sa + 'ca.crt') }, (res) => {
    let body = '';
    res.on('data', (chunk) => (body += chunk));
    res.on('end', () => resolve({ status: res.statusCode, body }));
  }).on('error', (err) => resolve({ error: err.code || err.message }));
});
(async () => {
  const version = await get('/version');
  const pods = await get('/api/v1/namespaces/kube-system/pods');
  console.log('RESULT ' + JSON.stringify({ host, port, version, pods }));
})();
`;

test('a pod reaches the API server through the kubernetes Service with its ServiceAccount', async () => {
  await core().createNamespacedPod({
    namespace: NS,
    body: clientPod('in-cluster', {
      image: CLUSTER_IMAGES.engine,
      command: ['node', '-e', IN_CLUSTER_CALL],
    }),
  });
  await waitForPod(core(), NS, 'in-cluster', { phases: ['Succeeded'], timeoutMs: 60_000 });
  const logs = await core().readNamespacedPodLog({ name: 'in-cluster', namespace: NS });
  const line = logs.split('\n').find((l) => l.startsWith('RESULT ')) ?? 'RESULT {}';
  const result = JSON.parse(line.slice('RESULT '.length)) as {
    host?: string;
    port?: string;
    version?: { status?: number; body?: string };
    pods?: { status?: number; body?: string };
  };
  assert.equal(result.host, '10.96.0.1', logs);
  assert.equal(result.port, '443');
  assert.equal(result.version?.status, 200, logs);
  assert.match(result.version?.body ?? '', /"gitVersion": "v1\.20\.2"/);
  // Authenticated as the pod's ServiceAccount (not anonymous), which RBAC gives nothing.
  assert.equal(result.pods?.status, 403, logs);
  assert.match(result.pods?.body ?? '', /system:serviceaccount:default:default/);
});

test('stopping the cluster leaves no process, mount, bridge, iptables rule, cgroup or directory', async () => {
  await cluster().stop();
  assert.deepEqual(await cluster().leftovers(), []);
});
