/**
 * A build's annotations for people: `sluice describe build` and the report of `sluice run`
 * print the same lines — the build's own, then each image's (image metadata).
 * @module
 */
import type { AnnotationValue, BuildAnnotations } from '@sluice/protocol';

/** `Annotations:` and `Image <id>:` headings with `  name: value` lines; none when empty. */
export function annotationLines(held: BuildAnnotations): string[] {
  const lines: string[] = [];
  const add = (heading: string, annotations: Record<string, AnnotationValue>) => {
    const entries = Object.entries(annotations);
    if (entries.length === 0) return;
    lines.push(heading);
    for (const [name, value] of entries)
      lines.push(value === null ? `  ${name}` : `  ${name}: ${String(value)}`);
  };
  add('Annotations:', held.annotations);
  for (const [image, annotations] of Object.entries(held.imageAnnotations))
    add(`Image ${image}:`, annotations);
  return lines;
}
