// The bundles of scripts/bundle-engine.mjs (the engine's and the agent's) if they may run: at
// least as new as every file each was made from, so a `tsc -b` since the last `npm run build`
// never runs a stale command.
import { readFileSync, statSync } from 'node:fs';

/** The URL of `file` in apps/cli/dist/`dir`/, or undefined when it is missing or stale. */
export function freshBundle(dir, file) {
  const bundleDir = new URL(`../dist/${dir}/`, import.meta.url);
  try {
    const bundle = new URL(file, bundleDir);
    const built = statSync(bundle).mtimeMs;
    const inputs = JSON.parse(readFileSync(new URL('inputs.json', bundleDir), 'utf8'));
    const fresh = inputs.every((input) => statSync(new URL(input, bundleDir)).mtimeMs <= built);
    return fresh ? bundle.href : undefined;
  } catch {
    return undefined;
  }
}

/** The engine bundle's URL, or undefined when it is missing or older than one of its inputs. */
export function freshEngineBundle() {
  return freshBundle('engine-bundle', 'sluice-engine.mjs');
}

/** The whole CLI's bundle (every command but a bare `sluice engine`), when fresh. */
export function freshCliBundle() {
  return freshBundle('cli-bundle', 'sluice.mjs');
}
