/**
 * The names of the built-in step types, and how a typed (plugin) step is told apart from a
 * misspelt built-in: `account/name[:version]`, or any bare name not close to a built-in one.
 * A typed step expanded from its template carries the result under a symbol, which the schema
 * pass and the model builder read and `Object.entries` never shows.
 * @module
 */
import { didYouMean } from '@sluice/errors';

export const BUILT_IN_STEP_TYPES = [
  'freestyle',
  'git-clone',
  'build',
  'push',
  'composition',
  'launch-composition',
  'deploy',
  'pending-approval',
  'parallel',
  'push-tag',
  'integration-test',
  'travis',
  'simple_travis',
  'freestyle-ssh',
  'github-action',
] as const;

export type StepTypeName = (typeof BUILT_IN_STEP_TYPES)[number];

export function isBuiltInStepType(type: string): type is StepTypeName {
  return (BUILT_IN_STEP_TYPES as readonly string[]).includes(type);
}

/** The "; did you mean …" hint for a bare name close to a built-in type, else "". */
export function builtInTypeHint(type: string): string {
  return type.includes('/') ? '' : didYouMean(type, BUILT_IN_STEP_TYPES);
}

export function isTypedStepType(type: string): boolean {
  return type.trim() !== '' && !isBuiltInStepType(type) && builtInTypeHint(type) === '';
}

export const TYPED_EXPANSION = Symbol('typed step expansion');

/** A typed step's template, expanded: `steps` are raw step maps, already normalized. */
export interface TypedExpansion {
  /** `account/name:version`. */
  stepType: string;
  steps: Record<string, unknown>;
}

export function typedExpansion(raw: Record<string, unknown>): TypedExpansion | undefined {
  return (raw as { [TYPED_EXPANSION]?: TypedExpansion })[TYPED_EXPANSION];
}
