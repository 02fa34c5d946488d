// The key of scripts/check-code.mjs's ESLint cache: a hash of what typed lint results depend on
// besides each file's own text (which ESLint's content cache checks itself): every declaration
// file the build emitted, every tsconfig, the lockfile and the ESLint configuration.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

function walk(dir, keep, out = []) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name === '.git') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, keep, out);
    else if (keep(path)) out.push(path);
  }
  return out;
}

/** The key for the repository at `root`, and how many declaration files it read. */
export function typesKey(root) {
  const declarations = walk(
    root,
    (p) => p.endsWith('.d.ts') && (p.includes('/dist/') || p.includes('/apps/web/.tsc/')),
  );
  const configs = walk(root, (p) => /(^|\/)tsconfig[^/]*\.json$/.test(p));
  const files = [
    ...declarations,
    ...configs,
    join(root, 'package-lock.json'),
    join(root, 'eslint.config.js'),
  ].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return { key: hash.digest('hex').slice(0, 16), declarations: declarations.length };
}
