import { expect, test } from 'vitest';
import type { Cluster } from '@sluice/protocol';
import { kindText, namespacesText, parseProjects, projectsText } from './cluster-text.js';

const BASE: Cluster = {
  name: 'prod',
  kind: 'kubeconfig',
  server: 'https://prod.example:6443',
  namespace: null,
  hasCredentials: true,
  runtime: null,
  serviceAccount: null,
  namespaces: [],
  projects: null,
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
};

test('a kubeconfig cluster: its kind, the default namespace, every project', () => {
  expect(kindText(BASE)).toBe('kubeconfig');
  expect(namespacesText(BASE)).toBe('default');
  expect(projectsText(BASE)).toBe('every project');
  expect(projectsText({ ...BASE, projects: ['web', 'api'] })).toBe('web, api');
});

test('a cluster behind the firewall names its runtime and the namespaces it was granted', () => {
  const cluster: Cluster = {
    ...BASE,
    kind: 'behind-firewall',
    runtime: 'edge',
    namespace: 'apps',
    namespaces: ['apps', 'jobs'],
  };
  expect(kindText(cluster)).toBe('behind the firewall of runtime edge');
  expect(namespacesText(cluster)).toBe('apps (also jobs)');
});

test('projects are comma-separated; none given is every project', () => {
  expect(parseProjects(' web, api ,,')).toEqual(['web', 'api']);
  expect(parseProjects('  ')).toBeUndefined();
});
