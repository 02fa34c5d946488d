#!/usr/bin/env node
// The `sluice` command: the compiled CLI lives in dist/ (npm run build), and runs from its
// bundle (dist/cli-bundle, scripts/bundle-engine.mjs) when that is fresh (engine-bundle.js): the
// same code, started two to three times faster. A bare `sluice engine` (how the local runtime
// starts each build's engine) runs the engine's own bundle, smaller still.
import { freshCliBundle, freshEngineBundle } from './engine-bundle.js';

const args = process.argv.slice(2);
// `sluice --version` loads one constant, not the command tree and its schemas.
const versionOnly = args.length === 1 && ['--version', '-V', 'version'].includes(args[0]);
const bundle =
  (args.length === 1 && args[0] === 'engine' ? freshEngineBundle() : undefined) ?? freshCliBundle();
import(versionOnly ? '../dist/version-main.js' : (bundle ?? '../dist/main.js')).catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('/dist/')) {
    process.stderr.write('sluice is not built yet: run `npm run build` in the repository first\n');
    process.exit(70);
  }
  throw err;
});
