/**
 * Where a field the checks see lives in the file. Checks and the model builder work on one
 * logical shape (`steps.build.image`); the file may hold it elsewhere: under `spec:` in a
 * `kind: pipeline` document, or inside `arguments:` of a built-in step. Issues name the real
 * path, and positions are looked up there, so both point at what the person wrote.
 * @module
 */
import type { Position } from './model.js';
import type { IssuePath } from './pipeline-issue.js';
import type { YamlSource } from './yaml-source.js';

export interface PathMap {
  /** Fields under logical `from` are written under `to` (both logical, before the root prefix). */
  move(from: IssuePath, to: IssuePath): void;
  /** The path in the document for a logical path. */
  toDocument(path: IssuePath): IssuePath;
}

/** `prefix` is where the pipeline itself starts in the document: `[]` or `['spec']`. */
export function createPathMap(prefix: IssuePath): PathMap {
  const moves: { from: IssuePath; to: IssuePath }[] = [];
  return {
    move(from, to) {
      moves.push({ from, to });
      // Deepest first: a move inside a moved parent is applied before the parent's.
      moves.sort((a, b) => b.from.length - a.from.length);
    },
    toDocument(path) {
      let current = path;
      for (const { from, to } of moves) {
        if (startsWith(current, from)) current = [...to, ...current.slice(from.length)];
      }
      return [...prefix, ...current];
    },
  };
}

function startsWith(path: IssuePath, prefix: IssuePath): boolean {
  return prefix.length <= path.length && prefix.every((part, i) => path[i] === part);
}

/** What the model builder needs from the YAML source, addressed by logical paths. */
export interface SourceView {
  file: string;
  locate(path: IssuePath, at?: 'key' | 'value'): Position;
  scalarStart(path: IssuePath): (Position & { quoted: boolean }) | undefined;
  toDocument(path: IssuePath): IssuePath;
}

export function viewThrough(source: YamlSource, paths: PathMap): SourceView {
  return {
    file: source.file,
    locate: (path, at) => source.locate(paths.toDocument(path), at),
    scalarStart: (path) => source.scalarStart(paths.toDocument(path)),
    toDocument: (path) => paths.toDocument(path),
  };
}
