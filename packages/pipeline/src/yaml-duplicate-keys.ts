/**
 * The YAML library's duplicate-key check, in linear time. The library compares each new key with
 * every earlier key of its map (`uniqueKeys`), which made parsing a map of 14,000 steps take
 * seconds; the parser runs with that check off and this adds the same errors, at the same
 * offsets, with one hash set per map.
 * @module
 */
import { isMap, isPair, isScalar, isSeq, YAMLParseError } from 'yaml';
import type { Document } from 'yaml';

/**
 * Adds a `DUPLICATE_KEY` error to `doc.errors` for every key equal to an earlier key of its map,
 * as the library would: scalar keys are equal when their values are (`1` and `"1"` differ, two
 * `.nan` and two `<<` never clash), other keys never are.
 */
export function addDuplicateKeyErrors(doc: Document): void {
  const duplicates = duplicateKeyOffsets(doc);
  if (duplicates.length === 0) return;
  duplicates.sort((a, b) => a.offset - b.offset);
  const errors = duplicates.map(
    ({ offset, firstOffset }) => new DuplicateKeyError(offset, firstOffset),
  );
  // In offset order among the parser's own errors, after those at the same offset (the library
  // reports a key's indentation before its duplication).
  const merged: YAMLParseError[] = [];
  let next = 0;
  for (const error of doc.errors) {
    while (next < errors.length && (errors[next]?.pos[0] ?? 0) < error.pos[0])
      merged.push(errors[next++] as YAMLParseError);
    merged.push(error);
  }
  merged.push(...errors.slice(next));
  doc.errors.splice(0, doc.errors.length, ...merged);
}

/** The library's error, plus where the key was first written, so the message can say. */
export class DuplicateKeyError extends YAMLParseError {
  readonly firstOffset: number;

  constructor(offset: number, firstOffset: number) {
    super([offset, offset + 1], 'DUPLICATE_KEY', 'Map keys must be unique');
    this.firstOffset = firstOffset;
  }
}

/** Walks without recursion: keys can hold maps too. */
function duplicateKeyOffsets(doc: Document): { offset: number; firstOffset: number }[] {
  const offsets: { offset: number; firstOffset: number }[] = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const item = stack.pop();
    if (isPair(item)) {
      stack.push(item.key, item.value);
    } else if (isSeq(item)) {
      // Not `push(...items)`: a flow list of 500,000 numbers fits in the size limit.
      for (const child of item.items) stack.push(child);
    } else if (isMap(item)) {
      const seen = new Map<unknown, number>();
      for (const pair of item.items) {
        stack.push(pair);
        const key = pair.key;
        // The library compares with `===`, under which NaN equals nothing.
        if (!isScalar(key) || Number.isNaN(key.value)) continue;
        const offset = key.range?.[0] ?? 0;
        const firstOffset = seen.get(key.value);
        if (firstOffset !== undefined) offsets.push({ offset, firstOffset });
        else seen.set(key.value, offset);
      }
    }
  }
  return offsets;
}
