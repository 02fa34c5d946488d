/**
 * Plain HTTP(S) probes for component readiness (etcd's /health, the apiserver's /readyz), made
 * before any client library is involved so a failure points at the component, not the client.
 * @module
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface ProbeOptions {
  /** PEM file of the CA that signed the server's certificate (https only). */
  caFile?: string;
  token?: string;
  timeoutMs?: number;
  /** GET unless given; a `body` is sent as JSON. */
  method?: 'GET' | 'PUT' | 'POST';
  body?: unknown;
}

export interface ProbeResult {
  status: number;
  body: string;
}

/** Requests `url` (GET by default); resolves with the status and body, or undefined when nothing answers. */
export function probe(url: string, options: ProbeOptions = {}): Promise<ProbeResult | undefined> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const ca = options.caFile === undefined ? undefined : readFileSync(options.caFile);
  return new Promise((resolve) => {
    const method = options.method ?? 'GET';
    const req = request(
      target,
      { method, headers, ca, timeout: options.timeoutMs ?? 2000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', () => resolve(undefined));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end(body);
  });
}
