/**
 * What `ParsePool` runs, in place or in a worker thread: a pipeline parsed into a build's step
 * rows, a step-type document parsed into plain data (which crosses to the main thread by
 * structured clone), and the messages a worker is sent, with what the pool derives once per
 * step-type document (its digest, its plain data). No I/O.
 * @module
 */
import { createHash } from 'node:crypto';
import {
  catalogFromDefinitions,
  credentialUses,
  NO_CREDENTIAL_USES,
  parsePipeline,
  parseStepTypeDocument,
} from '@sluice/pipeline';
import { stepTypeToData } from '@sluice/pipeline';
import type {
  CredentialUses,
  PipelineIssue,
  StepTypeData,
  StepTypeDocument,
} from '@sluice/pipeline';
import { plannedSteps } from './planned-steps.js';
import type { PlannedStep } from './planned-steps.js';

export interface PipelineParseJob {
  yaml: string;
  /** Shown in issues. */
  file: string;
  /** The account's step types and the built-in ones, parsed (`StepTypeService`). */
  stepTypes: readonly StepTypeDocument[];
}

export interface PipelineParseResult {
  ok: boolean;
  issues: PipelineIssue[];
  /** A build's step rows, when `ok` (else empty). */
  steps: PlannedStep[];
  /** The pipeline's `stages:`, in order, when `ok` (else empty). */
  stages: string[];
  /** The account's credentials it names, when `ok` (else none): what its engine is given. */
  uses: CredentialUses;
}

/** A step-type document parsed: the document (remembered as parsed), or its issues. */
export type StepTypeParse =
  | { ok: true; document: StepTypeDocument; warnings: PipelineIssue[] }
  | { ok: false; issues: PipelineIssue[] };

/** `StepTypeParse` as a worker answers it. */
export type StepTypeReply =
  | { ok: true; data: StepTypeData; warnings: PipelineIssue[] }
  | { ok: false; issues: PipelineIssue[] };

/** A message to a worker. */
export type ParseRequest =
  | { kind: 'pipeline'; yaml: string; file: string; stepTypes: StepTypeData[] }
  | { kind: 'step-type'; text: string; source: string }
  | { kind: 'branch-filter'; filter: string; branch: string | undefined };

/** Where issues inside a registered step type are placed. */
export const CONTROL_PLANE_LOCATION = 'control plane';

export function parseJob(job: PipelineParseJob): PipelineParseResult {
  const parsed = parsePipeline(job.yaml, {
    file: job.file,
    stepTypes: catalogFromDefinitions(job.stepTypes, CONTROL_PLANE_LOCATION),
  });
  const steps = parsed.ok ? plannedSteps(parsed.pipeline.steps) : [];
  const stages = parsed.ok ? parsed.pipeline.stages : [];
  const uses = parsed.ok ? credentialUses(parsed.pipeline) : NO_CREDENTIAL_USES;
  return { ok: parsed.ok, issues: parsed.issues, steps, stages, uses };
}

export function parseStepTypeNow(text: string, source: string): StepTypeReply {
  const parsed = parseStepTypeDocument(text, source);
  return parsed.ok
    ? { ok: true, data: stepTypeToData(parsed.definition), warnings: parsed.warnings }
    : parsed;
}

/** Digests of step-type documents by object: each parsed document is kept and reused. */
const documentDigests = new WeakMap<StepTypeDocument, string>();

export function documentDigest(document: StepTypeDocument): string {
  let digest = documentDigests.get(document);
  if (digest === undefined) {
    digest = createHash('sha256')
      .update(document.source)
      .update('\0')
      .update(document.text)
      .digest('base64');
    documentDigests.set(document, digest);
  }
  return digest;
}

/** Step-type data by document: what is posted to a worker for every large pipeline. */
const documentData = new WeakMap<StepTypeDocument, StepTypeData>();

export function stepTypeData(document: StepTypeDocument): StepTypeData {
  let data = documentData.get(document);
  if (data === undefined) {
    data = stepTypeToData(document);
    documentData.set(document, data);
  }
  return data;
}
