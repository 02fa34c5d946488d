/**
 * A composition kept in a file of the repository (`composition: docker-compose.yml` on a
 * composition step): the compose text in, its services and top-level volumes out, or every
 * problem placed at file:line:column. The engine reads the file when the step runs, since it is
 * on the build volume, not in the pipeline.
 * @module
 */
import { composeContainers, composeVolumes } from './build-model-services.js';
import { compareIssues, ISSUE_CODES } from './pipeline-issue.js';
import { stepComposition } from './schema/services-schema.js';
import { parseYamlSource } from './yaml-source.js';
import type { ServiceContainer } from './model.js';
import type { PipelineIssue } from './pipeline-issue.js';
import type { ReportOptions, SchemaContext } from './schema/validators.js';

export interface ParsedComposition {
  services: ServiceContainer[];
  /** Names of the file's top-level `volumes:`. */
  volumes: string[];
}

export type ParseCompositionResult =
  | { ok: true; composition: ParsedComposition; issues: PipelineIssue[] }
  | { ok: false; issues: PipelineIssue[] };

export function parseCompositionFile(text: string, file: string): ParseCompositionResult {
  const source = parseYamlSource(text, file);
  const issues = [...source.issues];
  const failed = () => issues.some((i) => i.severity === 'error');
  if (!failed()) {
    const ctx: SchemaContext = {
      report(path, message, options: ReportOptions = {}) {
        const { line, column } = source.locate(path, options.at);
        const severity = options.severity ?? 'error';
        const code = options.code ?? ISSUE_CODES.invalidValue;
        issues.push({ severity, code, message, path, file, line, column });
      },
    };
    stepComposition.check(source.value, [], ctx);
  }
  issues.sort(compareIssues);
  if (failed()) return { ok: false, issues };
  const services = composeContainers(source.value);
  return { ok: true, composition: { services, volumes: composeVolumes(source.value) }, issues };
}
