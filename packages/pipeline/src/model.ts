/**
 * The validated pipeline as the engine sees it. Strings are kept raw: `${{VAR}}` is resolved
 * step by step at run time, because `cf_export` values only exist once earlier steps ran.
 * @module
 */

export interface Position {
  line: number;
  column: number;
}

export interface BranchFilter {
  only?: string[];
  ignore?: string[];
}

export interface ConditionExpression {
  name: string;
  source: string;
  /** Where the expression text starts in the file (inside the quotes), when it is a one-line scalar. */
  position: Position | undefined;
  path: readonly (string | number)[];
}

export interface StepWhen {
  branch?: BranchFilter;
  conditions?: { mode: 'all' | 'any'; expressions: ConditionExpression[] }[];
}

interface StepBase {
  name: string;
  title?: string;
  description?: string;
  stage?: string;
  workingDirectory?: string;
  /** Resolved against the root `fail_fast`. */
  failFast: boolean;
  when?: StepWhen;
  position: Position;
}

export interface FreestyleStep extends StepBase {
  type: 'freestyle';
  image: string;
  commands?: string[];
  cmd?: string[];
  entryPoint?: string[];
  shell: 'sh' | 'bash';
  environment: [string, string][];
  volumes: string[];
}

export interface GitCloneStep extends StepBase {
  type: 'git-clone';
  repo: string;
  revision?: string;
  depth?: number;
  credentials?: { username: string; password: string };
  useProxy: boolean;
}

export type Step = FreestyleStep | GitCloneStep;

export interface Pipeline {
  file: string;
  version: '1.0';
  stages: string[];
  failFast: boolean;
  steps: Step[];
}
