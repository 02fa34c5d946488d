/**
 * Test-only service for the marketplace step types (step-types/): an HTTP receiver that records
 * each request and answers as the test says (Slack, GitHub, Codecov stand-ins). It listens on
 * every address of the host, and step containers reach it through the Docker bridge's gateway.
 * @module
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dockerHostAddress } from '@sluice/testkit';

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface ReceiverAnswer {
  status?: number;
  body?: string;
  contentType?: string;
}

export interface Receiver {
  /** `http://HOST:PORT` as step containers reach it. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Records every request; `answer` says what to send back (200 with no body by default). */
export async function startReceiver(
  answer: (request: RecordedRequest, receiverUrl: string) => ReceiverAnswer = () => ({}),
): Promise<Receiver> {
  const host = await dockerHostAddress();
  const requests: RecordedRequest[] = [];
  let url = '';
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(request);
      const reply = answer(request, url);
      res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/plain' });
      res.end(reply.body ?? '');
    });
  });
  url = `http://${host}:${await listen(server)}`;
  return { url, requests, close: () => close(server) };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString()));
    req.on('error', reject);
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  return (server.address() as AddressInfo).port;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
