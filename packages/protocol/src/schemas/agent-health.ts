/**
 * The health an agent reports with each heartbeat, bounded: it is stored and sent to every
 * reader of `GET /api/v1/agents`, so a 7 MiB message would be 7 MiB on every listing. What is
 * over a limit is cut, not refused (an agent's heartbeat must not fail because a check said too
 * much), and the cut is marked where a person reads it: a text ends with `TRUNCATION_MARK`, a
 * list of checks ends with a `more-checks` entry counting what was left out, runtimes left out
 * are counted in the agent's message. Cutting twice changes nothing, so a stored health that
 * is read back through the same schema is unchanged.
 * @module
 */
import { z } from 'zod';
import { RuntimeName, Timestamp } from './common.js';

export const HEALTH_LIMITS = {
  /** A message (the agent's, a runtime's, a check's), in characters. */
  text: 1024,
  /** A check's name, in characters. */
  checkName: 100,
  /** Checks in one list (the agent's, or one runtime's), the `more-checks` entry included. */
  checks: 10,
  /** Runtimes in one report. */
  runtimes: 40,
  /** The whole report as JSON, in characters: past it the lists of checks are left out. */
  json: 65_536,
} as const;

export const TRUNCATION_MARK = ' … [truncated]';

/** `text` cut to `max` characters with the mark, never between the halves of a surrogate pair. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - TRUNCATION_MARK.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${TRUNCATION_MARK}`;
}

function boundedText(max: number) {
  return z
    .string()
    .transform((text) => truncateText(text, max))
    .describe(`At most ${max} characters; longer text is cut and ends with "${TRUNCATION_MARK}"`);
}

export const HealthCheck = z.object({
  name: boundedText(HEALTH_LIMITS.checkName).describe(
    'What was checked, e.g. "api-server", "permissions", "docker"',
  ),
  ok: z.boolean(),
  message: boundedText(HEALTH_LIMITS.text)
    .optional()
    .describe('What is wrong and what to do, when not ok'),
});
export type HealthCheck = z.infer<typeof HealthCheck>;

/** The first checks, and one entry saying how many more there were (ok when all of them were). */
function capChecks(checks: HealthCheck[]): HealthCheck[] {
  const max = HEALTH_LIMITS.checks;
  if (checks.length <= max) return checks;
  const rest = checks.slice(max - 1);
  return [
    ...checks.slice(0, max - 1),
    {
      name: 'more-checks',
      ok: rest.every((check) => check.ok),
      message: `${rest.length} more checks were left out (a report keeps ${max})`,
    },
  ];
}

const HealthChecks = z
  .array(HealthCheck)
  .transform(capChecks)
  .describe(`At most ${HEALTH_LIMITS.checks}: past that, the last says how many were left out`);

const PoolCount = z.number().int().min(0).max(1_000_000_000);

/** A Kubernetes runtime's warm pool as its agent last counted it (docs/warm-pool.md). */
export const WarmPoolHealth = z.object({
  waiting: PoolCount.describe('Pods ready for a build'),
  starting: PoolCount.describe('Pods not ready yet'),
  target: PoolCount.describe('The size the pool is being brought to'),
  hits: PoolCount.describe('Builds that took a pool pod since the agent started'),
  misses: PoolCount.describe('Builds that found none ready since the agent started'),
});
export type WarmPoolHealth = z.infer<typeof WarmPoolHealth>;

export const RuntimeHealth = z.object({
  name: RuntimeName,
  healthy: z.boolean(),
  message: boundedText(HEALTH_LIMITS.text).optional(),
  checks: HealthChecks.optional(),
  warmPool: WarmPoolHealth.optional(),
});
export type RuntimeHealth = z.infer<typeof RuntimeHealth>;

const AgentHealthFields = z.object({
  healthy: z.boolean().describe('Every runtime of the agent is healthy'),
  message: boundedText(HEALTH_LIMITS.text).optional(),
  checks: HealthChecks.optional(),
  runtimes: z
    .array(RuntimeHealth)
    .optional()
    .describe(
      `Each runtime's health: API server reachable, permissions present (at most ${HEALTH_LIMITS.runtimes}; the message counts those left out)`,
    ),
  stoppedAt: Timestamp.optional().describe(
    'The last report of an agent that stopped (SIGTERM): offline from then, not a minute later',
  ),
});
type AgentHealthFields = z.output<typeof AgentHealthFields>;

/** Adds `notes` to the end of the agent's message, cutting the message (not the notes) to fit. */
function noted(health: AgentHealthFields, notes: readonly string[]): AgentHealthFields {
  if (notes.length === 0) return health;
  const note = notes.join('; ');
  const room = HEALTH_LIMITS.text - note.length - 2;
  const message =
    health.message === undefined ? note : `${truncateText(health.message, room)}; ${note}`;
  return { ...health, message };
}

/** The report within every limit: runtimes past the count, then checks past the size, left out. */
export function capAgentHealth(health: AgentHealthFields): AgentHealthFields {
  const notes: string[] = [];
  let capped = health;
  const runtimes = capped.runtimes ?? [];
  if (runtimes.length > HEALTH_LIMITS.runtimes) {
    capped = { ...capped, runtimes: runtimes.slice(0, HEALTH_LIMITS.runtimes) };
    notes.push(`${runtimes.length - HEALTH_LIMITS.runtimes} more runtimes were left out`);
  }
  if (JSON.stringify(capped).length > HEALTH_LIMITS.json) {
    const { checks: _agentChecks, ...rest } = capped;
    capped = {
      ...rest,
      runtimes: capped.runtimes?.map(({ checks: _checks, ...runtime }) => runtime),
    };
    notes.push(`the checks were left out: the report was over ${HEALTH_LIMITS.json} characters`);
  }
  return noted(capped, notes);
}

export const AgentHealth = AgentHealthFields.transform(capAgentHealth);
export type AgentHealth = z.infer<typeof AgentHealth>;
