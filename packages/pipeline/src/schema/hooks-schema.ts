/**
 * `hooks:` of the pipeline and of a step (reference §5.6): each of `on_elected`, `on_success`,
 * `on_fail` and `on_finish` runs one container (`exec`) and/or a small pipeline of its own
 * (`steps`), then sets its `annotations` and `metadata` as a step's `on_success` does; a hook of
 * only `annotations`/`metadata` runs no container. Codefresh's shorter forms were brought to this
 * one before (hook-forms.ts). The steps are checked by the caller's step schema, passed in, so
 * hooks and steps can nest.
 * @module
 */
import { HOOK_BODY_KEYS } from '../hook-forms.js';
import { commandText, environment } from './common-fields.js';
import { postStepFields } from './post-step-schema.js';
import { bool, object, oneOf, str } from './validators.js';
import type { Schema } from './validators.js';

export const HOOK_NAMES = ['on_elected', 'on_success', 'on_fail', 'on_finish'] as const;

export function hooksSchema(steps: Schema): Schema {
  const body = object(
    'hook',
    {
      exec: object('hook exec', {
        // Left out, Codefresh runs the hook in alpine (DEFAULT_HOOK_IMAGE).
        image: str,
        commands: commandText,
        environment,
        shell: oneOf(['sh', 'bash']),
      }),
      steps,
      mode: oneOf(['sequential', 'parallel']),
      fail_fast: bool,
      // Applied once the hook has run, as under a step's on_success (post-step-schema.ts).
      ...postStepFields,
    },
    (value, path, ctx) => {
      const hook = value as Record<string, unknown>;
      if (HOOK_BODY_KEYS.every((key) => hook[key] === undefined)) {
        const name = String(path[path.length - 1]);
        const keys = HOOK_BODY_KEYS.map((key) => `"${key}"`).join(', ');
        ctx.report(path, `Hook "${name}" does nothing: give it at least one of ${keys}`);
      }
    },
  );
  return object('hooks', Object.fromEntries(HOOK_NAMES.map((name) => [name, body])));
}
