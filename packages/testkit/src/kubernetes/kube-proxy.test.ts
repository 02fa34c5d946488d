import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bridgeAddress, kubeProxyArgs, kubernetesEndpoints } from './kube-proxy.js';

test('kube-proxy runs in iptables mode for the pod range, touching no machine-wide setting', () => {
  const args = kubeProxyArgs({
    kubeconfig: '/c/kube-proxy.kubeconfig',
    podSubnet: '10.244.7.0/24',
    healthzPort: 41001,
    metricsPort: 41002,
  });
  for (const flag of [
    '--proxy-mode=iptables',
    '--cluster-cidr=10.244.7.0/24',
    '--hostname-override=localhost',
    '--healthz-bind-address=127.0.0.1:41001',
    '--metrics-bind-address=127.0.0.1:41002',
    '--oom-score-adj=0',
    '--conntrack-max-per-core=0',
    '--conntrack-tcp-timeout-established=0',
    '--nodeport-addresses=10.244.7.0/24',
  ])
    assert.ok(args.includes(flag), `missing ${flag}`);
});

test('the kubernetes Service points at the apiserver on the bridge address', () => {
  assert.equal(bridgeAddress('10.244.7.0/24'), '10.244.7.1');
  assert.deepEqual(kubernetesEndpoints('10.244.7.1', 40003), {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'kubernetes', namespace: 'default' },
    subsets: [
      {
        addresses: [{ ip: '10.244.7.1' }],
        ports: [{ name: 'https', port: 40003, protocol: 'TCP' }],
      },
    ],
  });
});
