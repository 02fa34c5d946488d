/**
 * Passes of work per key (an account) that callers share: a call while no pass runs starts one;
 * a call while one runs waits for the next, which starts when the running one ends and which
 * every call arriving meanwhile shares. So each caller's promise settles after a pass that
 * started after the call (it saw what the caller committed before calling), and a burst of N
 * calls makes about two passes instead of N passes waiting for each other.
 * @module
 */

/**
 * Runs `pass(key)` as described above; each caller gets the outcome (the value or the error) of
 * the pass it waited for. Reads use it too: callers asking the same question at once share one
 * answer that is never older than their call.
 */
export function coalescePasses<T = void>(
  pass: (key: string) => Promise<T>,
): (key: string) => Promise<T> {
  const passes = new Map<string, { current: Promise<T>; next?: Promise<T> }>();
  const start = (key: string): Promise<T> => {
    const entry: { current: Promise<T>; next?: Promise<T> } = { current: pass(key) };
    passes.set(key, entry);
    void entry.current.then(ignore, ignore).then(() => {
      // With a pass queued, that pass replaces this entry when it starts.
      if (passes.get(key) === entry && entry.next === undefined) passes.delete(key);
    });
    return entry.current;
  };
  return (key) => {
    const entry = passes.get(key);
    if (entry === undefined) return start(key);
    // The running pass may have read its input before the caller's change.
    entry.next ??= entry.current.then(ignore, ignore).then(() => start(key));
    return entry.next;
  };
}

function ignore(): void {}
