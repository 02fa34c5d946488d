// Folder cycles under one directory, checked by scripts/check-boundaries.mjs for the server's
// apps/server/src/services: each folder is one node (a file at the top is a node of its own), an
// edge is any file of one importing a file of another (`import type` and `import()` included,
// as in import-cycles.mjs), and no folder may reach itself back. A folder is a layer: when two
// import each other, neither can be read or changed without the other (STYLE.md §15). Tests and
// test support are left out: they sit beside the code and may use any folder.
import { relative } from 'node:path';
import { findCycles } from './import-cycles.mjs';

const TEST = /\.test(-support)?\.ts$/;

/** The folder (or top file) of `dir` that `file` is in, or undefined when outside `dir`. */
function nodeOf(dir, file) {
  const rel = relative(dir, file);
  if (rel.startsWith('..')) return undefined;
  return rel.split('/')[0];
}

/**
 * The folder graph of `graph` (file → imported files, from `importGraph`) under `dir`: each
 * edge with one file import that makes it, for the message.
 */
export function folderGraph(graph, dir) {
  const folders = new Map();
  const because = new Map();
  for (const [file, targets] of graph) {
    const from = nodeOf(dir, file);
    if (from === undefined || TEST.test(file)) continue;
    if (!folders.has(from)) folders.set(from, []);
    for (const target of targets) {
      const to = nodeOf(dir, target);
      if (to === undefined || to === from) continue;
      if (!folders.get(from).includes(to)) folders.get(from).push(to);
      const edge = `${from} -> ${to}`;
      if (!because.has(edge))
        because.set(edge, `${relative(dir, file)} imports ${relative(dir, target)}`);
    }
  }
  return { folders, because };
}

/**
 * One problem per group of folders that import each other, naming the cycle and, for each of
 * its edges, a file import that makes it, with what to do.
 */
export function folderCycleProblems(graph, options) {
  const { dir, root } = options;
  const { folders, because } = folderGraph(graph, dir);
  return findCycles(folders).map((cycle) => {
    const edges = cycle.slice(1).map((to, i) => because.get(`${cycle[i]} -> ${to}`));
    return (
      `folder cycle in ${relative(root, dir)}: ${cycle.join(' -> ')} (${edges.join('; ')}); ` +
      'move the shared code below both folders, or have the lower one take an interface'
    );
  });
}
