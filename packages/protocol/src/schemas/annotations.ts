/**
 * Annotations a build keeps: what the post-step operations of its steps (`on_success`,
 * `on_fail`, `on_finish` with `annotations` or `metadata`) set and unset, on the build itself or
 * on an image it made (kept on the build, keyed by image, as there is no image store). The engine
 * reports changes in an `annotations` event; the control plane and `sluice run` apply them with
 * `applyAnnotationChanges`, so both keep the same limits.
 * @module
 */
import { z } from 'zod';
import { LIMITS } from './limits.js';

const NUL = '\u0000';
const noNul = (text: string) => !text.includes(NUL);
const NUL_MESSAGE = 'Must not contain a NUL character (U+0000)';

export const AnnotationKey = z
  .string()
  .min(1)
  .max(LIMITS.annotationKey)
  .refine(noNul, NUL_MESSAGE)
  .describe(`An annotation's name, at most ${LIMITS.annotationKey} characters`);

export const AnnotationValue = z
  .union([
    z.string().max(LIMITS.annotationValue).refine(noNul, NUL_MESSAGE),
    z.number(),
    z.boolean(),
    z.null(),
  ])
  .describe(
    `Text (at most ${LIMITS.annotationValue} characters), a number, true or false; null for an annotation set without a value`,
  );
export type AnnotationValue = z.infer<typeof AnnotationValue>;

export const Annotations = z
  .record(AnnotationKey, AnnotationValue)
  .describe(`Annotations by name, at most ${LIMITS.annotationsPerEntity}`);
export type Annotations = z.infer<typeof Annotations>;

/** One entity's changes: `set` wins over what it held, then `unset` removes names. */
export const AnnotationChange = z.object({
  entity: z
    .enum(['build', 'image'])
    .describe('`build`: this build; `image`: the image named by `image`'),
  image: z
    .string()
    .min(1)
    .max(LIMITS.annotationKey)
    .refine(noNul, NUL_MESSAGE)
    .optional()
    .describe('The image (its id or reference), for `entity: image`'),
  set: Annotations.default({}),
  unset: z.array(AnnotationKey).max(LIMITS.annotationsPerEntity).default([]),
});
export type AnnotationChange = z.infer<typeof AnnotationChange>;

/** What a build holds: its own annotations and its images' (image metadata). */
export interface BuildAnnotations {
  annotations: Annotations;
  imageAnnotations: Record<string, Annotations>;
}

/**
 * Names under this prefix are Sluice's own (`sluice.log-limit`, set by the control plane when a
 * build's log reached its limit): a pipeline's operations may neither set nor unset them, so no
 * later step hides what the control plane noted.
 */
export const RESERVED_ANNOTATION_PREFIX = 'sluice.';

export type AnnotationResult =
  { ok: true; value: BuildAnnotations } | { ok: false; problem: string };

/**
 * `current` with `changes` applied, or why they cannot be: an image change without its image, a
 * name Sluice keeps for itself, or more names on one entity, or more images, than the limits
 * allow. Pure; `current` is kept.
 */
export function applyAnnotationChanges(
  current: BuildAnnotations,
  changes: readonly AnnotationChange[],
): AnnotationResult {
  const annotations = { ...current.annotations };
  const images: Record<string, Annotations> = { ...current.imageAnnotations };
  for (const change of changes) {
    if (change.entity === 'image' && change.image === undefined)
      return { ok: false, problem: 'An image annotation names no image' };
    const reserved = [...Object.keys(change.set), ...change.unset].find((key) =>
      key.startsWith(RESERVED_ANNOTATION_PREFIX),
    );
    if (reserved !== undefined)
      return {
        ok: false,
        problem: `${reserved}: names starting with "${RESERVED_ANNOTATION_PREFIX}" are kept for Sluice's own annotations; choose another name`,
      };
    const target =
      change.image === undefined || change.entity === 'build'
        ? annotations
        : (images[change.image] = { ...images[change.image] });
    Object.assign(target, change.set);
    for (const key of change.unset) delete target[key];
    const count = Object.keys(target).length;
    if (count > LIMITS.annotationsPerEntity) {
      const what = target === annotations ? 'The build' : `Image ${change.image ?? ''}`;
      return {
        ok: false,
        problem: `${what} would hold ${count} annotations, more than ${LIMITS.annotationsPerEntity}`,
      };
    }
  }
  for (const [image, held] of Object.entries(images))
    if (Object.keys(held).length === 0) delete images[image];
  const imageCount = Object.keys(images).length;
  if (imageCount > LIMITS.annotatedImages)
    return {
      ok: false,
      problem: `The build would hold annotations of ${imageCount} images, more than ${LIMITS.annotatedImages}`,
    };
  return { ok: true, value: { annotations, imageAnnotations: images } };
}
