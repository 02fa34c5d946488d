/**
 * A build's steps as a graph to draw: a node per step that runs (a parallel block is drawn as
 * its steps), an edge where one waits for another, and the stages as boxes around their steps;
 * laid out by dagre (`@dagrejs/dagre`), left to right.
 * Edges: a step's `when.steps` (its `needs`) where it has them; else the top-level steps run in
 * order, each after the previous one's last steps (a block's steps no sibling waits for), and a
 * block's steps start together when it starts. When a top-level step has `needs` the pipeline
 * runs as a DAG (`mode: parallel`), and a top-level step without them starts at once.
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

export interface GraphStage {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PipelineGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  stages: GraphStage[];
  width: number;
  height: number;
}

/** Which step waits for which: `[from, to]` pairs, by step name. */
export function graphEdges(steps: readonly BuildStep[]): [string, string][] {
  const blocks = new Set(steps.flatMap((s) => (s.parent === null ? [] : [s.parent])));
  const childrenOf = (name: string) => steps.filter((s) => s.parent === name);
  // A block is entered at its steps that wait for no sibling, left at those no sibling waits for.
  const leaves = (name: string): string[] =>
    blocks.has(name) ? childrenOf(name).flatMap((c) => leaves(c.name)) : [name];
  const exits = (name: string): string[] => {
    if (!blocks.has(name)) return [name];
    const children = childrenOf(name);
    const needed = new Set(children.flatMap((c) => c.needs.map((n) => n.step)));
    return children.filter((c) => !needed.has(c.name)).flatMap((c) => exits(c.name));
  };
  const edges: [string, string][] = [];
  const link = (from: readonly string[], to: string) => {
    for (const target of leaves(to)) for (const source of from) edges.push([source, target]);
  };
  const visit = (list: readonly BuildStep[], before: readonly string[], parallel: boolean) => {
    const dag = parallel || list.some((s) => s.needs.length > 0);
    let previous = before;
    for (const step of list) {
      const after = step.needs.length > 0 ? step.needs.flatMap((n) => exits(n.step)) : previous;
      if (blocks.has(step.name)) visit(childrenOf(step.name), after, true);
      else link(after, step.name);
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
  const blocks = new Set(ordered.flatMap((s) => (s.parent === null ? [] : [s.parent])));
  const drawn = ordered.filter((s) => !blocks.has(s.name));
  const graph = new Graph<GraphLabel, NodeLabel, EdgeLabel>({ compound: true, multigraph: false });
  graph.setGraph({ rankdir: 'LR', nodesep: 16, ranksep: 40, marginx: 8, marginy: 8 });
  graph.setDefaultEdgeLabel(() => ({}));
  const stages = [...new Set(drawn.flatMap((s) => (s.stage === null ? [] : [s.stage])))];
  for (const stage of stages) graph.setNode(`stage:${stage}`, { width: 0, height: 0 });
  for (const step of drawn) {
    graph.setNode(step.name, { width: NODE_WIDTH, height: NODE_HEIGHT });
    if (step.stage !== null) graph.setParent(step.name, `stage:${step.stage}`);
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
  const boxes = stages.map((name) => {
    const { x = 0, y = 0, width, height } = graph.node(`stage:${name}`);
    return { name, x, y, width, height };
  });
  const size = graph.graph();
  return {
    nodes,
    edges,
    stages: boxes,
    width: size.width ?? 0,
    height: size.height ?? 0,
  };
}
