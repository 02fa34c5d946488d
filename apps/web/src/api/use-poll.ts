/**
 * Data that stays current: loaded at once, then again every `intervalMs` (and at once when the
 * tab becomes visible), so no page needs a reload. A failed load keeps the last data and the
 * error; the next tick retries by itself, except after a 404 (it stops polling).
 * @module
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { NotFoundError } from '@sluice/errors';

export interface Polled<T> {
  data: T | undefined;
  error: Error | undefined;
  reload: () => void;
}

export function usePoll<T>(
  load: (signal: AbortSignal) => Promise<T>,
  options: { intervalMs: number; key: string; stop?: (data: T) => boolean },
): Polled<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; key: string }>({
    key: options.key,
  });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const stopRef = useRef(options.stop);
  stopRef.current = options.stop;
  const reload = useCallback(() => setTick((n) => n + 1), []);

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const run = async () => {
      try {
        const data = await loadRef.current(controller.signal);
        if (controller.signal.aborted) return;
        setState({ data, key: options.key });
        stopped = stopRef.current?.(data) ?? false;
      } catch (err) {
        if (controller.signal.aborted) return;
        setState((prev) => ({ ...prev, error: err as Error, key: options.key }));
        // What does not exist will not appear by asking again (a deleted build's page).
        stopped = err instanceof NotFoundError;
      }
      if (!stopped) timer = setTimeout(() => void run(), options.intervalMs);
    };
    void run();
    const onVisible = () => {
      if (document.visibilityState !== 'visible' || stopped) return;
      clearTimeout(timer);
      void run();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      controller.abort();
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [options.key, options.intervalMs, tick]);

  const current = state.key === options.key;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    reload,
  };
}
