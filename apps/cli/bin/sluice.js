#!/usr/bin/env node
// The `sluice` command: the compiled CLI lives in dist/ (npm run build).
import('../dist/main.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/main.js')) {
    process.stderr.write('sluice is not built yet: run `npm run build` in the repository first\n');
    process.exit(70);
  }
  throw err;
});
