#!/usr/bin/env node
// Bundles the two `sluice` commands that the machine runs rather than a person, with esbuild,
// after `tsc -b`; each goes to a directory of apps/cli/dist beside inputs.json, the workspace
// files it was made from, and runs only while none of those files is newer than it (a `tsc -b`
// without this step costs start-up time or memory, never a stale command):
//   - `sluice engine` (apps/cli/dist/engine-entry.js, composing @sluice/engine/main) into
//     engine-bundle/sluice-engine.mjs, one file: bin/sluice.js runs it for a bare `sluice engine`, how the local runtime starts each
//     build's engine. Faster because it is one file instead of about 400 modules resolved and
//     read one by one, with the Docker client's unused transports left out (ssh2, gRPC,
//     BuildKit's protobufjs: scripts/lib/unused-module.cjs).
//   - `sluice agent` (apps/cli/dist/agent-entry.js) into agent-bundle/sluice-agent.mjs, minified,
//     with the local backend's modules in a chunk beside it and the other commands' modules
//     (and the other apps' main entries) left to dist/ and node_modules (never loaded by the agent): bin/sluice-agent.js runs it. Smaller because
//     V8 keeps the source text of every module it loaded for as long as the process runs, and
//     the agent runs for weeks (bench/agent).
//   - every other `sluice` command (apps/cli/dist/main.js) into cli-bundle/sluice.mjs, with
//     each command's modules in chunks beside it (code splitting, as in the server image's
//     bundle, images/engine/bundle.sh): bin/sluice.js runs it. A command starts two to three
//     times faster than from ~700 modules of dist/ (`sluice validate` 0.6 s of CPU instead of
//     1.0, a server start 5.1 s instead of 6.4), which the test tiers pay on each of their thousand-odd CLI
//     runs. What its code finds beside its own file is linked there: the built-in step types,
//     the web UI's build and PGlite's runtime files.
// Run by `npm run build` and the set-up of the README's commands (scripts/lib/setup.sh).
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cliDist = join(root, 'apps/cli/dist');
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

/**
 * One bundle into `dir` (under apps/cli/dist) and its inputs.json: the workspace's own files
 * (not the entry, which has none) and npm's record of the install, what a rebuild or an
 * install changes; `links` (name → path) are made beside it, before inputs.json.
 */
async function bundle(dir, entry, options, links = {}) {
  const outDir = join(cliDist, dir);
  // Chunks are named by their content: those of an earlier build would stay beside the new.
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const result = await build({
    stdin: { contents: entry, resolveDir: cliDist, sourcefile: `${dir}-entry.js` },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: banner },
    external: ['*.node'],
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    ...options,
  });
  const inputs = Object.keys(result.metafile.inputs)
    .map((input) => join(root, input))
    .filter((path) => !path.includes('/node_modules/') && path !== unused && existsSync(path))
    .map((path) => relative(outDir, path));
  inputs.push(relative(outDir, join(root, 'node_modules/.package-lock.json')));
  // inputs.json last: a build killed before it leaves a bundle that is never taken as fresh.
  for (const [name, target] of Object.entries(links)) {
    symlinkSync(relative(outDir, target), join(outDir, name));
  }
  writeFileSync(join(outDir, 'inputs.json'), `${JSON.stringify(inputs, null, 1)}\n`);
}

/** The Docker client's transports that Sluice never uses (scripts/lib/unused-module.cjs). */
const dockerTransports = Object.fromEntries(
  ['ssh2', '@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs'].map((name) => [name, unused]),
);

await bundle(
  'engine-bundle',
  "import { engineEntry } from './engine-entry.js';\nprocess.exitCode = await engineEntry();\n",
  {
    outfile: join(cliDist, 'engine-bundle/sluice-engine.mjs'),
    alias: dockerTransports,
  },
);

/**
 * The other commands' actions, imported from dist/ as they are, should one ever run, and the
 * other apps' processes (`@sluice/<app>/main` but the runner's) from node_modules.
 */
const otherCommands = {
  name: 'other-commands',
  setup(build) {
    const lazy = (args) =>
      args.kind === 'dynamic-import' && args.importer === join(cliDist, 'local-commands.js');
    build.onResolve({ filter: /^\.\/commands\// }, (args) =>
      !lazy(args) || args.path === './commands/agent.js'
        ? undefined
        : { path: `../${args.path.slice(2)}`, external: true },
    );
    build.onResolve({ filter: /^@sluice\/(engine|server|provisioner)\/main$/ }, (args) =>
      lazy(args) ? { path: args.path, external: true } : undefined,
    );
  },
};

await bundle(
  'agent-bundle',
  "import { agentEntry } from './agent-entry.js';\nprocess.exitCode = await agentEntry(process.argv.slice(2));\n",
  {
    outdir: join(cliDist, 'agent-bundle'),
    entryNames: 'sluice-agent',
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    splitting: true,
    // Names kept: errors and classes are told apart by them in logs and stack traces.
    minify: true,
    keepNames: true,
    plugins: [otherCommands],
  },
);

/** What the CLI bundle's code looks for beside its own files, linked to where it is in the clone. */
const pgliteDist = dirname(
  createRequire(join(root, 'packages/db/')).resolve('@electric-sql/pglite'),
);
const besideCli = {
  'step-types': join(root, 'step-types'),
  web: join(root, 'apps/web/dist'),
  ...Object.fromEntries(
    ['pglite.data', 'pglite.wasm', 'initdb.wasm'].map((asset) => [asset, join(pgliteDist, asset)]),
  ),
};

await bundle(
  'cli-bundle',
  "import './main.js';\n",
  {
    outdir: join(cliDist, 'cli-bundle'),
    entryNames: 'sluice',
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    splitting: true,
    sourcemap: 'linked',
    alias: dockerTransports,
  },
  besideCli,
);
