/**
 * The `yaml` package, loaded on first use: most commands print tables and never read YAML, and
 * loading it costs a quick command like `sluice get builds` a noticeable part of its time.
 * Synchronous (its CommonJS build through `require`), so callers stay synchronous.
 * @module
 */
import { createRequire } from 'node:module';
import type * as YamlModule from 'yaml';

type Yaml = typeof YamlModule;
let loaded: Yaml | undefined;

export function yaml(): Yaml {
  loaded ??= createRequire(import.meta.url)('yaml') as Yaml;
  return loaded;
}
