// Finds file-level import cycles among a directory's TypeScript sources (run by
// scripts/check-boundaries.mjs for every workspace's src/).
//
// An edge is any relative import or re-export of another source file, `import type` included:
// a step kind that takes a type from the file that dispatches step kinds is tied to it as
// surely as by a value import (STYLE.md §15), and the next edit turns the one into the other.
// Dynamic `import()` counts too: lazy loading changes when a module loads, not what depends on
// what. Package imports (`@sluice/*`) are the boundaries table's business, not this one's.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const SOURCE = /\.(ts|tsx|mts)$/;

/** The TypeScript sources under `dir` (node_modules, dist and declarations left out). */
export function sourceFiles(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Every module `path` imports or re-exports, `import()` included, as written. */
export function specifiers(path) {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
  const found = [];
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push(node.moduleSpecifier.text);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The source file a relative specifier names (`./x.js` is `./x.ts`), if it is one of `files`. */
function resolve(from, specifier, files) {
  if (!specifier.startsWith('.')) return undefined;
  const base = join(dirname(from), specifier);
  const stem = base.replace(/\.(js|jsx|mjs)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(base, 'index.ts')];
  return candidates.find((candidate) => files.has(candidate));
}

/** The import graph of the sources under `dir`: file → the files it imports, in import order. */
export function importGraph(dir) {
  const files = new Set(sourceFiles(dir));
  const graph = new Map();
  for (const file of [...files].sort()) {
    const targets = specifiers(file).map((s) => resolve(file, s, files));
    graph.set(file, [...new Set(targets.filter((t) => t !== undefined))]);
  }
  return graph;
}

/**
 * Every strongly connected group of files (Tarjan), each reported as one cycle through it: the
 * files in import order, starting from the smallest path, the first repeated at the end.
 */
export function findCycles(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  const connect = (node) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
    }
    if (low.get(node) !== index.get(node)) return;
    const group = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    const selfLoop = (graph.get(node) ?? []).includes(node);
    if (group.length > 1 || selfLoop) groups.push(new Set(group));
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return groups.map((group) => cycleThrough(graph, group)).sort((a, b) => a[0].localeCompare(b[0]));
}

/** A shortest cycle from the group's first file back to it, staying inside the group. */
function cycleThrough(graph, group) {
  const start = [...group].sort()[0];
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of graph.get(node) ?? []) {
      if (!group.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (previous.get(path[0]) !== undefined) path.unshift(previous.get(path[0]));
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/** The cycles among `dir`'s sources, as paths relative to `root`. */
export function importCycles(dir, root) {
  return findCycles(importGraph(dir)).map((cycle) => cycle.map((file) => relative(root, file)));
}
