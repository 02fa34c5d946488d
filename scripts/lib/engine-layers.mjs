// The engine's layers, checked by scripts/check-boundaries.mjs. The table of each file's layer
// is the one in docs/architecture/engine.md ("The engine's layers"), read from there so the document and
// the check cannot drift: its rows, top layer first, name the files of each layer in backticks,
// as paths under apps/engine/src (`cleaner/` would name every file of that folder).
// A file may import files of its own layer or of a layer below, never above; only step kinds
// and container primitives may import values from @sluice/docker (the others name its types
// only). Tests and test support sit beside the code and may use any layer.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';

const HEADING = "# The engine's layers";
// The entry (main.ts) starts the engine, and so makes its Docker client.
const DOCKER_VALUES_ALLOWED = new Set(['entry', 'step kinds', 'container primitives']);

/**
 * The layers (top first) and each file's layer, from the `| layer | files | job |` table under
 * the heading; undefined when the document has no such table.
 */
export function engineLayersFrom(architecture) {
  const section = architecture.split(HEADING)[1]?.split(/\n#{2,3} /)[0];
  if (section === undefined) return undefined;
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('|') && line.includes('`'))
    .map((line) => line.split('|').map((cell) => cell.trim()));
  if (rows.length === 0) return undefined;
  const layers = rows.map((cells) => cells[1]);
  const files = Object.fromEntries(
    rows.flatMap((cells) =>
      [...cells[2].matchAll(/`([\w./-]+(?:\.ts|\/))`/g)].map((m) => [m[1], cells[1]]),
    ),
  );
  return { layers, files };
}

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

/** The layer of `path` (relative to the engine's src): its own entry, else its folder's. */
function layerIn(files, path) {
  if (files[path] !== undefined) return files[path];
  const folders = Object.keys(files).filter((f) => f.endsWith('/') && path.startsWith(f));
  const nearest = folders.sort((a, b) => b.length - a.length)[0];
  return nearest === undefined ? undefined : files[nearest];
}

/**
 * Every breach of the engine's layers (`engineLayersFrom`) in `graph`, the importGraph of
 * `sources` (apps/engine/src), with paths relative to `root` in the messages.
 */
export function engineLayerProblems(graph, { sources, root, layers, files }) {
  const problems = [];
  const layerOf = (file) => layerIn(files, relative(sources, file));
  const rank = (layer) => layers.indexOf(layer);
  for (const [file, targets] of graph) {
    if (isTestFile(file)) continue;
    const where = relative(root, file);
    const layer = layerOf(file);
    if (layer === undefined) {
      problems.push(
        `${where}: has no layer in docs/architecture/engine.md ("The engine's layers")`,
      );
      continue;
    }
    for (const target of targets) {
      const targetLayer = layerOf(target);
      if (targetLayer !== undefined && rank(targetLayer) < rank(layer))
        problems.push(
          `${where} (${layer}) imports ${relative(sources, target)} (${targetLayer}), a layer above it`,
        );
    }
    if (!DOCKER_VALUES_ALLOWED.has(layer) && importsDockerValues(file))
      problems.push(
        `${where} (${layer}) imports values from @sluice/docker, which only step kinds and container primitives may`,
      );
  }
  return problems;
}
