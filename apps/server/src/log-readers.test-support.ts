/**
 * A reader of a build's log stream over node:http that the test controls: it can stop reading
 * (the socket is then not read, so the server's writes back up as a slow client's would) and
 * read again. It keeps every event it parsed, and says when the stream closed.
 * @module
 */
import { get } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { LogChunk } from '@sluice/protocol';
import { waitFor } from '@sluice/testkit';
import { ADMIN_TOKEN } from './server-harness.test-support.js';

export interface SseEvent {
  id: number | undefined;
  event: string;
  data: string;
}

export class SseReader {
  readonly events: SseEvent[] = [];
  /** Resolves when the server ended the stream (or it dropped). */
  readonly closed: Promise<void>;
  readonly #res: IncomingMessage;
  #buffer = '';

  private constructor(res: IncomingMessage, paused: boolean) {
    this.#res = res;
    res.setEncoding('utf8');
    if (paused) res.pause();
    res.on('data', (text: string) => this.#parse(text));
    this.closed = new Promise((resolve) => res.once('close', resolve));
  }

  /** Opens the stream of `buildId` (after `lastEventId`); `paused`: reads nothing until `resume`. */
  static open(
    url: string,
    buildId: string,
    options: { lastEventId?: number; paused?: boolean } = {},
  ): Promise<SseReader> {
    const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
    if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
    return new Promise((resolve, reject) => {
      const request = get(`${url}/api/v1/builds/${buildId}/log/stream`, { headers }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`log stream answered ${res.statusCode}`));
        else resolve(new SseReader(res, options.paused === true));
      });
      request.on('error', reject);
    });
  }

  /** The log events' chunks, in the order they came. */
  chunks(): LogChunk[] {
    return this.events.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data) as LogChunk);
  }

  /** The seq of the last log event read; -1 for none. */
  lastId(): number {
    return this.events.findLast((e) => e.id !== undefined)?.id ?? -1;
  }

  pause(): void {
    this.#res.pause();
  }

  resume(): void {
    this.#res.resume();
  }

  close(): void {
    this.#res.destroy();
  }

  /** Waits until an event satisfies `match`: `what` names it when the deadline passes. */
  async waitFor(what: string, match: (event: SseEvent) => boolean): Promise<void> {
    await waitFor(
      () => this.events.some(match),
      (found) => found,
      { what, timeoutMs: 60_000, intervalMs: 20 },
    );
  }

  #parse(text: string): void {
    this.#buffer += text;
    for (let end = this.#buffer.indexOf('\n\n'); end >= 0; end = this.#buffer.indexOf('\n\n')) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      const event: SseEvent = { id: undefined, event: 'message', data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) event.event = 'comment';
        else if (line.startsWith('id: ')) event.id = Number(line.slice(4));
        else if (line.startsWith('event: ')) event.event = line.slice(7);
        else if (line.startsWith('data: ')) event.data = line.slice(6);
      }
      this.events.push(event);
    }
  }
}
