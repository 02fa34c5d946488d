#!/usr/bin/env node
// Bundles `sluice engine` (apps/cli/dist/engine-main.js, after `tsc -b`) with esbuild into one
// file, apps/cli/dist/engine-bundle/sluice-engine.mjs, beside inputs.json: the workspace files
// it was made from. bin/sluice.js runs it for a bare `sluice engine` (the local runtime's
// engines) when none of those files is newer than it, and the unbundled command tree
// otherwise: a `tsc -b` without this step costs start-up time, never a stale engine.
// Why it is faster: one file instead of about 400 modules resolved and read one by one, and the
// Docker client's unused transports left out (ssh2, gRPC, BuildKit's protobufjs:
// scripts/lib/unused-module.cjs).
// Run by `npm run build` and the set-up of the README's commands (scripts/lib/setup.sh).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cliDist = join(root, 'apps/cli/dist');
const outDir = join(cliDist, 'engine-bundle');
const unused = join(root, 'scripts/lib/unused-module.cjs');

// ESM output lacks the `require`, `__filename` and `__dirname` of the CommonJS dependencies.
const banner = [
  "import { createRequire as __sluiceCreateRequire } from 'node:module';",
  "import { fileURLToPath as __sluiceFileURLToPath } from 'node:url';",
  "import { dirname as __sluiceDirname } from 'node:path';",
  'const require = __sluiceCreateRequire(import.meta.url);',
  'const __filename = __sluiceFileURLToPath(import.meta.url);',
  'const __dirname = __sluiceDirname(__filename);',
].join(' ');

mkdirSync(outDir, { recursive: true });
const result = await build({
  stdin: {
    contents:
      "import { engineMain } from './engine-main.js';\nprocess.exitCode = await engineMain();\n",
    resolveDir: cliDist,
    sourcefile: 'engine-entry.js',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: join(outDir, 'sluice-engine.mjs'),
  banner: { js: banner },
  alias: Object.fromEntries(
    ['ssh2', '@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs'].map((name) => [name, unused]),
  ),
  external: ['*.node'],
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
// The workspace's own files (not the entry above, which has none) and npm's record of the
// install: what a rebuild or an install changes.
const inputs = Object.keys(result.metafile.inputs)
  .map((input) => join(root, input))
  .filter((path) => !path.includes('/node_modules/') && path !== unused && existsSync(path))
  .map((path) => relative(outDir, path));
inputs.push(relative(outDir, join(root, 'node_modules/.package-lock.json')));
writeFileSync(join(outDir, 'inputs.json'), `${JSON.stringify(inputs, null, 1)}\n`);
