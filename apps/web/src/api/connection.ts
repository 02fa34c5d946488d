/**
 * Whether the server answers: every call through `useApi` reports here, and the banner in the
 * layout shows a lost connection until the next call succeeds (polls keep retrying on their own).
 * @module
 */
import { useSyncExternalStore } from 'react';

let online = true;
const listeners = new Set<() => void>();

export function reportConnection(ok: boolean): void {
  if (ok === online) return;
  online = ok;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useOnline(): boolean {
  return useSyncExternalStore(subscribe, () => online);
}
