/**
 * A loop's alarm clock: it sleeps until something changed (`set`, from a watch) or its timer
 * runs out. Changes while the loop works are remembered, so the next sleep ends at once and a
 * burst of events costs one more pass, not one pass each.
 * @module
 */
export class Wakeup {
  #pending = false;
  #wake: (() => void) | undefined;

  /** Something changed: the current or the next `sleep` ends now. */
  set(): void {
    this.#pending = true;
    this.#wake?.();
  }

  /** Until `set` (or a `set` since the last sleep), the timer, or the signal. */
  async sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (!this.#pending && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          this.#wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal.addEventListener('abort', done, { once: true });
        this.#wake = done;
      });
    }
    this.#pending = false;
  }
}
