/**
 * A build's log limit on the engine's side: lines are counted (bytes of their text, as the
 * server counts what it stores) before they reach the outbox, so the spool and the outbox keep
 * their guarantees for every line below the limit and never see one past it. The line that
 * would go past it is the first not sent: in its place goes one notice, once, and a
 * `log-limited` event; the step is not told and goes on.
 * @module
 */
import { logLimitMessage } from '@sluice/protocol';
import type { EngineEvent, LogLine } from '@sluice/protocol';

export type LogVerdict =
  { kind: 'send' } | { kind: 'reached'; notice: LogLine; event: EngineEvent } | { kind: 'drop' };

export class LogLimit {
  readonly limitBytes: number;
  #used: number;
  #reached = false;
  #dropped = 0;

  /**
   * @param limitBytes 0: no limit.
   * @param storedBytes what the server holds already (an engine that starts again for the build).
   */
  constructor(limitBytes: number, storedBytes = 0) {
    this.limitBytes = limitBytes;
    this.#used = storedBytes;
  }

  /** Lines not sent because of the limit. */
  get dropped(): number {
    return this.#dropped;
  }

  take(line: LogLine): LogVerdict {
    if (this.limitBytes === 0) return { kind: 'send' };
    if (!this.#reached) {
      const size = Buffer.byteLength(line.line);
      if (this.#used + size <= this.limitBytes) {
        this.#used += size;
        return { kind: 'send' };
      }
      this.#reached = true;
      this.#dropped++;
      const text = logLimitMessage(this.limitBytes, line.step);
      return {
        kind: 'reached',
        notice: { step: line.step, stream: 'system', line: text, at: line.at },
        event: { type: 'log-limited', step: line.step, limitBytes: this.limitBytes, at: line.at },
      };
    }
    this.#dropped++;
    return { kind: 'drop' };
  }
}
