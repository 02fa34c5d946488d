/**
 * The standby hand-off between a runner agent and the engines of its local runtime, written
 * once for both sides: the agent starts `sluice engine` ahead of its build with an IPC channel
 * and `SLUICE_ENGINE_SLOT` in its environment (apps/runner's engine-standby.ts); the engine
 * loads, says `ready`, and waits for a `build` message carrying its build's environment
 * (apps/engine's main.ts). Pure: the messages and how each side reads the other's.
 * @module
 */

/** The variable that marks a standby engine: a random slot, recorded in its build's pid file. */
export const ENGINE_SLOT_VARIABLE = 'SLUICE_ENGINE_SLOT';

/** The standby engine listens on its channel: a build may be sent (one sent before is lost). */
export interface StandbyReadyMessage {
  type: 'ready';
}

/** What an agent sends its standby engine: the variables of one build's engine. */
export interface StandbyBuildMessage {
  type: 'build';
  env: Record<string, string>;
}

export const STANDBY_READY: StandbyReadyMessage = { type: 'ready' };

export function standbyBuildMessage(env: Record<string, string>): StandbyBuildMessage {
  return { type: 'build', env };
}

/** Whether `message` (from a standby's channel) says it is ready. */
export function isStandbyReady(message: unknown): boolean {
  return (message as { type?: unknown } | null)?.type === 'ready';
}

/** Whether an engine's environment marks it as a standby (its agent set a slot). */
export function isStandbyEngine(env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(env[ENGINE_SLOT_VARIABLE]);
}

/**
 * The environment a `build` message hands over, its string values only; a malformed message
 * hands over nothing (the engine's configuration then names what is missing).
 */
export function handedOverEnv(message: unknown): Record<string, string> {
  if (typeof message !== 'object' || message === null) return {};
  const { type, env } = message as Partial<StandbyBuildMessage>;
  if (type !== 'build' || typeof env !== 'object' || env === null) return {};
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
