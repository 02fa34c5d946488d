/**
 * Typed steps: step-type documents (`kind: step-type`), their argument schemas and templates,
 * the catalogs they are found in, and the expansion of a `type: account/name[:version]` step.
 * @module
 */
export { expandTypedStep, rememberParsedStepType } from './expand-typed-step.js';
export { stepTypeFromData, stepTypeToData } from './step-type-transfer.js';
export type { PatternData, SchemaWith, StepTypeData } from './step-type-transfer.js';
export type { TypedStepExpansion, TypedStepInput } from './expand-typed-step.js';
export { parseStepTypeDocument, STEP_TYPE_NAME } from './parse-step-type-document.js';
export type { ParseStepTypeResult, StepTypeDocument } from './parse-step-type-document.js';
export {
  catalogFromDefinitions,
  catalogFromDocuments,
  combineStepTypeCatalogs,
  loadStepTypeCatalog,
} from './load-step-type-catalog.js';
export type {
  LoadedStepTypeCatalog,
  LoadStepTypeCatalogOptions,
  StepTypeFileSystem,
} from './load-step-type-catalog.js';
export { validateArguments } from './validate-arguments.js';
export type {
  ArgumentProblem,
  ValidateArgumentsOptions,
  ValidateArgumentsResult,
} from './validate-arguments.js';
export type { ArgumentSchema, SchemaType } from './argument-schema.js';
export type { TemplateDelimiters } from './template.js';
export { compareSemVer, newestVersion, parseSemVer } from './semver.js';
export { STEP_TYPE_ISSUE_CODES } from './step-type-codes.js';
export type {
  ExpansionReporter,
  StepTypeCatalog,
  StepTypeDefinition,
} from './step-type-catalog.js';
