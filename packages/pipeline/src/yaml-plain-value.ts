/**
 * The plain value of a parsed YAML document (maps to objects, lists to arrays), in time linear
 * in the document. The library's own conversion looks each alias up among every anchor and alias
 * before it: a file whose 14,000 steps each merge `<<: *defaults` took seconds. Here each alias
 * is swapped for the node it stands for (found in one walk) while the library converts, and put
 * back after, so positions are still found through the aliases. A value used through several
 * aliases becomes equal copies rather than one shared object; the structure check has already
 * bounded what aliases add.
 * @module
 */
import { isAlias, isMap, isPair, isSeq } from 'yaml';
import type { Alias, Document, Node, Pair, YAMLSeq } from 'yaml';
import { aliasTargets } from './yaml-node-index.js';

/** Where an alias was written: one side of a pair, or an item of a list. */
type Slot =
  | { pair: Pair; side: 'key' | 'value'; alias: Alias }
  | { seq: YAMLSeq; index: number; alias: Alias };

export function toPlainValue(doc: Document, fail: (message: string) => void): unknown {
  const slots = aliasSlots(doc);
  const targets = slots.length > 0 ? aliasTargets(doc) : new Map<Alias, Node>();
  for (const slot of slots) put(slot, targets.get(slot.alias) ?? slot.alias);
  try {
    // Alias bombs and cycles were refused by the structure check, so the library's own count
    // is not needed (it refuses one anchor merged into more than 1,000 steps).
    return doc.toJS({ maxAliasCount: -1 });
  } catch (err) {
    // The structure check rules out what is known to throw; this is the last line of defence.
    fail(err instanceof Error ? err.message : String(err));
    return null;
  } finally {
    for (const slot of slots) put(slot, slot.alias);
  }
}

function put(slot: Slot, node: Node): void {
  if ('pair' in slot) slot.pair[slot.side] = node;
  else slot.seq.items[slot.index] = node;
}

/** Every alias's place, in one walk without recursion (aliases themselves are not followed). */
function aliasSlots(doc: Document): Slot[] {
  const slots: Slot[] = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const item = stack.pop();
    if (isPair(item)) {
      if (isAlias(item.key)) slots.push({ pair: item, side: 'key', alias: item.key });
      else stack.push(item.key);
      if (isAlias(item.value)) slots.push({ pair: item, side: 'value', alias: item.value });
      else stack.push(item.value);
    } else if (isSeq(item)) {
      item.items.forEach((child, index) => {
        if (isAlias(child)) slots.push({ seq: item, index, alias: child });
        else stack.push(child);
      });
    } else if (isMap(item)) {
      for (const pair of item.items) stack.push(pair);
    }
  }
  return slots;
}
