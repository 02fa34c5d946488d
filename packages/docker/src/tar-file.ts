/**
 * Reads the first regular file out of a tar stream, which is what Docker's archive API returns
 * for a single path. Enough tar to do that and no more.
 * @module
 */

const BLOCK = 512;

export function firstFileFromTar(archive: Buffer): Buffer | undefined {
  let offset = 0;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) return undefined;
    const size = parseInt(
      header.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim() || '0',
      8,
    );
    const type = String.fromCharCode(header[156] ?? 0);
    const start = offset + BLOCK;
    if (type === '0' || type === '\0') return archive.subarray(start, start + size);
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return undefined;
}

/** A tar of one regular file (mode 0644, owned by root) as Docker's archive API takes it. */
export function singleFileTar(name: string, content: Buffer): Buffer {
  const header = Buffer.alloc(BLOCK);
  const field = (text: string, offset: number, length: number) =>
    header.write(text, offset, length, 'ascii');
  field(name, 0, 100);
  field('0000644\0', 100, 8);
  field('0000000\0', 108, 8);
  field('0000000\0', 116, 8);
  field(`${content.length.toString(8).padStart(11, '0')}\0`, 124, 12);
  field(
    `${Math.floor(Date.now() / 1000)
      .toString(8)
      .padStart(11, '0')}\0`,
    136,
    12,
  );
  field('        ', 148, 8);
  field('0', 156, 1);
  field('ustar\0', 257, 6);
  field('00', 263, 2);
  const sum = header.reduce((total, byte) => total + byte, 0);
  field(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  const padding = Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK);
  return Buffer.concat([header, content, padding, Buffer.alloc(2 * BLOCK)]);
}
