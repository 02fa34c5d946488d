/**
 * The pipeline's graph on the build page: each step a box with its name, title and live status,
 * arrows where one waits for another, stages and blocks as labelled boxes around their steps (a
 * block says whether its steps run in parallel or in order). A step is a
 * link to its log section (`#step-<name>`); the graph scrolls sideways inside its own box on a
 * narrow screen.
 * @module
 */
import { useMemo } from 'react';
import type { BuildStep } from '@sluice/protocol';
import { NODE_HEIGHT, NODE_WIDTH, layoutGraph } from './pipeline-graph.js';

export function PipelineGraphView({ steps }: { steps: readonly BuildStep[] }) {
  // Laid out again only when the shape changes, not with every status the poll brings.
  const shape = steps
    .map((s) => `${s.name}/${s.parent ?? ''}/${s.stage ?? ''}/${s.block ?? ''}`)
    .join(',');
  const graph = useMemo(() => layoutGraph(steps), [shape]);
  const byName = new Map(steps.map((s) => [s.name, s]));
  if (graph.nodes.length === 0) return null;
  return (
    <div className="pipeline-graph">
      <svg
        width={graph.width}
        height={graph.height}
        viewBox={`0 0 ${graph.width} ${graph.height}`}
        role="group"
        aria-label="Pipeline graph"
      >
        <defs>
          <marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="8" markerHeight="8">
            <path d="M0,0 L8,4 L0,8 z" className="graph-arrow" />
          </marker>
        </defs>
        {[...graph.stages, ...graph.blocks].map((box) => (
          <g
            key={`${box.kind}:${box.name}`}
            className={box.kind === 'stage' ? 'graph-stage' : 'graph-block'}
            data-stage={box.kind === 'stage' ? box.name : undefined}
            data-block={box.kind === 'stage' ? undefined : box.name}
            data-runs={box.kind === 'stage' ? undefined : box.kind}
          >
            <rect
              x={box.x - box.width / 2}
              y={box.y - box.height / 2}
              width={box.width}
              height={box.height}
              rx={8}
            />
            <text x={box.x - box.width / 2 + 8} y={box.y - box.height / 2 + 14}>
              {box.kind === 'stage' ? box.name : `${box.name} · ${RUNS[box.kind]}`}
            </text>
          </g>
        ))}
        {graph.edges.map((edge) => (
          <polyline
            key={`${edge.from}>${edge.to}`}
            className="graph-edge"
            data-edge={`${edge.from}>${edge.to}`}
            points={edge.points.map((p) => `${p.x},${p.y}`).join(' ')}
            markerEnd="url(#arrow)"
          />
        ))}
        {graph.nodes.map(({ step: planned, x, y }) => {
          const step = byName.get(planned.name) ?? planned;
          const label = step.title ?? step.name;
          return (
            <a
              key={step.name}
              href={`#step-${step.name}`}
              className={`graph-node status-${step.status}`}
              data-step={step.name}
              data-status={step.status}
            >
              <rect
                x={x - NODE_WIDTH / 2}
                y={y - NODE_HEIGHT / 2}
                width={NODE_WIDTH}
                height={NODE_HEIGHT}
                rx={6}
              />
              <text x={x - NODE_WIDTH / 2 + 10} y={y - 4} className="graph-name">
                {clip(label)}
              </text>
              <text x={x - NODE_WIDTH / 2 + 10} y={y + 13} className="graph-status">
                {step.status}
              </text>
            </a>
          );
        })}
      </svg>
    </div>
  );
}

const RUNS = { parallel: 'in parallel', sequential: 'in order' } as const;

function clip(text: string): string {
  return text.length > 22 ? `${text.slice(0, 21)}…` : text;
}
