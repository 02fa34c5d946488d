/**
 * Unsaved YAML kept per pipeline in the browser's localStorage, so a reload or a closed tab
 * loses nothing: the text and the version it was based on (to tell, when it is saved, whether
 * the pipeline changed meanwhile). Only the YAML is kept, never a token or a variable.
 * @module
 */

/** The version of a pipeline an edit is based on: its YAML and its `updatedAt`. */
export interface YamlBase {
  yaml: string;
  updatedAt: string;
}

export interface YamlDraft {
  yaml: string;
  base: YamlBase;
}

function keyOf(pipelineId: string): string {
  return `sluice.draft.${pipelineId}`;
}

/** The draft kept for the pipeline; undefined when none (or it is not one this page wrote). */
export function loadDraft(pipelineId: string): YamlDraft | undefined {
  try {
    const kept = JSON.parse(localStorage.getItem(keyOf(pipelineId)) ?? 'null') as unknown;
    return isDraft(kept) ? kept : undefined;
  } catch {
    return undefined;
  }
}

export function saveDraft(pipelineId: string, draft: YamlDraft): void {
  try {
    localStorage.setItem(keyOf(pipelineId), JSON.stringify(draft));
  } catch {
    // Storage full or refused (private mode): the page still asks before it is left.
  }
}

export function clearDraft(pipelineId: string): void {
  localStorage.removeItem(keyOf(pipelineId));
}

function isDraft(value: unknown): value is YamlDraft {
  if (typeof value !== 'object' || value === null) return false;
  const { yaml, base } = value as Partial<YamlDraft>;
  return (
    typeof yaml === 'string' &&
    typeof base === 'object' &&
    base !== null &&
    typeof base.yaml === 'string' &&
    typeof base.updatedAt === 'string'
  );
}
