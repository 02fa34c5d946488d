/**
 * Where an offset of a text is, as 1-based line and column, for messages that point at a
 * problem (`file:line:column`): the pipeline parser and the runtime-spec parser both place
 * their issues with it.
 * @module
 */

export interface TextPosition {
  line: number;
  column: number;
}

/**
 * Offset to line and column. Computed from the text rather than with a parser's line counter,
 * which misses the line breaks inside a token that spans lines after an error. A byte order
 * mark is invisible in editors, so it takes no column.
 */
export function positionIndex(text: string): (offset: number) => TextPosition {
  const starts = [text.startsWith('\uFEFF') ? 1 : 0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    const at = Math.max(0, Math.min(offset, text.length));
    let [low, high] = [0, starts.length - 1];
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] ?? 0) <= at) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: Math.max(1, at - (starts[low] ?? 0) + 1) };
  };
}
