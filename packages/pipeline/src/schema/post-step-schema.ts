/**
 * Post-step operations (`on_success`/`on_fail`/`on_finish` on a step, reference §5.6):
 * `annotations: {set|unset: [{entity_type, entity_id, annotations: [{name: value} | name]}]}` and
 * `metadata: {set|unset: [{'<image>': [{name: value} | name]}]}`. Sluice keeps the build's own
 * annotations and its images' (on the build); another build's or a pipeline's are named as not
 * kept and the build runs without them.
 * @module
 */
import { ISSUE_CODES } from '../pipeline-issue.js';
import {
  isPlainMap,
  leaf,
  list,
  object,
  record,
  reportNotRun,
  required,
  str,
  typeName,
  union,
} from './validators.js';
import type { Fields, Schema } from './validators.js';

/** Entity types Sluice keeps annotations for. */
export const ANNOTATED_ENTITIES = ['build', 'image'] as const;

const scalar: Schema = {
  describe: 'text, a number, or true or false',
  check(value, path, ctx) {
    const t = typeof value;
    if (value === null || t === 'string' || t === 'number' || t === 'boolean') return;
    ctx.report(path, `Annotation ${leaf(path)} must be ${this.describe}, got ${typeName(value)}`);
  },
};

const isName = (v: unknown) => typeof v === 'string' || typeof v === 'number';

/** `[{name: value} | name]`; in `unset`, the values are not read. */
const annotationItems = list(
  union(
    [
      { when: isName, schema: str },
      { when: isPlainMap, schema: record(scalar, 'a map of names to values') },
    ],
    'a name or a {name: value} map',
  ),
);

function checkEntity(
  value: unknown,
  path: (string | number)[],
  ctx: Parameters<Schema['check']>[2],
) {
  const entry = value as Record<string, unknown>;
  const type = entry.entity_type ?? 'build';
  if (type === 'image' && entry.entity_id === undefined) {
    ctx.report(path, 'An annotation entry with entity_type "image" needs "entity_id": the image', {
      code: ISSUE_CODES.missingField,
    });
  } else if (type === 'build' && entry.entity_id !== undefined) {
    reportNotRun(ctx, {
      construct: 'Annotating another build (entity_id)',
      why: 'a step annotates only the build it runs in',
      effect: 'ignored',
      path: [...path, 'entity_id'],
    });
  } else if (typeof type === 'string' && type !== 'build' && type !== 'image') {
    reportNotRun(ctx, {
      construct: `Annotations of entity_type "${type}"`,
      why: 'Sluice keeps annotations on builds and images only',
      effect: 'ignored',
      path: [...path, 'entity_type'],
    });
  }
}

const annotationEntry = object(
  'annotation entry',
  { entity_type: str, entity_id: str, annotations: required(annotationItems) },
  checkEntity,
);

const imageEntries = list(record(annotationItems, 'a map of an image to its metadata'));

export const annotationsSchema = object('annotations', {
  set: list(annotationEntry),
  unset: list(annotationEntry),
});
export const metadataSchema = object('metadata', { set: imageEntries, unset: imageEntries });

export const postStepFields: Fields = { annotations: annotationsSchema, metadata: metadataSchema };
