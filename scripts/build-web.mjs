#!/usr/bin/env node
// Builds the web UI (apps/web) with Vite into apps/web/dist, which the server serves at `/`.
// The Vite configuration is here rather than in a vite.config file, so the workspace keeps to
// named exports and its sources stay TypeScript checked by `tsc -b`.
// No source map is built: served, it would publish the sources; errors in the browser point at
// the minified bundle. Each text file is also written brotli (`.br`) and gzip (`.gz`) compressed
// at the highest level, once here instead of on every request; the server picks one by the
// request's Accept-Encoding (apps/server/src/http/web-ui.ts).
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'vite';
import react from '@vitejs/plugin-react';

const root = new URL('../apps/web/', import.meta.url).pathname;
const started = Date.now();
await build({
  root,
  configFile: false,
  logLevel: 'warn',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1024 },
});

/** Files below this size gain too little from compression to be worth a second copy. */
const MIN_BYTES = 1024;
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt)$/;

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

let sent = 0;
let original = 0;
for (const file of filesUnder(join(root, 'dist'))) {
  if (!COMPRESSIBLE.test(file)) continue;
  const bytes = readFileSync(file);
  if (bytes.length < MIN_BYTES) continue;
  const br = brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
  writeFileSync(`${file}.br`, br);
  writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
  original += bytes.length;
  sent += br.length;
}
console.log(
  `web UI built in ${Date.now() - started} ms: apps/web/dist (${Math.round(original / 1024)} KB, ${Math.round(sent / 1024)} KB brotli)`,
);
