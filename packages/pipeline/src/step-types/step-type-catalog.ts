/**
 * Where typed steps (`type: account/name[:version]`) come from: step-type documents
 * (`kind: step-type`) loaded beforehand from a local catalog directory, the repository, or the
 * control plane. Lookup is synchronous so `parsePipeline` stays synchronous.
 * @module
 */
import type { IssuePath, PipelineIssue } from '../pipeline-issue.js';

/** One loaded step-type document. */
export interface StepTypeDefinition {
  /** `account/name` (or a bare `name` for our own examples). */
  name: string;
  /** Semver; the newest wins when a step names no version. */
  version: string;
  /** Where it was read from (file path, or `control plane`), shown in errors. */
  source: string;
  /** The document text, for positioned errors inside it. */
  text: string;
}

export interface StepTypeCatalog {
  /** The places searched, in order, named in the "not found" error. */
  readonly locations: readonly string[];
  /** The definition for `name`, at `version` or the newest when undefined. */
  find(name: string, version?: string): StepTypeDefinition | undefined;
  /**
   * Every definition, one per name@version after precedence. Optional: when present, "not found"
   * errors list the versions there are and suggest a close name.
   */
  list?(): readonly StepTypeDefinition[];
  /**
   * Files in the locations that could not be read as a step type at all (bad YAML, no
   * metadata.name); named in "not found" errors, since the type asked for may be among them.
   */
  readonly problems?: readonly PipelineIssue[];
}

/** What the expansion reports through: the same positioned issues as the rest of the parse. */
export interface ExpansionReporter {
  report(
    path: IssuePath,
    message: string,
    options?: { code?: string; severity?: 'error' | 'warning' },
  ): void;
}
