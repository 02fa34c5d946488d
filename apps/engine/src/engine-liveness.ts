/**
 * The two background loops of a remote build: a heartbeat (the control plane fails a build whose
 * engine goes silent) and the control channel long-poll, which turns a `cancel` message into an
 * abort of the build. Both stop when their signal aborts; errors are logged and retried, never
 * fatal, because the build itself is still worth finishing and reporting.
 * @module
 */
import { describeError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import type { SluiceClient } from '@sluice/protocol';

export interface LivenessOptions {
  client: SluiceClient;
  /** Stops both loops. */
  signal: AbortSignal;
  /** Called once when the control plane asks to cancel the build. */
  onCancel: () => void;
  logger: Logger;
  heartbeatMs?: number;
  /** Seconds the server may hold one control poll open. */
  controlWaitSeconds?: number;
}

/** Starts both loops; the promise settles once both stopped after `signal` aborted. */
export function startLiveness(options: LivenessOptions): Promise<void> {
  const timer = setInterval(() => void beat(options), options.heartbeatMs ?? 10_000);
  options.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
  void beat(options);
  return pollControl(options);
}

async function beat(options: LivenessOptions): Promise<void> {
  try {
    await options.client.call('engineHeartbeat', { body: {}, signal: options.signal });
  } catch (err) {
    if (!options.signal.aborted)
      options.logger.warn('heartbeat failed', { error: describeError(err) });
  }
}

async function pollControl(options: LivenessOptions): Promise<void> {
  const { client, signal, logger } = options;
  let after = 0;
  while (!signal.aborted) {
    try {
      const { messages } = await client.call('engineControl', {
        query: { after, wait: options.controlWaitSeconds ?? 30 },
        signal,
      });
      for (const message of messages) {
        after = Math.max(after, message.seq);
        if (message.kind === 'cancel') {
          logger.info('the control plane cancelled the build');
          options.onCancel();
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      logger.warn('polling the control channel failed', { error: describeError(err) });
      await sleep(1_000, signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
