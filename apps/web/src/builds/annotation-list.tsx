/**
 * What a build's steps set with `on_success`/`on_fail`/`on_finish`: its own annotations, then
 * each image's metadata, as `sluice describe build` prints them. Nothing when there are none.
 * @module
 */
import type { AnnotationValue, Build } from '@sluice/protocol';

export function AnnotationList({
  build,
}: {
  build: Pick<Build, 'annotations' | 'imageAnnotations'>;
}) {
  type Group = [string, Record<string, AnnotationValue>];
  const all: Group[] = [
    ['Annotations', build.annotations],
    ...Object.entries(build.imageAnnotations).map(([image, held]): Group => [
      `Image ${image}`,
      held,
    ]),
  ];
  const groups = all.filter(([, held]) => Object.keys(held).length > 0);
  if (groups.length === 0) return null;
  return (
    <section className="annotations">
      {groups.map(([heading, held]) => (
        <div key={heading}>
          <h2>{heading}</h2>
          <dl className="facts">
            {Object.entries(held).map(([name, value]) => (
              <div key={name} className="annotation">
                <dt>{name}</dt>
                <dd>{value === null ? '—' : String(value)}</dd>
              </div>
            ))}
          </dl>
        </div>
      ))}
    </section>
  );
}
