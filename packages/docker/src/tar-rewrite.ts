/**
 * Streams a tar archive through, dropping entries a predicate excludes and adding or replacing
 * small files at the end: how a build context read from the daemon (`getArchive`) gets its
 * `.dockerignore` applied and an inline Dockerfile added, without holding the context in
 * memory. Understands ustar names with prefixes, pax `path` records and GNU long names, which
 * is what Docker's archive API writes.
 * @module
 */

const BLOCK = 512;

export interface TarRewriteOptions {
  /** Entries whose path (relative, no `./`, no trailing `/`) this returns true for are dropped. */
  exclude?: (path: string) => boolean;
  /** Regular files written after the entries kept; an entry of the same name is dropped. */
  add?: { name: string; content: Buffer }[];
}

export async function* rewriteTar(
  source: AsyncIterable<Buffer | string>,
  options: TarRewriteOptions,
): AsyncGenerator<Buffer> {
  const rewriter = new TarRewriter(options);
  for await (const chunk of source) {
    yield* rewriter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  yield* rewriter.end();
}

/** Relative path of an archive entry as Docker's context rules see it. */
export function entryPath(name: string): string {
  return name
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+/, '')
    .replace(/\/+$/, '');
}

class TarRewriter {
  readonly #exclude: (path: string) => boolean;
  readonly #add: { name: string; content: Buffer }[];
  readonly #replaced: Set<string>;
  #buffer: Buffer = Buffer.alloc(0);
  /** Bytes of the current entry's data (padded) still to forward or skip. */
  #remaining = 0;
  #forwarding = true;
  /** Pax or long-name headers, held until the entry they describe is kept or dropped. */
  #held: Buffer[] = [];
  #heldName: string | undefined;
  #done = false;

  constructor(options: TarRewriteOptions) {
    this.#add = options.add ?? [];
    this.#replaced = new Set(this.#add.map((file) => entryPath(file.name)));
    const exclude = options.exclude ?? (() => false);
    this.#exclude = (path) => this.#replaced.has(path) || exclude(path);
  }

  push(chunk: Buffer): Buffer[] {
    if (this.#done) return [];
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const out: Buffer[] = [];
    while (!this.#done && this.#step(out));
    return out;
  }

  end(): Buffer[] {
    if (this.#done) return [];
    this.#done = true;
    return this.#trailer();
  }

  /** Consumes what it can of the buffer; false when it needs more input. */
  #step(out: Buffer[]): boolean {
    if (this.#remaining > 0) {
      const n = Math.min(this.#remaining, this.#buffer.length);
      if (n === 0) return false;
      if (this.#forwarding) out.push(this.#buffer.subarray(0, n));
      this.#buffer = this.#buffer.subarray(n);
      this.#remaining -= n;
      return this.#remaining === 0;
    }
    if (this.#buffer.length < BLOCK) return false;
    const header = this.#buffer.subarray(0, BLOCK);
    if (header.every((b) => b === 0)) {
      this.#done = true;
      out.push(...this.#trailer());
      return false;
    }
    const size = entrySize(header);
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    const type = String.fromCharCode(header[156] ?? 0);
    if (type === 'x' || type === 'L') {
      if (this.#buffer.length < BLOCK + padded) return false;
      const meta = this.#buffer.subarray(BLOCK, BLOCK + size);
      const name = type === 'L' ? cString(meta) : paxPath(meta);
      this.#heldName = name ?? this.#heldName;
      this.#held.push(Buffer.from(this.#buffer.subarray(0, BLOCK + padded)));
      this.#buffer = this.#buffer.subarray(BLOCK + padded);
      return true;
    }
    const keep = type === 'g' || !this.#exclude(entryPath(this.#heldName ?? headerName(header)));
    if (keep) out.push(...this.#held, header);
    this.#held = [];
    this.#heldName = undefined;
    this.#forwarding = keep;
    this.#remaining = padded;
    this.#buffer = this.#buffer.subarray(BLOCK);
    return true;
  }

  #trailer(): Buffer[] {
    return [...this.#add.flatMap((file) => fileEntry(file.name, file.content)), Buffer.alloc(1024)];
  }
}

function entrySize(header: Buffer): number {
  const field = header.subarray(124, 136);
  // GNU base-256 for sizes past 8 GiB: high bit set, big-endian number in the rest.
  if (((field[0] ?? 0) & 0x80) !== 0) {
    let size = 0;
    for (let i = 1; i < field.length; i += 1) size = size * 256 + (field[i] ?? 0);
    return size;
  }
  return parseInt(cString(field).trim() || '0', 8);
}

function headerName(header: Buffer): string {
  const name = cString(header.subarray(0, 100));
  const isUstar = header.subarray(257, 262).toString('ascii') === 'ustar';
  const prefix = isUstar ? cString(header.subarray(345, 500)) : '';
  return prefix === '' ? name : `${prefix}/${name}`;
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end === -1 ? bytes.length : end).toString('utf8');
}

/** The `path` record of a pax extended header ("<len> path=<value>\n" records). */
function paxPath(meta: Buffer): string | undefined {
  let offset = 0;
  let path: string | undefined;
  while (offset < meta.length) {
    const space = meta.indexOf(0x20, offset);
    if (space === -1) break;
    const length = parseInt(meta.subarray(offset, space).toString('ascii'), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    const record = meta.subarray(space + 1, offset + length - 1).toString('utf8');
    if (record.startsWith('path=')) path = record.slice('path='.length);
    offset += length;
  }
  return path;
}

/** A ustar header and padded data for one regular file (names up to 100 bytes). */
export function fileEntry(name: string, content: Buffer): Buffer[] {
  const header = Buffer.alloc(BLOCK);
  header.write(name.slice(0, 100), 0, 'utf8');
  header.write('0000644\0', 100, 'ascii');
  header.write('0000000\0', 108, 'ascii');
  header.write('0000000\0', 116, 'ascii');
  header.write(content.length.toString(8).padStart(11, '0') + '\0', 124, 'ascii');
  // A fixed time: the same content makes the same archive, which keeps build caches valid.
  header.write('00000000000\0', 136, 'ascii');
  header.write('        ', 148, 'ascii');
  header.write('0', 156, 'ascii');
  header.write('ustar\0', 257, 'ascii');
  header.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  const body = Buffer.alloc(Math.ceil(content.length / BLOCK) * BLOCK);
  content.copy(body);
  return [header, body];
}
