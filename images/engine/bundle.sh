#!/usr/bin/env bash
# Bundles the built CLI (apps/cli/dist/main.js, after `npm run build`) with esbuild into
# OUT_DIR: the entry `sluice.mjs` and chunks beside it (code splitting), so the engine image needs
# Node and this directory only, no node_modules. Each command's module is a dynamic import in the
# CLI, so a chunk loads only when its command runs: `sluice engine` parses the engine's code, not
# the server's or the database's (it starts about 0.3 s sooner than from one 24 MB file).
#   - a banner gives the CommonJS dependencies (dockerode, commander, pino) `require`,
#     `__filename` and `__dirname`, which ESM output lacks;
#   - native addons (`*.node`: ssh2's and cpu-features' optional crypto and CPU probes) stay
#     out; both packages catch the failed require and fall back to JavaScript;
#   - the embedded database's runtime files (PGlite's pglite.data, pglite.wasm, initdb.wasm),
#     which it loads from beside its module, are copied into OUT_DIR (chunks sit beside the
#     entry), so `sluice server` and `sluice up` work from the bundle too;
#   - the built web UI (apps/web/dist) is copied into OUT_DIR/web, where the bundled server
#     finds it (apps/server/src/http/web-ui.ts), so a control plane in a cluster serves the UI.
# Used by images/build-cluster-images.sh and images/engine/Dockerfile alike.
#
# Usage: images/engine/bundle.sh OUT_DIR
set -euo pipefail

out=${1:?usage: images/engine/bundle.sh OUT_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
entry=$root/apps/cli/dist/main.js
esbuild=$root/node_modules/.bin/esbuild

[[ -f "$entry" ]] || { echo "bundle: $entry is missing: run npm run build first" >&2; exit 1; }
[[ -x "$esbuild" ]] || { echo "bundle: $esbuild is missing: run npm ci first" >&2; exit 1; }

# The built-in step types (step-types/), which the bundled server finds beside the bundle and
# gives every account (apps/server/src/services/settings/built-in-step-types.ts).
mkdir -p "$out"
rm -rf "$out/step-types"
cp -R "$root/step-types" "$out/step-types"

banner="import { createRequire as __sluiceCreateRequire } from 'node:module';"
banner+=" import { fileURLToPath as __sluiceFileURLToPath } from 'node:url';"
banner+=" import { dirname as __sluiceDirname } from 'node:path';"
banner+=" const require = __sluiceCreateRequire(import.meta.url);"
banner+=" const __filename = __sluiceFileURLToPath(import.meta.url);"
banner+=" const __dirname = __sluiceDirname(__filename);"

"$esbuild" "$entry" --bundle --platform=node --format=esm --target=node20 \
  --external:'*.node' --legal-comments=none --log-level=warning \
  --banner:js="$banner" --splitting --outdir="$out" --entry-names=sluice \
  --chunk-names='chunk-[hash]' --out-extension:.js=.mjs

pglite=$root/node_modules/@electric-sql/pglite/dist
for asset in pglite.data pglite.wasm initdb.wasm; do
  [[ -f "$pglite/$asset" ]] || { echo "bundle: $pglite/$asset is missing: run npm ci first" >&2; exit 1; }
  cp "$pglite/$asset" "$out/$asset"
done

web=$root/apps/web/dist
[[ -f "$web/index.html" ]] || { echo "bundle: $web/index.html is missing: run npm run build first" >&2; exit 1; }
rm -rf "$out/web"
cp -R "$web" "$out/web"
