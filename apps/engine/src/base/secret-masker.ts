/**
 * Replaces secret values in build output. Multi-line secrets are masked line by line, longest
 * first, so a secret that contains another is hidden whole. Its own component, tested on its
 * own, as in GitHub's runner.
 * @module
 */

export const MASK = '****';

export class SecretMasker {
  #values: string[] = [];

  add(secret: string): void {
    for (const line of secret.split(/\r?\n/)) {
      const value = line.trim();
      if (value.length === 0 || this.#values.includes(value)) continue;
      this.#values.push(value);
    }
    this.#values.sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.#values.length;
  }

  mask(text: string): string {
    let out = text;
    for (const value of this.#values) {
      if (out.includes(value)) out = out.split(value).join(MASK);
    }
    return out;
  }
}
