#!/usr/bin/env node
// Builds the web UI (apps/web) with Vite into apps/web/dist, which the server serves at `/`.
// The Vite configuration is here rather than in a vite.config file, so the workspace keeps to
// named exports and its sources stay TypeScript checked by `tsc -b`.
import { build } from 'vite';
import react from '@vitejs/plugin-react';

const root = new URL('../apps/web/', import.meta.url).pathname;
const started = Date.now();
await build({
  root,
  configFile: false,
  logLevel: 'warn',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1024 },
});
console.log(`web UI built in ${Date.now() - started} ms: apps/web/dist`);
