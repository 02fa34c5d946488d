/**
 * Which step types a build's engine gets: those whose names its pipeline's text may use as a
 * step's `type`, and those their own templates name. Pure.
 * @module
 */
import type { EngineStepType } from '@sluice/protocol';

/** A document with the name it is registered or shipped under. */
export interface NamedStepType {
  name: string;
  document: EngineStepType;
}

/**
 * A `type:` value in YAML text (block or flow style, the key or the value quoted), as a step
 * type's name: what a pipeline names its typed steps by, without the version.
 */
const TYPE_VALUE =
  /(?:^|[\s{,])["']?type["']?[ \t]*:[ \t]*["']?([a-z0-9][a-z0-9._-]*(?:\/[a-z0-9][a-z0-9._-]*)?)/gm;

/** The names each document's text uses, by document: a registered one may be 1 MB of text. */
const namesInDocuments = new WeakMap<EngineStepType, readonly string[]>();

function typeNames(text: string): string[] {
  return [...text.matchAll(TYPE_VALUE)].map(([, name = '']) => name);
}

function namesIn(document: EngineStepType): readonly string[] {
  let names = namesInDocuments.get(document);
  if (names === undefined) {
    names = [...new Set(typeNames(document.text))];
    namesInDocuments.set(document, names);
  }
  return names;
}

/**
 * The documents among `documents` whose names `yaml` may use as a step's `type`, and those their
 * own templates name, in their order. Read from the text, so it may take a few too many (a
 * `type:` that is not a step's) but never too few: anchors, flow maps and quoting are all text
 * the pattern sees, and the control plane parsed the pipeline with every step type already.
 */
export function stepTypesNamedIn(
  yaml: string,
  stepTypes: readonly NamedStepType[],
): EngineStepType[] {
  const byName = new Map<string, EngineStepType[]>();
  for (const { name, document } of stepTypes)
    byName.set(name, [...(byName.get(name) ?? []), document]);
  const wanted = new Set<EngineStepType>();
  const pending = typeNames(yaml);
  for (let name = pending.pop(); name !== undefined; name = pending.pop())
    for (const document of byName.get(name) ?? [])
      if (!wanted.has(document)) {
        wanted.add(document);
        pending.push(...namesIn(document));
      }
  return stepTypes.flatMap(({ document }) => (wanted.has(document) ? [document] : []));
}
