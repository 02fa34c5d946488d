/**
 * Size limits on free-form text the API stores: without them a 100k-character step name or a
 * 1 MB string in a runtime spec is accepted, stored and sent to every reader. Each is refused
 * with 400 `SLUICE_REQUEST_INVALID` naming the field (docs/limits.md lists them).
 * @module
 */
import { z } from 'zod';

export const LIMITS = {
  /** A step's name in engine events and approvals, in characters (pipelines allow 128, and
   * expansion such as a matrix adds suffixes). */
  stepName: 1024,
  /** The version an agent reports, in characters. */
  agentVersion: 100,
  /** Any one string (key or value) in a runtime environment spec or patch, in characters. */
  runtimeSpecString: 65_536,
  /** A runtime environment spec or patch as JSON, in characters. */
  runtimeSpecJson: 262_144,
  /** A pipeline's YAML, in bytes (UTF-8): refused with 413 before it is parsed. */
  pipelineYamlBytes: 1_048_576,
  /** Problems listed in a 422 for a document (the count says how many there were). */
  documentIssues: 50,
  /** An annotation's key (post-step `annotations`/`metadata`), in characters. */
  annotationKey: 256,
  /** An annotation's value when it is text, in characters. */
  annotationValue: 4096,
  /** Annotations one entity (the build, or one image) may hold. */
  annotationsPerEntity: 100,
  /** Images a build may keep annotations for. */
  annotatedImages: 50,
} as const;

/** What a document of `chars` characters may take as a JSON string: escaping at most doubles it. */
function documentBody(chars: number): number {
  return 2 * chars + 64 * 1024;
}

/**
 * Request bodies, in bytes as received: a route that carries no document takes the default;
 * the larger ones are named here (docs/limits.md lists each route's). A body over its route's
 * limit is refused with 413 `SLUICE_REQUEST_TOO_LARGE` naming the limit, before it is read.
 */
export const BODY_LIMITS = {
  /** Every route not named below. */
  default: 64 * 1024,
  /** Triggers and pipeline variables: free-form variables (a certificate or two). */
  variables: 256 * 1024,
  /** An agent's heartbeat: the health of each of its runtimes. */
  agentStatus: 256 * 1024,
  /** A pipeline's YAML (1 MiB) as a JSON string: create, update, validate, run once, a repository's. */
  pipeline: documentBody(LIMITS.pipelineYamlBytes),
  /** A step-type document (1,000,000 characters) as a JSON string. */
  stepType: documentBody(1_000_000),
  /** A runtime environment spec or patch (262,144 characters of JSON), or a kubeconfig. */
  runtimeSpec: documentBody(LIMITS.runtimeSpecJson),
  /** An engine's log chunk or events: up to 1 MiB of lines and one line of 1 MiB, escaped. */
  engineReport: 8 * 1024 * 1024,
  /** A git host's webhook delivery: GitHub caps its payloads at 25 MB. */
  webhook: 25 * 1024 * 1024,
} as const;

export const StepName = z
  .string()
  .min(1)
  .max(LIMITS.stepName)
  .describe(`A step's name, at most ${LIMITS.stepName} characters`);

/** Adds an issue at the path of each string (key or value) in `value` longer than `max`. */
function checkStrings(
  value: unknown,
  max: number,
  path: (string | number)[],
  ctx: z.RefinementCtx,
) {
  if (typeof value === 'string') {
    if (value.length > max)
      ctx.addIssue({ code: 'custom', path, message: `Longer than ${max} characters` });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => checkStrings(item, max, [...path, i], ctx));
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.length > max)
        ctx.addIssue({ code: 'custom', path, message: `A key is longer than ${max} characters` });
      else checkStrings(item, max, [...path, key], ctx);
    }
  }
}

/** A JSON object whose strings and total size are bounded (runtime environment specs). */
export function boundedObject(limits: { string: number; json: number }) {
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const size = JSON.stringify(value).length;
    if (size > limits.json) {
      ctx.addIssue({
        code: 'custom',
        message: `Larger than ${limits.json} characters as JSON (${size})`,
      });
      return;
    }
    checkStrings(value, limits.string, [], ctx);
  });
}
