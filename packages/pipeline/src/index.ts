export { parsePipeline } from './parse-pipeline.js';
export { parseCompositionFile } from './parse-composition-file.js';
export type { ParseCompositionResult, ParsedComposition } from './parse-composition-file.js';
export type { ParsePipelineOptions, ParsePipelineResult } from './parse-pipeline.js';
export { formatIssue, formatPath, ISSUE_CODES } from './pipeline-issue.js';
export { yamlDocumentValue } from './yaml-document-value.js';
export type { YamlDocumentValue } from './yaml-document-value.js';
export type { PipelineIssue, IssuePath, IssueSeverity } from './pipeline-issue.js';
export type {
  Pipeline,
  Step,
  FreestyleStep,
  GitCloneStep,
  BuildStep,
  PushStep,
  CompositionStep,
  ApprovalStep,
  ParallelStep,
  GroupStep,
  StepDependency,
  RetryPolicy,
  Hook,
  Hooks,
  ReadinessProbe,
  ServiceContainer,
  ServiceDependency,
  ServicesSpec,
  StepWhen,
  BranchFilter,
  ConditionExpression,
  Position,
  NotRunConstruct,
  PostStepOperations,
  AnnotationOperation,
  AnnotationValueInput,
} from './model.js';
export { interpolate, referencedVariables } from './interpolate.js';
export { credentialUses, imageRegistryHost, NO_CREDENTIAL_USES } from './credential-uses.js';
export type { CredentialUses } from './credential-uses.js';
export type { VariableLookup } from './interpolate.js';
export { branchAllowed, compileBranchPattern } from './branch-filter.js';
export { compileLinearRegex } from './linear-regex.js';
export type { LinearRegex, LinearRegexResult } from './linear-regex.js';
export { BUILT_IN_STEP_TYPES, RUNNABLE_STEP_TYPES } from './schema/step-schemas.js';
export { DEFAULT_HOOK_IMAGE } from './hook-forms.js';
export * from './step-types/index.js';
export {
  systemVariables,
  normalizeBranchTag,
  repoFromUrl,
  VOLUME_PATH,
} from './system-variables.js';
export type { BuildFacts } from './system-variables.js';
export { parseExpression, evaluateExpression, isTruthy } from './expression/index.js';
export type {
  ExprValue,
  ExprNode,
  ExprIssue,
  ExpressionContext,
  EvaluateResult,
  ParseExpressionResult,
} from './expression/index.js';
export { RESERVED_ANNOTATION_PREFIX } from './schema/post-step-schema.js';
