// The keys of scripts/check-code.mjs's ESLint cache, one per TypeScript project (the root
// tsconfig's references): a hash of what a typed lint result of a file in that project depends on
// besides the file's own text (which ESLint's content cache checks itself). That is the types the
// file can see: the declarations its project emitted (another file's exports) and those of the
// projects it references, transitively; any hand-written .d.ts in them; and, for every project,
// the tsconfigs, the lockfile (the rules and @types) and the ESLint configuration. A change to
// one package's types so relints that package and what builds on it, not the whole repository.
// TypeScript writes the members of an inferred object type and of a union in the order it met
// their types, which differs between a clean build and an incremental one of the same sources: a
// declaration's text is hashed in a normal form (`normalDeclaration`: union members and lines in
// sorted order), so a checkout built from scratch (CI's) finds the cache a working tree left.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

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

/** A union of simple members: string literals and (qualified, array) names. */
const SIMPLE_UNION = /(?:"[^"\n]*"|[\w$.]+(?:\[\])*)(?: \| (?:"[^"\n]*"|[\w$.]+(?:\[\])*))+/g;

/**
 * A declaration file's text with the orders TypeScript does not keep stable made canonical: the
 * members of each simple union sorted, then the lines. Two files equal but for those orders are
 * equal here; a real change of a type still changes a member or a line. (Lines that only swap
 * places, as two parameters on lines of their own would, are not told apart: a caller the swap
 * breaks fails `tsc -b`, which runs before the lint.)
 */
export function normalDeclaration(text) {
  const unions = text.replace(SIMPLE_UNION, (union) => union.split(' | ').sort().join(' | '));
  return unions.split('\n').sort().join('\n');
}

function hashFiles(root, files, normal = (text) => text) {
  const hash = createHash('sha256');
  for (const file of [...files].sort()) {
    const text = normal(readFileSync(file, 'utf8'));
    hash.update(relative(root, file)).update('\0').update(text).update('\0');
  }
  return hash.digest('hex');
}

/** A project's references, as directories relative to the repository. */
function referencesOf(root, tsconfig) {
  const { references = [] } = JSON.parse(readFileSync(join(root, tsconfig), 'utf8'));
  return references.map((r) => relative(root, join(root, dirname(tsconfig), r.path)));
}

/**
 * The key of each project of the repository at `root` (by its directory, `apps/server`), and how
 * many declaration files were read: none means the build has not run.
 */
export function projectTypeKeys(root) {
  const shared = hashFiles(root, [
    ...walk(root, (p) => /(^|\/)tsconfig[^/]*\.json$/.test(p)),
    join(root, 'package-lock.json'),
    join(root, 'eslint.config.js'),
  ]);
  const projects = referencesOf(root, 'tsconfig.json');
  const own = new Map();
  let declarations = 0;
  for (const dir of projects) {
    const files = walk(join(root, dir), (p) => p.endsWith('.d.ts'));
    declarations += files.length;
    own.set(dir, hashFiles(root, files, normalDeclaration));
  }
  const keys = {};
  const keyOf = (dir, seen = new Set()) => {
    if (keys[dir] !== undefined) return keys[dir];
    if (seen.has(dir)) throw new Error(`${dir}/tsconfig.json: references form a cycle`);
    seen.add(dir);
    const hash = createHash('sha256')
      .update(shared)
      .update(own.get(dir) ?? '');
    for (const ref of referencesOf(root, join(dir, 'tsconfig.json')).sort()) {
      hash.update(ref).update(keyOf(ref, seen));
    }
    keys[dir] = hash.digest('hex').slice(0, 16);
    return keys[dir];
  };
  for (const dir of projects) keyOf(dir);
  return { keys, declarations };
}
