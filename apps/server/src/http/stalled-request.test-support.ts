/**
 * A POST whose sender stalls: the headers announce `announced` bytes and only `sent` follow,
 * over a raw socket (fetch sends a body whole). Resolves with the answer once the server has
 * closed the connection, which it does when it answers before the body is whole.
 * @module
 */
import { connect } from 'node:net';

export interface StalledAnswer {
  status: number;
  headers: Record<string, string>;
  body: { error?: { code: string; message: string; details?: Record<string, unknown> } };
}

export function stalledPost(
  url: string,
  options: { announced: number; sent?: string; headers?: Record<string, string> },
): Promise<StalledAnswer> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseAnswer(text)));
    const headers = {
      host: 'sluice.test',
      'content-type': 'application/json',
      ...options.headers,
      'content-length': String(options.announced),
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`POST ${pathname} HTTP/1.1\r\n${head.join('')}\r\n${options.sent ?? ''}`);
  });
}

function parseAnswer(text: string): StalledAnswer {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const at = line.indexOf(':');
      return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()];
    }),
  );
  const status = Number(/^HTTP\/1\.1 (\d+)/.exec(statusLine)?.[1]);
  return { status, headers, body: JSON.parse(rest.join('\r\n\r\n')) as StalledAnswer['body'] };
}
