/**
 * What the probes answer: `/healthz` (liveness: the process serves requests) and `/readyz`
 * (readiness: the database answers; 503 with the reason while it does not).
 * @module
 */
import { z } from 'zod';

export const Liveness = z.object({ ok: z.literal(true) });

export const Readiness = z.object({
  ready: z.boolean().describe('true when the server can serve requests that need the database'),
  reason: z.string().describe('Why it is or is not ready, for people'),
  database: z.object({
    kind: z.enum(['pglite', 'postgres']),
    ok: z.boolean(),
    /** How long the check query took; absent when it failed. */
    latencyMs: z.number().optional(),
    /** The error code when the check failed, e.g. SLUICE_DB_UNAVAILABLE; never driver text. */
    code: z.string().optional(),
  }),
});
export type Readiness = z.infer<typeof Readiness>;
