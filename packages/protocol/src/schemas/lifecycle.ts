/**
 * What builds are kept (a pipeline's `retention`) and what a delete removed.
 * @module
 */
import { z } from 'zod';

/** The most days or builds a retention may name: 100 years, ten million builds. */
const MAX_DAYS = 36_500;
const MAX_BUILDS = 10_000_000;

export const Retention = z
  .object({
    days: z
      .number()
      .int()
      .min(1)
      .max(MAX_DAYS)
      .nullable()
      .optional()
      .describe('Finished builds created more than this many days ago are deleted'),
    builds: z
      .number()
      .int()
      .min(1)
      .max(MAX_BUILDS)
      .nullable()
      .optional()
      .describe("Only the pipeline's newest this many builds are kept (finished ones beyond go)"),
  })
  .strict()
  .describe(
    "How long the pipeline's finished builds are kept, with their steps and logs; each limit left out keeps everything on its side. `{}` keeps everything whatever the server's default",
  );
export type Retention = z.infer<typeof Retention>;

/** What a delete removed, or (`dryRun`) would remove. */
export const DeletedData = z.object({
  dryRun: z.boolean().describe('Nothing was deleted: the counts are what would go'),
  pipelines: z.number().int().describe('Pipelines deleted'),
  builds: z.number().int().describe('Builds deleted, with their steps, tasks and approvals'),
  logChunks: z.number().int().describe('Log chunks deleted'),
  logBytes: z.number().int().describe('Bytes of log deleted'),
});
export type DeletedData = z.infer<typeof DeletedData>;

export const DeleteQuery = z.object({
  dryRun: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: delete nothing, answer with what would go'),
});
