// Layers that are folders, checked by scripts/check-boundaries.mjs. A layered tree's files sit
// in its layer folders (the folder is the layer: nothing else says which file is where), plus a
// few entry files at its top, above every layer. A file may import files of its own folder or
// of a layer below, never of a layer above nor of another folder of its own layer; only the
// folders named in `dockerValues` and the entry files may import values from @sluice/docker
// (the others name its types only). Tests and test support sit beside the code and may use any layer, but they too
// live in a layer folder.
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import ts from 'typescript';

/**
 * The layered trees of the repository: each a directory, its entry files, and its layers top
 * first, each layer one folder or several that must not import each other.
 */
export const LAYERED_TREES = [
  {
    name: "the engine's layers",
    dir: 'apps/engine/src',
    // The package's exports, and the process: its start-up, its configuration (the only readers
    // of process.env) and a warm-pool pod's wait for its build.
    entries: ['index.ts', 'main.ts', 'config.ts', 'pool-handover.ts'],
    layers: [['process'], ['flow'], ['steps'], ['containers'], ['cleaner'], ['base']],
    dockerValues: ['steps', 'containers'],
  },
  {
    name: "the runner's backends",
    dir: 'apps/runner/src/backends',
    entries: ['create-backend.ts'],
    layers: [['local', 'kubernetes']],
  },
];

function isTestFile(file) {
  return /\.test(-support)?\.ts$/.test(file);
}

/** A value (not `import type`) import of @sluice/docker in `file`. */
function importsDockerValues(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  return source.statements.some(
    (s) =>
      ts.isImportDeclaration(s) &&
      ts.isStringLiteral(s.moduleSpecifier) &&
      s.moduleSpecifier.text === '@sluice/docker' &&
      s.importClause?.isTypeOnly !== true,
  );
}

/**
 * Where `file` sits in `tree` (whose directory is `sources`): `{ entry }` for an entry file,
 * `{ folder, rank }` for a file in a layer folder (rank 0 is the top layer), `{ stray }` with a
 * reason for anything else, undefined outside the tree.
 */
function placeOf(file, sources, tree) {
  const path = relative(sources, file);
  if (path.startsWith('..')) return undefined;
  const parts = path.split(sep);
  if (parts.length === 1) {
    // An entry's tests sit beside it.
    const tested = path.replace(/\.(int\.)?test(-support)?\.ts$/, '.ts');
    return tree.entries.includes(tested) ? { entry: path } : { stray: 'outside the layer folders' };
  }
  const folder = parts[0];
  const rank = tree.layers.findIndex((layer) => layer.includes(folder));
  return rank === -1 ? { stray: `in ${folder}/, which is not a layer` } : { folder, rank };
}

/** Why `place` may not import `target`, or undefined when it may. */
function breach(place, target) {
  if (target === undefined || target.stray !== undefined || place.entry !== undefined)
    return undefined;
  if (target.entry !== undefined) return 'an entry above every layer, which no layer may import';
  if (target.rank < place.rank)
    return 'a layer above it; move what both need into a layer below them';
  if (target.rank === place.rank && target.folder !== place.folder)
    return `${target.folder}/, a folder beside its own; move what both need into a layer below them`;
  return undefined;
}

/**
 * Every breach of `tree` (one of LAYERED_TREES) in `graph`, an importGraph that holds the
 * tree's files, with paths relative to `root` in the messages.
 */
export function folderLayerProblems(graph, { tree, root }) {
  const problems = [];
  const sources = `${root.replace(/\/$/, '')}/${tree.dir}`;
  const folders = tree.layers.flat().map((folder) => `${folder}/`);
  let files = 0;
  for (const [file, targets] of graph) {
    const place = placeOf(file, sources, tree);
    if (place === undefined) continue;
    files++;
    const where = relative(root, file);
    if (place.stray !== undefined) {
      problems.push(
        `${where}: is ${place.stray}; move it into one of ${folders.join(', ')} or add a layer to LAYERED_TREES in scripts/lib/folder-layers.mjs (${tree.name})`,
      );
      continue;
    }
    if (isTestFile(file)) continue;
    for (const target of targets) {
      const why = breach(place, placeOf(target, sources, tree));
      if (why !== undefined)
        problems.push(`${where} imports ${relative(sources, target)}, ${why} (${tree.name})`);
    }
    const dockerValues = tree.dockerValues;
    // An entry starts the process, and so makes its Docker client.
    const layered = place.entry === undefined;
    if (
      dockerValues &&
      layered &&
      !dockerValues.includes(place.folder) &&
      importsDockerValues(file)
    )
      problems.push(
        `${where} imports values from @sluice/docker, which only ${dockerValues.map((f) => `${f}/`).join(' and ')} may; take its types with \`import type\` and leave the calls to them (${tree.name})`,
      );
  }
  if (files === 0)
    problems.push(
      `${tree.dir}: holds no source file; correct its entry in LAYERED_TREES in scripts/lib/folder-layers.mjs (${tree.name})`,
    );
  return problems;
}
