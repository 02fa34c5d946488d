/**
 * The shorter ways Codefresh lets a hook be written ("Hooks in pipelines", syntactic sugar),
 * brought to the one shape the hook schema checks (`exec`, `steps`, `annotations`, `metadata`,
 * `mode`, `fail_fast`). Each move is recorded in the path map, so a problem found later is
 * shown where the person wrote it:
 * - a list of commands: `on_elected: ['echo x']` is `{exec: {commands: [...]}}`;
 * - `exec` left out: `{image, commands}` directly under the hook, when the hook has none of
 *   `exec`, `steps`, `annotations`, `metadata` (the page allows it only without the last two);
 * - `exec` given as a list of commands: `exec: ['echo x']` is `exec: {commands: [...]}`;
 * - `exec` holding `steps` (the page's typed-step example): the steps are the hook's own;
 * - `fail_fast` written in `exec` (the page's `on_elected` example): it is the hook's.
 * `image` left out is filled in by the model (`DEFAULT_HOOK_IMAGE`), not here.
 * @module
 */
import { isPlainMap } from './schema/validators.js';
import type { PathMap } from './path-map.js';
import type { IssuePath } from './pipeline-issue.js';
import type { SchemaContext } from './schema/validators.js';

type Raw = Record<string, unknown>;

/**
 * The image of a hook's `exec` that names none: Codefresh's choice. Sluice pulls it as any step
 * image; where nothing can be pulled, load or tag an image of that name first.
 */
export const DEFAULT_HOOK_IMAGE = 'alpine';

/** What a hook's single container is made of, when written without `exec`. */
export const HOOK_EXEC_FIELDS = ['image', 'commands', 'environment', 'shell'] as const;

/** The keys that make a hook do something; a hook with none of them is refused. */
export const HOOK_BODY_KEYS = ['exec', 'steps', 'annotations', 'metadata'] as const;

export interface HookFormOptions {
  paths: PathMap;
  ctx: SchemaContext;
}

/** The hook at `path` in its long form; anything else is returned as is for the schema. */
export function hookLongForm(raw: unknown, path: IssuePath, options: HookFormOptions): unknown {
  if (Array.isArray(raw)) {
    options.paths.move([...path, 'exec', 'commands'], path);
    options.paths.move([...path, 'exec'], path);
    return { exec: { commands: raw } };
  }
  if (!isPlainMap(raw)) return raw;
  let hook: Raw = { ...raw };
  if (HOOK_BODY_KEYS.every((key) => hook[key] === undefined)) hook = withExec(hook, path, options);
  else hook = withoutStrayExecFields(hook, path, options);
  if (Array.isArray(hook.exec)) {
    options.paths.move([...path, 'exec', 'commands'], [...path, 'exec']);
    hook.exec = { commands: hook.exec };
  }
  if (isPlainMap(hook.exec)) hook = withHookFieldsOfExec(hook, path, options);
  return hook;
}

/** `{image, commands, …}` under the hook: the fields of its `exec`. */
function withExec(hook: Raw, path: IssuePath, options: HookFormOptions): Raw {
  const exec: Raw = {};
  const out: Raw = {};
  for (const [key, value] of Object.entries(hook)) {
    if ((HOOK_EXEC_FIELDS as readonly string[]).includes(key)) {
      exec[key] = value;
      options.paths.move([...path, 'exec', key], [...path, key]);
    } else {
      out[key] = value;
    }
  }
  if (Object.keys(exec).length > 0) {
    out.exec = exec;
    options.paths.move([...path, 'exec'], path);
  }
  return out;
}

/**
 * `image` or `commands` beside `exec`, `steps`, `annotations` or `metadata`: Codefresh reads the
 * short form only in a hook with none of them, so they would be lost. Named, then left out.
 */
function withoutStrayExecFields(hook: Raw, path: IssuePath, options: HookFormOptions): Raw {
  const name = String(path[path.length - 1]);
  const has = HOOK_BODY_KEYS.filter((key) => hook[key] !== undefined)
    .map((key) => `"${key}"`)
    .join(' and ');
  const out: Raw = {};
  for (const [key, value] of Object.entries(hook)) {
    if (!(HOOK_EXEC_FIELDS as readonly string[]).includes(key)) {
      out[key] = value;
      continue;
    }
    const where = hook.exec === undefined ? 'under "exec"' : 'inside its "exec"';
    const message = `Field "${key}" of hook "${name}" goes ${where}: a hook with ${has} takes its container as "exec" (exec: {image, commands})`;
    options.ctx.report([...path, key], message, { at: 'key' });
  }
  return out;
}

/** `steps` and `fail_fast` written inside `exec` belong to the hook. */
function withHookFieldsOfExec(hook: Raw, path: IssuePath, options: HookFormOptions): Raw {
  const exec: Raw = { ...(hook.exec as Raw) };
  const out: Raw = { ...hook };
  for (const key of ['steps', 'fail_fast'] as const) {
    if (exec[key] === undefined) continue;
    if (out[key] !== undefined) {
      const message = `"${key}" is written both in the hook and in its "exec"; write it once`;
      options.ctx.report([...path, 'exec', key], message, { at: 'key' });
    } else {
      out[key] = exec[key];
      options.paths.move([...path, key], [...path, 'exec', key]);
    }
    delete exec[key];
  }
  // `exec: {steps: …}` alone runs no container of its own.
  if (Object.keys(exec).length === 0 && (hook.exec as Raw).steps !== undefined) delete out.exec;
  else out.exec = exec;
  return out;
}
