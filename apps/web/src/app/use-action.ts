/**
 * What a button or form does, with the error it ended in kept for the page to show (cleared when
 * it runs again).
 * @module
 */
import { useCallback, useState } from 'react';

export interface Action {
  error: Error | undefined;
  run: (work: () => Promise<unknown>) => Promise<void>;
}

export function useAction(): Action {
  const [error, setError] = useState<Error | undefined>();
  const run = useCallback(async (work: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(err as Error);
    }
  }, []);
  return { error, run };
}
