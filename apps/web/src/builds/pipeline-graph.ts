/**
 * A build's steps as a graph to draw: a node per step that runs, an edge where one waits for
 * another, blocks (parallel blocks, typed steps' groups, nested to any depth) as boxes around
 * their steps, and the stages as boxes around theirs; laid out by dagre (`@dagrejs/dagre`), left
 * to right.
 * Edges: a step's `when.steps` (its `needs`) where it has them; else the top-level steps run in
 * order, each after the previous one's last steps (a block's steps no sibling waits for), a
 * parallel block's steps start together when it starts, and a sequential group's steps run one
 * after another, the first when the group starts. When a top-level step has `needs` the
 * pipeline runs as a DAG (`mode: parallel`), and a top-level step without them starts at once.
 * A block of an older build, whose rows do not say how it runs, is drawn as parallel.
 * @module
 */
import { Graph, layout } from '@dagrejs/dagre';
import type { EdgeLabel, GraphLabel, NodeLabel } from '@dagrejs/dagre';
import type { BuildStep } from '@sluice/protocol';

export const NODE_WIDTH = 168;
export const NODE_HEIGHT = 44;

export interface GraphNode {
  step: BuildStep;
  x: number;
  y: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  points: { x: number; y: number }[];
}

export interface GraphBox {
  name: string;
  /** `stage`, or how a block's steps run. */
  kind: 'stage' | 'parallel' | 'sequential';
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PipelineGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  stages: GraphBox[];
  /** Blocks, outer ones first (so inner ones are drawn over them). */
  blocks: GraphBox[];
  width: number;
  height: number;
}

/** Which step waits for which: `[from, to]` pairs, by step name. */
export function graphEdges(steps: readonly BuildStep[]): [string, string][] {
  const blocks = new Set(steps.flatMap((s) => (s.parent === null ? [] : [s.parent])));
  const childrenOf = (name: string) => steps.filter((s) => s.parent === name);
  const sequential = (name: string) => steps.find((s) => s.name === name)?.block === 'sequential';
  // A block is left at its last step when it runs in order, else at its steps no sibling waits for.
  const exits = (name: string): string[] => {
    if (!blocks.has(name)) return [name];
    const children = childrenOf(name);
    if (sequential(name)) return exits(children[children.length - 1]?.name ?? name);
    const needed = new Set(children.flatMap((c) => c.needs.map((n) => n.step)));
    return children.filter((c) => !needed.has(c.name)).flatMap((c) => exits(c.name));
  };
  const edges: [string, string][] = [];
  const visit = (list: readonly BuildStep[], before: readonly string[], parallel: boolean) => {
    const dag = parallel || list.some((s) => s.needs.length > 0);
    let previous = before;
    for (const step of list) {
      const after = step.needs.length > 0 ? step.needs.flatMap((n) => exits(n.step)) : previous;
      if (blocks.has(step.name)) visit(childrenOf(step.name), after, !sequential(step.name));
      else for (const source of after) edges.push([source, step.name]);
      if (!dag) previous = exits(step.name);
    }
  };
  const top = steps.filter((s) => s.parent === null || !steps.some((p) => p.name === s.parent));
  visit(top, [], false);
  const known = new Set(steps.map((s) => s.name));
  return edges.filter(([from, to]) => known.has(from) && known.has(to) && from !== to);
}

export function layoutGraph(steps: readonly BuildStep[]): PipelineGraph {
  const ordered = [...steps].sort((a, b) => a.position - b.position);
  const byName = new Map(ordered.map((s) => [s.name, s]));
  const blockNames = new Set(ordered.flatMap((s) => (s.parent === null ? [] : [s.parent])));
  const blocks = ordered.filter((s) => blockNames.has(s.name));
  const drawn = ordered.filter((s) => !blockNames.has(s.name));
  const graph = new Graph<GraphLabel, NodeLabel, EdgeLabel>({ compound: true, multigraph: false });
  graph.setGraph({ rankdir: 'LR', nodesep: 16, ranksep: 40, marginx: 8, marginy: 8 });
  graph.setDefaultEdgeLabel(() => ({}));
  // A step sits in its block's box; a top-level step or block in its stage's.
  const boxOf = (step: BuildStep): string | undefined =>
    step.parent !== null && byName.has(step.parent)
      ? `block:${step.parent}`
      : step.stage === null
        ? undefined
        : `stage:${step.stage}`;
  const outer = [...drawn, ...blocks].filter((s) => !(s.parent !== null && byName.has(s.parent)));
  const stages = [...new Set(outer.flatMap((s) => (s.stage === null ? [] : [s.stage])))];
  for (const stage of stages) graph.setNode(`stage:${stage}`, { width: 0, height: 0 });
  for (const block of blocks) graph.setNode(`block:${block.name}`, { width: 0, height: 0 });
  for (const step of drawn) graph.setNode(step.name, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const step of [...blocks, ...drawn]) {
    const box = boxOf(step);
    const node = blockNames.has(step.name) ? `block:${step.name}` : step.name;
    if (box !== undefined) graph.setParent(node, box);
  }
  for (const [from, to] of graphEdges(ordered)) graph.setEdge(from, to);
  layout(graph);
  const nodes = drawn.map((step) => {
    const { x = 0, y = 0 } = graph.node(step.name);
    return { step, x, y };
  });
  const edges = graph.edges().map((e) => ({
    from: e.v,
    to: e.w,
    points: graph.edge(e).points ?? [],
  }));
  const box = (id: string, name: string, kind: GraphBox['kind']): GraphBox => {
    const { x = 0, y = 0, width, height } = graph.node(id);
    return { name, kind, x, y, width, height };
  };
  const size = graph.graph();
  return {
    nodes,
    edges,
    stages: stages.map((name) => box(`stage:${name}`, name, 'stage')),
    blocks: blocks.map((b) =>
      box(`block:${b.name}`, b.name, b.block === 'sequential' ? 'sequential' : 'parallel'),
    ),
    width: size.width ?? 0,
    height: size.height ?? 0,
  };
}
