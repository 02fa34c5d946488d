/**
 * Post-step operations (`on_success`/`on_fail`/`on_finish` on a step, reference §5.6):
 * `annotations: {set|unset: [{entity_type, entity_id, annotations: [{name: value} | name]}]}` and
 * `metadata: {set|unset: [{'<image>': [{name: value} | name]}]}`. Sluice keeps the build's own
 * annotations and its images' (on the build); another build's or a pipeline's are named as not
 * kept and the build runs without them. Names starting with `sluice.` are Sluice's own (the
 * control plane's `sluice.log-limit`): a pipeline that sets or unsets one is refused here, as
 * the control plane would refuse the change when the step ends.
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
  truncate,
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

/**
 * Annotation names Sluice keeps for itself; the same prefix as `@sluice/protocol`'s
 * RESERVED_ANNOTATION_PREFIX, which applies it to a step's changes (a test holds them equal).
 */
export const RESERVED_ANNOTATION_PREFIX = 'sluice.';

function checkName(
  name: string,
  path: Parameters<Schema['check']>[1],
  ctx: Parameters<Schema['check']>[2],
) {
  if (name.startsWith(RESERVED_ANNOTATION_PREFIX))
    ctx.report(
      path,
      `${JSON.stringify(truncate(name))}: names starting with "${RESERVED_ANNOTATION_PREFIX}" are kept for Sluice's own annotations; choose another name`,
      { code: ISSUE_CODES.invalidValue, at: 'key' },
    );
}

const annotationName: Schema = {
  describe: str.describe,
  check(value, path, ctx) {
    str.check(value, path, ctx);
    checkName(String(value), path, ctx);
  },
};

const namedValues = record(scalar, 'a map of names to values');
const annotationValues: Schema = {
  describe: namedValues.describe,
  check(value, path, ctx) {
    namedValues.check(value, path, ctx);
    for (const name of Object.keys(value as object)) checkName(name, [...path, name], ctx);
  },
};

/** `[{name: value} | name]`; in `unset`, the values are not read. */
const annotationItems = list(
  union(
    [
      { when: isName, schema: annotationName },
      { when: isPlainMap, schema: annotationValues },
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
