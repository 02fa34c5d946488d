/**
 * What a button or form does, with the error it ended in kept for the page to show (cleared when
 * it runs again), and whether it is under way: `pending` disables the button, and a run asked
 * for while one is under way is dropped, so a double click submits once.
 * @module
 */
import { useCallback, useRef, useState } from 'react';

export interface Action {
  error: Error | undefined;
  pending: boolean;
  run: (work: () => Promise<unknown>) => Promise<void>;
}

export function useAction(): Action {
  const [error, setError] = useState<Error | undefined>();
  const [pending, setPending] = useState(false);
  // A ref as well as the state: two clicks in one frame both see the state before either render.
  const busy = useRef(false);
  const run = useCallback(async (work: () => Promise<unknown>) => {
    if (busy.current) return;
    busy.current = true;
    setPending(true);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(err as Error);
    } finally {
      busy.current = false;
      setPending(false);
    }
  }, []);
  return { error, pending, run };
}
