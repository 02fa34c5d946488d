/**
 * Checks of a step's hooks against the rest of the step. Codefresh's "Hooks in pipelines" page:
 * once annotations or metadata are set in a hook, the old post-step syntax (`on_success:
 * {annotations}` on the step) may not be used beside it for the same moment; such a file is
 * "NOT valid". Only that mix is refused: old-style operations and hooks of other moments, or
 * hooks that only run containers, stay accepted.
 * @module
 */
import { isPlainMap } from './schema/validators.js';
import type { IssuePath } from './pipeline-issue.js';
import type { SchemaContext } from './schema/validators.js';

type Raw = Record<string, unknown>;

export interface HookCheckContext extends SchemaContext {
  /** `file:line:column` of the key at `path`. */
  where(path: IssuePath): string;
}

/** The moments a step has both as an old-style post-step operation and as a hook. */
const POST_STEP_MOMENTS = ['on_success', 'on_fail', 'on_finish'] as const;
const OPERATION_KEYS = ['annotations', 'metadata'] as const;

export function checkHookMixing(step: Raw, path: IssuePath, ctx: HookCheckContext): void {
  const hooks = step.hooks;
  if (!isPlainMap(hooks)) return;
  for (const moment of POST_STEP_MOMENTS) {
    const oldKey = operationKey(step[moment]);
    const newKey = operationKey(hooks[moment]);
    if (oldKey === undefined || newKey === undefined) continue;
    const oldPath = [...path, moment, oldKey];
    const newPath = [...path, 'hooks', moment, newKey];
    const message =
      `Annotations or metadata of "${moment}" are set both the old way (${ctx.where(oldPath)}) ` +
      `and in the hook (${ctx.where(newPath)}); Codefresh refuses the two together: ` +
      `move "${moment}.${oldKey}" under "hooks.${moment}"`;
    ctx.report(oldPath, message, { at: 'key' });
  }
}

function operationKey(value: unknown): string | undefined {
  if (!isPlainMap(value)) return undefined;
  return OPERATION_KEYS.find((key) => value[key] !== undefined);
}
