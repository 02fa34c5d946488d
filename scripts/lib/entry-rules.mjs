// Two rules of scripts/check-boundaries.mjs about where a process starts (STYLE.md §6 and §8):
//   - `process.env` is read only in configuration modules (`config.ts`, `*-config.ts`, the
//     `@sluice/config` package) and in each app's `main.ts`, which hand what they read down;
//   - no app imports another app, except the CLI importing an app's `main` entry
//     (`@sluice/<app>/main`, lazily, to start that app's process), and the few library entries
//     of `CLI_APP_IMPORTS` below.
// Tests and test support are exempt from both: they start what they test.
import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import ts from 'typescript';
import { sourceFiles as sources, specifiers } from './import-cycles.mjs';

/**
 * What the CLI still takes from other apps besides their `main` entries, with the reason: each is
 * a library use in the CLI's own process, not a process it starts.
 */
export const CLI_APP_IMPORTS = {
  // `sluice run` runs a build in the CLI's process, with the engine's flow and step settings.
  '@sluice/engine': 'sluice run',
  '@sluice/engine/step-settings': 'sluice run',
  // `sluice get volumes` and `sluice runner delete` read the provisioner's volume labels.
  '@sluice/provisioner': 'sluice get volumes, sluice runner delete',
};

function isTestFile(path) {
  return /\.test(-support)?\.tsx?$/.test(path) || /(^|\/)testing\//.test(path);
}

function parse(path) {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
}

/** Whether `node` is `process.env` or `process['env']` (comments and strings are not code). */
function isProcessEnv(node) {
  const named = (expr, name) => ts.isIdentifier(expr) && expr.text === name;
  if (ts.isPropertyAccessExpression(node))
    return named(node.expression, 'process') && node.name.text === 'env';
  if (ts.isElementAccessExpression(node))
    return (
      named(node.expression, 'process') &&
      ts.isStringLiteralLike(node.argumentExpression) &&
      node.argumentExpression.text === 'env'
    );
  return false;
}

function readsProcessEnv(file) {
  let found = false;
  const visit = (node) => {
    if (found) return;
    if (isProcessEnv(node)) found = true;
    else ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** A configuration module or a main entry: the places that may read process.env. */
export function mayReadProcessEnv(path, workspace) {
  const name = basename(path);
  if (name === 'main.ts' || name === 'config.ts' || name.endsWith('-config.ts')) return true;
  return workspace.endsWith('/packages/config');
}

/** Every source file of `workspaces` (directories with a src/) that reads process.env where it may not. */
export function processEnvProblems(workspaces, root) {
  const problems = [];
  for (const workspace of workspaces) {
    for (const path of sources(join(workspace, 'src'))) {
      if (isTestFile(path) || mayReadProcessEnv(path, workspace)) continue;
      if (readsProcessEnv(parse(path)))
        problems.push(
          `${relative(root, path)}: reads process.env, which only config.ts (or *-config.ts) and main.ts may; take the environment as a parameter from them`,
        );
    }
  }
  return problems;
}

/**
 * Every import of one app by another in `apps` (package name → directory), but the CLI's of a
 * `main` entry or of `CLI_APP_IMPORTS`; and every import of a `main` entry by anything but the CLI.
 */
export function appImportProblems(apps, root, cli = '@sluice/cli') {
  const problems = [];
  for (const [name, dir] of Object.entries(apps)) {
    for (const path of sources(join(dir, 'src'))) {
      if (isTestFile(path)) continue;
      for (const specifier of specifiers(path)) {
        if (!specifier.startsWith('@sluice/')) continue;
        const [scope, pkg, ...entry] = specifier.split('/');
        const target = `${scope}/${pkg}`;
        if (target === name || apps[target] === undefined) continue;
        const isMain = entry.join('/') === 'main';
        if (name === cli && (isMain || CLI_APP_IMPORTS[specifier] !== undefined)) continue;
        problems.push(
          name === cli
            ? `${relative(root, path)}: imports ${specifier}; the CLI may import another app only through its main entry (${target}/main)`
            : `${relative(root, path)}: ${name} imports ${specifier}; an app imports no other app (shared code belongs in a package)`,
        );
      }
    }
  }
  return problems;
}
