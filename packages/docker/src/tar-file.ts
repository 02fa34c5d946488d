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
