// One writer per table, checked by scripts/check-boundaries.mjs for the build aggregate's
// tables in apps/server/src: a table changed from many places leaves each writer to remember
// the side effects (scheduling, events), so each table names the modules allowed to write it
// and any other source file that does is refused (STYLE.md §15). A write is Kysely's
// `insertInto`/`updateTable`/`deleteFrom`/`replaceInto`/`mergeInto` of the table, or SQL text
// inserting, updating, deleting or merging it, in code with its comments removed. Tests and
// test support may write anything (they set up rows).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const TEST = /\.test(-support)?\.ts$/;

function sourceFiles(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !TEST.test(name)) out.push(path);
  }
  return out;
}

function withoutComments(source) {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

function writePatterns(table) {
  return [
    new RegExp(
      `\\b(insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\\(\\s*['"\`]${table}\\b`,
    ),
    new RegExp(`\\b(insert\\s+into|update|delete\\s+from|merge\\s+into)\\s+"?${table}"?\\b`, 'i'),
  ];
}

/** The tables of `tables` that `source` writes. */
export function tablesWritten(source, tables) {
  const code = withoutComments(source);
  return tables.filter((table) => writePatterns(table).some((pattern) => pattern.test(code)));
}

/**
 * Every write of a table of `writers` (table → the paths under `dir` allowed to write it) from
 * another file under `dir`, and every allowed writer that no longer writes its table (the table
 * would be stale), as problems naming the file, the table and what to do.
 */
export function tableWriterProblems(dir, writers, options) {
  const { root } = options;
  const tables = Object.keys(writers);
  const problems = [];
  const writing = new Map(tables.map((table) => [table, new Set()]));
  for (const file of sourceFiles(dir)) {
    const path = relative(dir, file);
    for (const table of tablesWritten(readFileSync(file, 'utf8'), tables)) {
      writing.get(table).add(path);
      if (writers[table].includes(path)) continue;
      problems.push(
        `${relative(root, file)}: writes ${table}, whose writer is ${writers[table].join(' or ')}; ` +
          'call the writer instead, or move the write into it',
      );
    }
  }
  for (const table of tables)
    for (const writer of writers[table])
      if (!writing.get(table).has(writer))
        problems.push(
          `${relative(root, join(dir, writer))}: is the writer of ${table} in ` +
            'scripts/check-boundaries.mjs but does not write it; update the table there',
        );
  return problems;
}
