/**
 * At most `size` reads at once, the rest queued in order: readers catching up on long logs
 * share a few database connections instead of taking the pool from every other request.
 * @module
 */
export class ReadSlots {
  readonly #size: number;
  #busy = 0;
  readonly #queue: (() => void)[] = [];

  constructor(size: number) {
    this.#size = size;
  }

  async run<T>(read: () => Promise<T>): Promise<T> {
    if (this.#busy >= this.#size) await new Promise<void>((resolve) => this.#queue.push(resolve));
    else this.#busy++;
    try {
      return await read();
    } finally {
      // The slot passes to the next in line, or is freed.
      const next = this.#queue.shift();
      if (next === undefined) this.#busy--;
      else next();
    }
  }
}
