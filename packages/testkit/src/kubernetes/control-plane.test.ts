import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiserverArgs, controllerManagerArgs, etcdArgs, schedulerArgs } from './control-plane.js';
import type { ControlPlaneLayout } from './control-plane.js';
import type { KubePki } from './kube-pki.js';

const files = (name: string) => ({ cert: `/p/${name}.crt`, key: `/p/${name}.key` });
const pki: KubePki = {
  dir: '/p',
  ca: files('ca'),
  apiserver: files('apiserver'),
  apiserverKubeletClient: files('apiserver-kubelet-client'),
  kubelet: files('kubelet'),
  frontProxyCa: files('front-proxy-ca'),
  frontProxyClient: files('front-proxy-client'),
  serviceAccount: { key: '/p/sa.key', pub: '/p/sa.pub' },
  tokensFile: '/p/tokens.csv',
  tokens: { admin: 'a', controllerManager: 'c', scheduler: 's', node: 'n', proxy: 'p' },
};
const layout: ControlPlaneLayout = {
  dir: '/d',
  logsDir: '/d-logs',
  pki,
  etcdBinary: '/usr/bin/etcd',
  kubeconfigs: { controllerManager: '/d/cm.kubeconfig', scheduler: '/d/s.kubeconfig' },
};
const ports = { etcdClient: 40001, etcdPeer: 40002, apiserver: 40003 };

test('etcd listens on loopback only, on the chosen ports', () => {
  const args = etcdArgs(layout, ports);
  assert.ok(args.includes('--listen-client-urls=http://127.0.0.1:40001'));
  assert.ok(args.includes('--listen-peer-urls=http://127.0.0.1:40002'));
  assert.ok(args.includes('--data-dir=/d/etcd'));
});

test('the apiserver is secure-only on every address (pods reach it), Node+RBAC, and reaches kubelets by hostname', () => {
  const args = apiserverArgs(layout, ports);
  for (const flag of [
    '--bind-address=0.0.0.0',
    '--secure-port=40003',
    '--insecure-port=0',
    '--etcd-servers=http://127.0.0.1:40001',
    '--authorization-mode=Node,RBAC',
    '--enable-admission-plugins=NodeRestriction',
    '--allow-privileged=true',
    '--token-auth-file=/p/tokens.csv',
    '--kubelet-preferred-address-types=Hostname,InternalIP',
    '--requestheader-client-ca-file=/p/front-proxy-ca.crt',
  ]) {
    assert.ok(args.includes(flag), `missing ${flag}`);
  }
});

test('the controller-manager and scheduler open no ports and do not elect leaders', () => {
  for (const args of [controllerManagerArgs(layout), schedulerArgs(layout)]) {
    assert.ok(args.includes('--port=0'));
    assert.ok(args.includes('--secure-port=0'));
    assert.ok(args.includes('--leader-elect=false'));
  }
  const cm = controllerManagerArgs(layout);
  assert.ok(cm.includes('--service-account-private-key-file=/p/sa.key'));
  assert.ok(cm.includes('--use-service-account-credentials=true'));
  assert.ok(cm.includes('--enable-hostpath-provisioner=true'), 'a real dynamic provisioner');
});
