/**
 * The build page's first questions, asked as the bundle starts, before the session is known:
 * its build and its log. Both are GETs, which the session cookie the browser sends by itself
 * answers with no CSRF token; without this the page would ask for the session first, then for
 * the build and its log, a round trip later. The build page takes each answer once, for its own
 * build; an answer refused for want of a session (the page then signs in and asks again) counts
 * as none, and one not taken within `KEEP_MS` (another page opened) is dropped.
 * @module
 */
import { AuthenticationError } from '@sluice/errors';
import { createClient } from '@sluice/protocol';
import type { Build } from '@sluice/protocol';

const KEEP_MS = 10_000;

type Answer<T> = { ok: true; value: T } | { ok: false; error: unknown };

interface Early {
  buildId: string;
  build: Promise<Answer<Build>> | undefined;
  log: { answer: Promise<Answer<Response>>; controller: AbortController } | undefined;
}

let early: Early | undefined;

function settle<T>(promise: Promise<T>): Promise<Answer<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/** Asks for the build and its log when `path` is a build's page (`/builds/<id>`). */
export function askEarly(path: string): void {
  const match = /^\/builds\/([^/]+)\/?$/.exec(path);
  if (!match?.[1]) return;
  const buildId = decodeURIComponent(match[1]);
  const client = createClient({ baseUrl: window.location.origin });
  const controller = new AbortController();
  const headers = { 'last-event-id': '-1' };
  early = {
    buildId,
    build: settle(client.call('getBuild', { params: { buildId } })),
    log: {
      answer: settle(
        client.raw('buildLogStream', { params: { buildId }, headers, signal: controller.signal }),
      ),
      controller,
    },
  };
  setTimeout(() => {
    early?.log?.controller.abort();
    early = undefined;
  }, KEEP_MS);
}

/**
 * The early answer for `buildId`'s build, once: its value, or its error (thrown); undefined
 * when there is none to take, or it was refused for want of a session (ask as usual).
 */
export async function takeEarlyBuild(buildId: string): Promise<Build | undefined> {
  const pending = early?.buildId === buildId ? early.build : undefined;
  if (early === undefined || pending === undefined) return undefined;
  early.build = undefined;
  return unwrap(await pending);
}

/**
 * The early answer for `buildId`'s log stream, once, aborted with `signal`; as
 * `takeEarlyBuild`.
 */
export async function takeEarlyLog(
  buildId: string,
  signal: AbortSignal,
): Promise<Response | undefined> {
  const log = early?.buildId === buildId ? early.log : undefined;
  if (early === undefined || log === undefined) return undefined;
  early.log = undefined;
  if (signal.aborted) log.controller.abort();
  else signal.addEventListener('abort', () => log.controller.abort());
  return unwrap(await log.answer);
}

function unwrap<T>(answer: Answer<T>): T | undefined {
  if (answer.ok) return answer.value;
  if (answer.error instanceof AuthenticationError) return undefined;
  throw answer.error instanceof Error ? answer.error : new Error(String(answer.error));
}
