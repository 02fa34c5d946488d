/**
 * Bytes that requests of one route may hold at once: each takes its share before its body is
 * read and gives it back once answered. Counted, not measured: a share is what the request
 * announced, so a body that is refused is refused before it costs anything.
 * @module
 */
export class BodyBudget {
  readonly total: number;
  #taken = 0;

  constructor(total: number) {
    this.total = total;
  }

  /** Bytes taken now. */
  get taken(): number {
    return this.#taken;
  }

  /** Takes `bytes`; false (taking nothing) when fewer are free. */
  take(bytes: number): boolean {
    if (this.#taken + bytes > this.total) return false;
    this.#taken += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#taken = Math.max(0, this.#taken - bytes);
  }
}
