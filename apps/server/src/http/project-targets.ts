/**
 * Which project a request is about, read from its route's path parameters: a route that names a
 * project, a pipeline, a build or a trigger is about that thing's project, and a user limited to
 * some projects may call it only for one of theirs (docs/access.md). Derived from the route
 * table, so a new route with one of these parameters is checked without being listed.
 * @module
 */

/** The path parameters that name something of one project, and what each names. */
export const PROJECT_PARAMS = {
  project: 'project',
  pipelineId: 'pipeline',
  buildId: 'build',
  triggerId: 'trigger',
} as const;

export type ProjectTarget = {
  kind: (typeof PROJECT_PARAMS)[keyof typeof PROJECT_PARAMS];
  /** A project's name; a pipeline's, build's or trigger's id. */
  key: string;
};

/** The thing a request's params name whose project decides, or undefined. */
export function projectTargetOf(params: unknown): ProjectTarget | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  for (const [param, kind] of Object.entries(PROJECT_PARAMS)) {
    const value = (params as Record<string, unknown>)[param];
    if (typeof value === 'string') return { kind, key: value };
  }
  return undefined;
}
