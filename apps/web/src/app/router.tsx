/**
 * A small history router: the path is the page, `navigate` pushes, `<Link>` keeps the browser's
 * own link behaviour (middle click, copy address) and only intercepts a plain click; a page with
 * unsaved work asks before it is left (`useLeaveGuard`).
 * @module
 */
import { useEffect, useSyncExternalStore } from 'react';
import type { AnchorHTMLAttributes, MouseEvent } from 'react';

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => notify());

function notify(): void {
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The path and the query of the address (`search` with its `?`, or empty). */
export function useLocation(): { path: string; search: string } {
  const href = useSyncExternalStore(
    subscribe,
    () => window.location.pathname + window.location.search,
  );
  const at = href.indexOf('?');
  return at === -1
    ? { path: href, search: '' }
    : { path: href.slice(0, at), search: href.slice(at) };
}

/** What each page that holds unsaved work would say before it is left (null: nothing unsaved). */
const leaveGuards = new Set<{ message: string | null }>();

/** True when no page holds unsaved work, or the person agreed to leave it. */
function mayLeave(): boolean {
  for (const guard of leaveGuards) if (guard.message !== null) return window.confirm(guard.message);
  return true;
}

/**
 * While `message` is not null, leaving the page asks first: a link or `navigate` with
 * `message`, a reload or closing the tab with the browser's own question.
 */
export function useLeaveGuard(message: string | null): void {
  useEffect(() => {
    if (message === null) return;
    const guard = { message };
    leaveGuards.add(guard);
    const beforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers ask only when returnValue is set.
      event.returnValue = message;
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      leaveGuards.delete(guard);
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [message]);
}

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (!mayLeave()) return;
  if (options.replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  notify();
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement>) {
  const click = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || href === undefined) return;
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={click} {...rest} />;
}

/** `/builds/:id` against `/builds/abc` → `{ id: 'abc' }`; undefined when it does not match. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.replace(/\/+$/, '').split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const value = got[i] ?? '';
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return undefined;
  }
  return params;
}
