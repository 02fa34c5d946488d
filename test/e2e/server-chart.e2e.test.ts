/**
 * The sluice-server chart, rendered as `helm template` renders it: the embedded database on a
 * claim with one replica (Recreate), PostgreSQL with its URL and the server key from Secrets and
 * any number of replicas, the first admin token from a Secret, the public URL engines are
 * given, an optional Ingress; refusals that name the field; only API versions served from
 * Kubernetes 1.20 to 1.36, and every object valid against the official schemas.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { renderChart } from '@sluice/testkit';
import type { RenderChartOptions } from '@sluice/testkit';
import { REPO_ROOT } from './cli-harness.js';

const CHART = `${REPO_ROOT}charts/sluice-server`;
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  Deployment,
  Ingress,
  PersistentVolumeClaim,
  Service,
  ServiceAccount,
};
const SERVED_EVERYWHERE = new Set(['v1', 'apps/v1', 'networking.k8s.io/v1']);

interface ServerPod {
  strategy?: { type: string };
  replicas: number;
  template: {
    metadata: { annotations?: Record<string, string> };
    spec: {
      automountServiceAccountToken: boolean;
      volumes?: { persistentVolumeClaim?: { claimName: string } }[];
      containers: {
        command: string[];
        env: { name: string; value?: string; valueFrom?: unknown }[];
        ports: { name: string; containerPort: number }[];
        livenessProbe: { httpGet: { path: string } };
        readinessProbe: { httpGet: { path: string } };
      }[];
    };
  };
}

async function render(options: RenderChartOptions) {
  const result = await renderChart(CHART, { release: 'sl', namespace: 'sluice', ...options });
  assert.ok(result.ok, result.ok ? '' : result.error);
  const objects = result.objects as (Record<string, unknown> & {
    kind: string;
    apiVersion: string;
  })[];
  for (const object of objects) {
    assert.ok(SERVED_EVERYWHERE.has(object.apiVersion), `${object.kind} ${object.apiVersion}`);
    const Model = MODELS[object.kind];
    assert.ok(Model !== undefined, object.kind);
    new Model(object as never).validate();
  }
  const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as { spec: ServerPod };
  const env = Object.fromEntries(
    (deployment.spec.template.spec.containers[0]?.env ?? []).map((e) => [
      e.name,
      e.value ?? e.valueFrom,
    ]),
  );
  return { objects, kinds: objects.map((o) => o.kind).sort(), spec: deployment.spec, env };
}

test('by default: the embedded database on a claim, one replica recreated, no API token', async () => {
  const { kinds, spec, env } = await render({});
  assert.deepEqual(kinds, ['Deployment', 'PersistentVolumeClaim', 'Service', 'ServiceAccount']);
  assert.equal(spec.replicas, 1);
  assert.equal(spec.strategy?.type, 'Recreate');
  assert.equal(spec.template.spec.automountServiceAccountToken, false);
  assert.equal(spec.template.spec.volumes?.[0]?.persistentVolumeClaim?.claimName, 'sl-server-data');
  assert.deepEqual(spec.template.spec.containers[0]?.command.slice(-3), [
    'server',
    '--host',
    '0.0.0.0',
  ]);
  assert.deepEqual(env, {
    SLUICE_PORT: '8080',
    SLUICE_PUBLIC_URL: 'http://sl-server.sluice.svc:8080',
    SLUICE_METRICS_PORT: '9464',
    SLUICE_DATA_DIR: '/var/lib/sluice',
  });
});

test('metrics on a port of their own with scrape annotations; probes on /healthz and /readyz', async () => {
  const { spec, objects } = await render({});
  const container = spec.template.spec.containers[0];
  assert.deepEqual(container?.ports, [
    { name: 'http', containerPort: 8080 },
    { name: 'metrics', containerPort: 9464 },
  ]);
  assert.deepEqual(spec.template.metadata.annotations, {
    'prometheus.io/scrape': 'true',
    'prometheus.io/port': '9464',
    'prometheus.io/path': '/metrics',
  });
  assert.equal(container?.livenessProbe.httpGet.path, '/healthz');
  assert.equal(container?.readinessProbe.httpGet.path, '/readyz');
  // The Service exposes the API only.
  const service = objects.find((o) => o.kind === 'Service') as unknown as {
    spec: { ports: { name: string }[] };
  };
  assert.deepEqual(
    service.spec.ports.map((p) => p.name),
    ['http'],
  );

  const off = await render({ values: { metrics: { enabled: false } } });
  assert.equal(off.spec.template.metadata.annotations, undefined);
  assert.equal(off.env.SLUICE_METRICS_PORT, undefined);
  assert.deepEqual(
    off.spec.template.spec.containers[0]?.ports.map((p) => p.name),
    ['http'],
  );
  const refused = await renderChart(CHART, { set: { 'metrics.port': '8080' } });
  assert.equal(refused.ok, false, 'metrics.port 8080 (the API port) was accepted');
});

test('PostgreSQL: URL and key from Secrets, replicas, bootstrap token, Ingress with TLS', async () => {
  const { kinds, spec, env, objects } = await render({
    values: {
      replicas: 3,
      publicUrl: 'https://ci.example.com',
      database: { mode: 'postgres', postgres: { existingSecret: { name: 'db' } } },
      secretKey: { existingSecret: { name: 'keys' } },
      bootstrapToken: { existingSecret: { name: 'admin', key: 'value' } },
      ingress: {
        enabled: true,
        className: 'nginx',
        host: 'ci.example.com',
        tls: { secretName: 'ci-tls' },
      },
      extraEnv: { SLUICE_TASK_LEASE_MS: '30000' },
    },
  });
  assert.deepEqual(kinds, ['Deployment', 'Ingress', 'Service', 'ServiceAccount']);
  assert.equal(spec.replicas, 3);
  assert.equal(spec.strategy, undefined);
  assert.deepEqual(env, {
    SLUICE_PORT: '8080',
    SLUICE_PUBLIC_URL: 'https://ci.example.com',
    SLUICE_METRICS_PORT: '9464',
    DATABASE_URL: { secretKeyRef: { name: 'db', key: 'DATABASE_URL' } },
    SLUICE_SECRET_KEY: { secretKeyRef: { name: 'keys', key: 'SLUICE_SECRET_KEY' } },
    SLUICE_BOOTSTRAP_TOKEN: { secretKeyRef: { name: 'admin', key: 'value' } },
    SLUICE_TASK_LEASE_MS: '30000',
  });
  const ingress = objects.find((o) => o.kind === 'Ingress') as unknown as {
    spec: { ingressClassName: string; tls: { hosts: string[] }[]; rules: { host: string }[] };
  };
  assert.equal(ingress.spec.ingressClassName, 'nginx');
  assert.deepEqual(ingress.spec.tls[0]?.hosts, ['ci.example.com']);
  assert.equal(ingress.spec.rules[0]?.host, 'ci.example.com');
});

test('values that cannot work are refused, naming what to set', async () => {
  const cases: [RenderChartOptions, RegExp][] = [
    [{ set: { replicas: '2' } }, /replicas above 1 need database\.mode: postgres/],
    [
      { set: { 'database.mode': 'postgres' } },
      /database\.postgres\.existingSecret\.name is required/,
    ],
    [
      { set: { 'database.mode': 'postgres', 'database.postgres.existingSecret.name': 'db' } },
      /secretKey\.existingSecret\.name is required/,
    ],
    [{ set: { 'database.mode': 'mysql' } }, /database\.mode must be one of the following/],
    [{ set: { 'ingress.enabled': 'true' } }, /ingress\.host is required/],
    [{ set: { publicUrl: 'ci.example.com' } }, /publicUrl/],
  ];
  for (const [options, expected] of cases) {
    const result = await renderChart(CHART, options);
    assert.equal(result.ok, false, `${JSON.stringify(options)} was accepted`);
    if (!result.ok) assert.match(result.error, expected);
  }
});
