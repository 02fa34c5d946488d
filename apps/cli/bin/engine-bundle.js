// The engine bundle (scripts/bundle-engine.mjs) if it may run: at least as new as every file it
// was made from, so a `tsc -b` since the last `npm run build` never runs a stale engine.
import { readFileSync, statSync } from 'node:fs';

const bundleDir = new URL('../dist/engine-bundle/', import.meta.url);

/** The bundle's URL, or undefined when it is missing or older than one of its inputs. */
export function freshEngineBundle() {
  try {
    const bundle = new URL('sluice-engine.mjs', bundleDir);
    const built = statSync(bundle).mtimeMs;
    const inputs = JSON.parse(readFileSync(new URL('inputs.json', bundleDir), 'utf8'));
    const fresh = inputs.every((input) => statSync(new URL(input, bundleDir)).mtimeMs <= built);
    return fresh ? bundle.href : undefined;
  } catch {
    return undefined;
  }
}
