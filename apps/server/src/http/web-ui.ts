/**
 * The web UI (apps/web, built by Vite into its `dist/`) served at `/`: files as they are, the
 * hashed bundles under `/assets/` cached for a year, `index.html` revalidated every time, and
 * every other page address answered with `index.html` so the UI's own router shows it. Nothing
 * under `/api` is ever answered here: an unknown API address keeps the API's JSON 404. A file
 * the build compressed (`.br`, `.gz` beside it: scripts/build-web.mjs) is sent compressed when
 * the request accepts it, with `Vary: Accept-Encoding`; a source map is never served.
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** apps/web/dist beside this server in the repository (this file is apps/server/dist/http/). */
const REPOSITORY_WEB_DIR = fileURLToPath(new URL('../../../web/dist/', import.meta.url));
/** `web/` beside the bundled CLI (images/engine/bundle.sh), as in the sluice/engine:1 image. */
const BUNDLED_WEB_DIR = fileURLToPath(new URL('./web/', import.meta.url));

/** Where the UI is when SLUICE_WEB_DIR does not say: the repository's build, else the bundle's. */
export const DEFAULT_WEB_DIR =
  existsSync(join(REPOSITORY_WEB_DIR, 'index.html')) ||
  !existsSync(join(BUNDLED_WEB_DIR, 'index.html'))
    ? REPOSITORY_WEB_DIR
    : BUNDLED_WEB_DIR;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
// Inline styles: React's style attribute positions the log's rows and the timing bars.
const CSP =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

export function registerWebUi(app: FastifyInstance, dir: string = DEFAULT_WEB_DIR): void {
  const root = normalize(dir.endsWith(sep) ? dir : dir + sep);
  app.get('/*', async (request, reply) => {
    const path = decodePath(request.url.split('?')[0] ?? '/');
    // Never the page: the API, and /metrics (served on the metrics listener only; docs/metrics.md).
    if (path === undefined || path === '/api' || path.startsWith('/api/') || path === '/metrics') {
      return reply.callNotFound();
    }
    // Source maps would publish the sources: none is built, and an old one left is not sent.
    if (path.endsWith('.map')) return reply.callNotFound();
    const file = normalize(join(root, path));
    if (file.startsWith(root) && (await isFile(file))) {
      const cacheControl = path.startsWith('/assets/') ? IMMUTABLE : 'no-cache';
      return send(reply, file, {
        cacheControl,
        acceptEncoding: request.headers['accept-encoding'],
      });
    }
    // A missing file (an old bundle's chunk, a typo) is a 404, never the page.
    if (path.startsWith('/assets/') || extname(path) !== '') return reply.callNotFound();
    const index = join(root, 'index.html');
    if (!(await isFile(index))) {
      return reply.status(404).send({
        error: {
          code: 'SLUICE_WEB_UI_NOT_BUILT',
          message: `The web UI is not built: ${index} does not exist`,
          hint: 'Run `npm run build` (it builds apps/web), or set SLUICE_WEB_DIR to a built UI',
          requestId: request.id,
        },
      });
    }
    return send(reply, index, {
      cacheControl: 'no-cache',
      acceptEncoding: request.headers['accept-encoding'],
    });
  });
}

interface SendOptions {
  cacheControl: string;
  acceptEncoding: string | undefined;
}

async function send(reply: FastifyReply, file: string, options: SendOptions) {
  const type = TYPES[extname(file)] ?? 'application/octet-stream';
  void reply
    .header('cache-control', options.cacheControl)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .type(type);
  if (type.startsWith('text/html')) void reply.header('content-security-policy', CSP);
  const compressed = await compressedCopy(file);
  if (compressed.length > 0) void reply.header('vary', 'Accept-Encoding');
  const encoding = pickEncoding(options.acceptEncoding, compressed);
  if (encoding === undefined) return reply.send(await readFile(file));
  void reply.header('content-encoding', encoding);
  return reply.send(await readFile(`${file}${ENCODINGS[encoding]}`));
}

/** The encodings the build wrote, by preference, and the suffix of each file. */
const ENCODINGS = { br: '.br', gzip: '.gz' } as const;
type Encoding = keyof typeof ENCODINGS;

async function compressedCopy(file: string): Promise<Encoding[]> {
  const found: Encoding[] = [];
  for (const encoding of Object.keys(ENCODINGS) as Encoding[])
    if (await isFile(`${file}${ENCODINGS[encoding]}`)) found.push(encoding);
  return found;
}

/** The first of `available` that Accept-Encoding allows (`br;q=0` refuses brotli). */
export function pickEncoding(
  header: string | undefined,
  available: readonly Encoding[],
): Encoding | undefined {
  const accepted = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) accepted.add(name);
  }
  return available.find((encoding) => accepted.has(encoding) || accepted.has('*'));
}

function decodePath(raw: string): string | undefined {
  try {
    const path = decodeURIComponent(raw);
    return path.includes('\0') ? undefined : path;
  } catch {
    return undefined;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
