import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRepoRoot } from '../repo-root.js';
import { kubernetesUses, planKubeFiles } from './kube-tier-plan.js';

test('the options of a literal call are read, in TypeScript and as tsc compiles it', () => {
  assert.deepEqual(kubernetesUses('const cluster = useKubernetes({ nodes: false });'), [
    { mode: 'api-only', own: false },
  ]);
  const compiled = [
    'const cluster = useKubernetes({',
    '    nodes: true,',
    '    images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind],',
    '    ownCluster: true,',
    '});',
  ].join('\n');
  assert.deepEqual(kubernetesUses(compiled), [{ mode: 'node', own: true }]);
});

test('a call whose options are not literal, or no call at all, could ask for either mode', () => {
  assert.deepEqual(kubernetesUses('const cluster = useKubernetes(options);'), [
    { mode: undefined, own: false },
  ]);
  assert.deepEqual(kubernetesUses('import { startKubernetes } from "@sluice/testkit";'), [
    { mode: undefined, own: false },
  ]);
});

test('comments naming it are not calls; a URL is not a comment', () => {
  const text = [
    "/** What the fixtures need of `useKubernetes()`'s cluster. */",
    '// useKubernetes({ nodes: true }) would start a node',
    "const url = 'https://example.test'; const cluster = useKubernetes({ nodes: false });",
  ].join('\n');
  assert.deepEqual(kubernetesUses(text), [{ mode: 'api-only', own: false }]);
});

test('a node of its own runs alone; an API-only cluster of its own beside the shared ones', () => {
  const plan = planKubeFiles(
    new Map([
      ['a.kube.test.js', 'useKubernetes({ nodes: false })'],
      ['b.kube.test.js', 'useKubernetes({ nodes: true, ownCluster: true })'],
      ['c.kube.test.js', 'useKubernetes({ nodes: false, ownCluster: true })'],
      ['d.kube.test.js', 'useKubernetes({ nodes: true, images: [x] })'],
    ]),
  );
  assert.deepEqual(plan, {
    alone: ['b.kube.test.js'],
    shared: ['a.kube.test.js', 'c.kube.test.js', 'd.kube.test.js'],
    modes: ['api-only', 'node'],
    // c's cluster is its own: it needs no shared one, and does not keep one running.
    modesOf: { 'a.kube.test.js': ['api-only'], 'c.kube.test.js': [], 'd.kube.test.js': ['node'] },
  });
  assert.deepEqual(planKubeFiles(new Map([['a', 'useKubernetes({ nodes: false })']])).modes, [
    'api-only',
  ]);
  const unread = planKubeFiles(new Map([['a', 'useKubernetes(options)']]));
  assert.deepEqual(unread.modes, ['api-only', 'node']);
  assert.deepEqual(unread.modesOf, { a: ['api-only', 'node'] });
});

/** The repository's kube-tier sources, relative to its root. */
function kubeTestFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (['node_modules', 'dist'].includes(entry.name) || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.kube.test.ts')) found.push(path);
    }
  };
  for (const group of ['packages', 'apps', 'test']) walk(group);
  return found.sort();
}

test("the repository's kube files: every mode is read, and only the node smoke test runs alone", () => {
  const root = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
  assert.ok(root !== undefined);
  const files = kubeTestFiles(root);
  assert.ok(files.length >= 15, files.join(' '));
  const texts = new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8')]));
  for (const [file, text] of texts)
    for (const use of kubernetesUses(text)) assert.notEqual(use.mode, undefined, file);
  const plan = planKubeFiles(texts);
  assert.deepEqual(plan.alone, ['packages/testkit/src/kubernetes/node.kube.test.ts']);
  assert.deepEqual(plan.modes, ['api-only', 'node']);
});
