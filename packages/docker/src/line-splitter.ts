/**
 * Splits a byte stream into lines, keeping a partial last line until more arrives or `flush`.
 * Multi-byte characters cut between chunks are decoded correctly.
 * @module
 */
import { StringDecoder } from 'node:string_decoder';

export class LineSplitter {
  readonly #decoder = new StringDecoder('utf8');
  readonly #onLine: (line: string) => void;
  #partial = '';

  constructor(onLine: (line: string) => void) {
    this.#onLine = onLine;
  }

  push(chunk: Buffer): void {
    const text = this.#partial + this.#decoder.write(chunk);
    const lines = text.split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) this.#onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  }

  flush(): void {
    const rest = this.#partial + this.#decoder.end();
    this.#partial = '';
    if (rest !== '') this.#onLine(rest);
  }
}
