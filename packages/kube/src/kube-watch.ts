/**
 * Watches of the kinds `KubeResources` knows: `watchResources` streams one watch's events, and
 * `watchChanges` keeps watching for a controller that lists on its own (the volume provisioner,
 * its node agent): every change calls `changed`, so the controller's next pass comes at once
 * instead of on its next timer.
 *
 * A watch ends when the server's `timeoutSeconds` is up and resumes from the last
 * resourceVersion it saw (bookmarks keep that fresh on quiet objects). When that version is too
 * old to resume from (410 Gone: the server kept no history that far back), or the watch fails,
 * it starts again with no version — the server then sends every object as ADDED, which is the
 * re-list — and `changed` is called, since changes in the gap were not seen.
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { KubeClient, KubeRequestOptions } from './kube-client.js';
import { kubeError } from './kube-errors.js';
import type { KubeTarget } from './kube-errors.js';
import type { KubeResource } from './kube-resource.js';
import { KubeHttpError } from './kube-transport.js';

export interface WatchQuery {
  kind: string;
  /** For namespaced kinds; all namespaces when absent. */
  namespace?: string;
  labelSelector?: string;
  /** Where to resume; absent: every object now, as ADDED, then the changes. */
  resourceVersion?: string;
  /** The server ends the watch after this long (300). */
  timeoutSeconds?: number;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: KubeResource;
}

/** How a watch ended: at its timeout (resume from `resourceVersion`), or expired (410). */
export type WatchEnd = { kind: 'ended'; resourceVersion: string | undefined } | { kind: 'expired' };

/** Builds the watch URL of a query: `resourcePath` of the kind, and the watch parameters. */
export type WatchPath = (ref: { kind: string; namespace?: string }) => string;

export async function watchResources(
  client: KubeClient,
  path: WatchPath,
  query: WatchQuery,
  onEvent: (event: WatchEvent) => void,
  options: KubeRequestOptions = {},
): Promise<WatchEnd> {
  const params = new URLSearchParams({
    watch: '1',
    allowWatchBookmarks: 'true',
    timeoutSeconds: String(query.timeoutSeconds ?? 300),
  });
  if (query.labelSelector !== undefined) params.set('labelSelector', query.labelSelector);
  if (query.resourceVersion !== undefined) params.set('resourceVersion', query.resourceVersion);
  const target: KubeTarget =
    query.namespace === undefined
      ? { kind: query.kind }
      : { kind: query.kind, namespace: query.namespace };
  const url = `${path({ kind: query.kind, ...(query.namespace === undefined ? {} : { namespace: query.namespace }) })}?${params.toString()}`;
  // Our own controller, so an expired watch can stop reading at once.
  const stop = new AbortController();
  const outer = options.signal;
  const onAbort = () => stop.abort();
  outer?.addEventListener('abort', onAbort, { once: true });
  let version = query.resourceVersion;
  let expired = false;
  let failure: unknown;
  let pending = '';
  const line = (text: string) => {
    if (text.trim() === '' || expired || failure !== undefined) return;
    const event = JSON.parse(text) as {
      type: string;
      object: KubeResource & { code?: number };
    };
    if (event.type === 'ERROR') {
      if (event.object.code === 410) expired = true;
      else failure = new KubeHttpError(event.object.code ?? 500, JSON.stringify(event.object));
      stop.abort();
      return;
    }
    version = event.object.metadata?.resourceVersion ?? version;
    onEvent({ type: event.type as WatchEvent['type'], object: event.object });
  };
  try {
    await client.stream(
      target,
      { method: 'GET', path: url },
      (chunk) => {
        pending += chunk;
        let end;
        while ((end = pending.indexOf('\n')) >= 0) {
          const text = pending.slice(0, end);
          pending = pending.slice(end + 1);
          line(text);
        }
      },
      { signal: stop.signal },
    );
    line(pending);
  } catch (err) {
    if (expired) return { kind: 'expired' };
    if (failure !== undefined) throw kubeError(failure, 'list', target);
    if (isSluiceError(err) && err.details?.['status'] === 410) return { kind: 'expired' };
    throw err;
  } finally {
    outer?.removeEventListener('abort', onAbort);
  }
  if (expired) return { kind: 'expired' };
  if (failure !== undefined) throw kubeError(failure, 'list', target);
  return { kind: 'ended', resourceVersion: version };
}

export interface WatchChangesOptions {
  signal: AbortSignal;
  /** Told why a watch failed; it is started again after `retryMs`. */
  failed?: (err: unknown) => void;
  /** Wait after a failed watch (1 s). */
  retryMs?: number;
  timeoutSeconds?: number;
}

type Watch = (
  query: WatchQuery,
  onEvent: (event: WatchEvent) => void,
  options: KubeRequestOptions,
) => Promise<WatchEnd>;

/** Watches until the signal aborts, calling `changed` for every change (and after every gap). */
export async function watchChanges(
  watch: Watch,
  query: Omit<WatchQuery, 'resourceVersion'>,
  changed: (event: WatchEvent | undefined) => void,
  options: WatchChangesOptions,
): Promise<void> {
  const { signal } = options;
  let version: string | undefined;
  while (!signal.aborted) {
    try {
      const end = await watch(
        {
          ...query,
          ...(version === undefined ? {} : { resourceVersion: version }),
          ...(options.timeoutSeconds === undefined
            ? {}
            : { timeoutSeconds: options.timeoutSeconds }),
        },
        (event) => {
          if (event.type !== 'BOOKMARK') changed(event);
        },
        { signal },
      );
      if (end.kind === 'ended') {
        version = end.resourceVersion;
        continue;
      }
      version = undefined;
      changed(undefined);
    } catch (err) {
      if (signal.aborted) return;
      version = undefined;
      options.failed?.(err);
      changed(undefined);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.retryMs ?? 1000);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
  }
}
