/**
 * What keeps the READMEs true: every workspace under `packages/` and `apps/` has a README.md,
 * and the files and package entry points a README names still exist. A README is read for its
 * code spans and link targets; a span counts as a file path when it has a `/` and ends in a
 * file extension or a `/` (`src/db-errors.ts`, `test-data/webhooks/`, `src/*.int.test.ts`),
 * and as an entry point when it is `@sluice/<name>` or `@sluice/<name>/<subpath>`. A path is
 * looked up beside the README, in its `src/`, then from the repository root, the three ways
 * the READMEs name files; a glob (`*`, `**`) must match at least one file.
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const WORKSPACE_GROUPS = ['packages', 'apps'];
const EXTENSION = /\.(ts|tsx|js|mjs|cjs|json|md|sh|ya?ml|go|sql|txt)$/;
const PATH_LIKE = /^(\.{1,2}\/)?[\w.*-]+(\/[\w.*-]+)*\/?$/;
const ENTRY_POINT = /^@sluice\/([\w-]+)(\/[\w./-]+)?$/;

interface Workspace {
  dir: string;
  name: string;
  exports: Set<string>;
}

/** The workspaces of the repository at `root`, by package name. */
export function workspaces(root: string): Map<string, Workspace> {
  const found = new Map<string, Workspace>();
  for (const group of WORKSPACE_GROUPS) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const entry of readdirSync(groupDir)) {
      const dir = join(groupDir, entry);
      const manifest = join(dir, 'package.json');
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name: string;
        exports?: Record<string, unknown>;
      };
      found.set(pkg.name, {
        dir,
        name: pkg.name,
        exports: new Set(Object.keys(pkg.exports ?? {})),
      });
    }
  }
  return found;
}

/** Code spans and link targets of a Markdown text, code blocks left out. */
export function namedReferences(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? '');
  const links = [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => (m[1] ?? '').replace(/#.*$/, ''))
    .filter((target) => target !== '' && !/^[a-z]+:/.test(target));
  return [...spans, ...links].map((text) => text.trim());
}

function isFilePath(text: string): boolean {
  return (
    text.includes('/') &&
    !text.startsWith('/') &&
    !text.startsWith('@') &&
    PATH_LIKE.test(text) &&
    (text.endsWith('/') || EXTENSION.test(text))
  );
}

/** Whether `pattern` (segments, `*` within one, `**` across any number) matches under `dir`. */
function globMatches(dir: string, segments: string[]): boolean {
  const [head, ...rest] = segments;
  if (head === undefined) return true;
  if (head === '' && rest.length === 0) return statSync(dir).isDirectory();
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return false;
  if (head === '**') {
    if (globMatches(dir, rest)) return true;
    return readdirSync(dir).some((name) => {
      const child = join(dir, name);
      return (
        name !== 'node_modules' && statSync(child).isDirectory() && globMatches(child, segments)
      );
    });
  }
  if (!head.includes('*')) return existsSync(join(dir, head)) && globMatches(join(dir, head), rest);
  const pattern = new RegExp(
    `^${head.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`,
  );
  return readdirSync(dir).some((name) => pattern.test(name) && globMatches(join(dir, name), rest));
}

function pathExists(path: string, bases: string[]): boolean {
  const segments = path.split('/');
  return bases.some((base) => globMatches(base, segments));
}

/** Every problem with the READMEs of the repository at `root`, one sentence each. */
export function readmeProblems(root: string): string[] {
  const problems: string[] = [];
  const known = workspaces(root);
  const readmes: string[] = [];
  for (const workspace of known.values()) {
    const readme = join(workspace.dir, 'README.md');
    if (existsSync(readme)) readmes.push(readme);
    else problems.push(`${relative(root, workspace.dir)} (${workspace.name}) has no README.md`);
  }
  for (const readme of readmes) {
    const where = relative(root, readme);
    const dir = dirname(readme);
    for (const text of namedReferences(readFileSync(readme, 'utf8'))) {
      const entry = ENTRY_POINT.exec(text);
      if (entry !== null) {
        const workspace = known.get(`@sluice/${entry[1] ?? ''}`);
        const subpath = `.${entry[2] ?? ''}`;
        if (workspace === undefined) problems.push(`${where}: ${text} is not a workspace`);
        else if (subpath !== '.' && !workspace.exports.has(subpath))
          problems.push(`${where}: ${text} is not in the exports of ${workspace.name}`);
      } else if (isFilePath(text) && !pathExists(text, [dir, join(dir, 'src'), root])) {
        problems.push(`${where}: ${text} does not exist`);
      }
    }
  }
  return problems;
}
