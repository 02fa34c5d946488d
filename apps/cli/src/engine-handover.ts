/**
 * The engine's side of the local runtime's standby engines: an agent starts a `sluice engine`
 * ahead of its build, with an IPC channel, so that node and the engine's modules are loaded
 * before the build exists; when a build comes, the agent sends its environment (server URL,
 * engine token, build id, what the runtime gives the engine) over the channel and lets go of
 * it. The agent marks a standby with `SLUICE_ENGINE_SLOT` in its environment; any other engine
 * (Kubernetes, a person) runs at once, as before.
 * @module
 */
import { adoptEngineEnvironment, startedAsStandby } from './config.js';
import { awaitPoolHandover, poolEngineSettings } from './engine-pool-handover.js';

const WARM_UP_MS = 5_000;

/** What an agent sends its standby engine: the variables of one build's engine. */
export interface EngineHandover {
  type: 'build';
  env: Record<string, string>;
}

/**
 * Resolves true once the engine may run its build: at once when not started as a standby, else
 * when its agent handed it a build's environment (taken into this process's environment, and
 * the channel closed: from then on the engine lives on its own, like one started detached).
 * False when the channel closed first: the agent retired the standby, or died, and nothing
 * runs. The agent hands a build only to a standby that said `ready`, once it listens (a
 * message sent before that would be lost) and `warmUp` is done.
 */
export async function awaitEngineHandover(warmUp?: () => Promise<void>): Promise<boolean> {
  // A Kubernetes warm-pool pod's engine: its build comes over the network, not a channel.
  const pool = poolEngineSettings();
  if (pool !== undefined) return awaitPoolHandover(pool, warmUp).then(() => true);
  if (!startedAsStandby()) return true;
  if (process.channel === undefined || process.send === undefined) return false;
  const send = process.send.bind(process);
  const handover = new Promise<boolean>((resolve) => {
    const onMessage = (message: unknown) => {
      process.off('disconnect', onDisconnect);
      // A malformed message hands over nothing: the engine's configuration then names what is missing.
      adoptEngineEnvironment(handoverEnv(message));
      process.disconnect();
      resolve(true);
    };
    const onDisconnect = () => {
      process.off('message', onMessage);
      resolve(false);
    };
    process.once('message', onMessage);
    process.once('disconnect', onDisconnect);
  });
  // A warm-up that hangs (a Docker engine that does not answer) does not keep the standby unready.
  await Promise.race([
    warmUp?.(),
    new Promise((resolve) => setTimeout(resolve, WARM_UP_MS).unref()),
  ]);
  if (process.connected) send({ type: 'ready' });
  return handover;
}

function handoverEnv(message: unknown): Record<string, string> {
  if (typeof message !== 'object' || message === null) return {};
  const { type, env } = message as Partial<EngineHandover>;
  if (type !== 'build' || typeof env !== 'object' || env === null) return {};
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
