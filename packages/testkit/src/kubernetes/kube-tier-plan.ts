/**
 * How the test runner runs a set of kube-tier files on shared clusters, read from each file's
 * `useKubernetes({ ... })` calls before it runs (importing a test file would run its tests):
 * which shared clusters to start, and which files run alone, before them. A file that asks for
 * a node of its own (`ownCluster: true`) runs alone: two nodes cannot run side by side on one
 * machine (kube-proxy's iptables chains and the kernel settings a kubelet rewrites are the
 * machine's). An API-only cluster of a file's own runs beside the shared ones. A call whose
 * options are not written literally could ask for either mode: both shared clusters are started.
 * @module
 */
import { readFile } from 'node:fs/promises';
import type { ClusterMode } from './shared-clusters.js';

export interface KubeTierPlan {
  /** Files to run one at a time before the shared clusters start (each starts its own node). */
  alone: string[];
  /** Files to run while the shared clusters run. */
  shared: string[];
  /** The shared clusters the files of `shared` attach to. */
  modes: ClusterMode[];
  /**
   * The shared clusters each file of `shared` may attach to: once every file of a mode has run,
   * the runner stops that cluster instead of keeping it idle to the tier's end.
   */
  modesOf: Record<string, ClusterMode[]>;
}

/** What one `useKubernetes` call asks for; an undefined mode when it cannot be read. */
export interface KubernetesUse {
  mode: ClusterMode | undefined;
  own: boolean;
}

const CALL = /\buseKubernetes\(/g;
const LITERAL_CALL = /\buseKubernetes\(\s*\{([^{}]*)\}\s*\)/g;

/** The `useKubernetes` calls of a test file's text (TypeScript or the compiled JavaScript). */
export function kubernetesUses(source: string): KubernetesUse[] {
  // Comments may name it too (`useKubernetes()`'s cluster); `://` is a URL's, not a comment.
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  const uses = [...text.matchAll(LITERAL_CALL)].map(([, body = '']): KubernetesUse => {
    const nodes = /\bnodes\s*:\s*(true|false)\b/.exec(body)?.[1];
    return {
      mode: nodes === undefined ? undefined : nodes === 'true' ? 'node' : 'api-only',
      own: /\bownCluster\s*:\s*true\b/.test(body),
    };
  });
  const unread = [...text.matchAll(CALL)].length - uses.length;
  for (let i = 0; i < unread; i++) uses.push({ mode: undefined, own: false });
  // A file that calls it through a helper of its own: anything may be asked.
  if (uses.length === 0) uses.push({ mode: undefined, own: false });
  return uses;
}

export function planKubeFiles(files: ReadonlyMap<string, string>): KubeTierPlan {
  const plan: KubeTierPlan = { alone: [], shared: [], modes: [], modesOf: {} };
  const modes = new Set<ClusterMode>();
  for (const [file, text] of files) {
    const uses = kubernetesUses(text);
    if (uses.some((use) => use.own && use.mode !== 'api-only')) {
      plan.alone.push(file);
      continue;
    }
    plan.shared.push(file);
    const own = new Set<ClusterMode>();
    for (const use of uses.filter((u) => !u.own)) {
      if (use.mode !== 'node') own.add('api-only');
      if (use.mode !== 'api-only') own.add('node');
    }
    plan.modesOf[file] = [...own].sort();
    for (const mode of own) modes.add(mode);
  }
  plan.modes = (['api-only', 'node'] as const).filter((mode) => modes.has(mode));
  return plan;
}

/** The plan for test files on disk, in their order. */
export async function planKubeTier(files: readonly string[]): Promise<KubeTierPlan> {
  const texts = new Map<string, string>();
  for (const file of files) texts.set(file, await readFile(file, 'utf8'));
  return planKubeFiles(texts);
}
