/**
 * Fetches Kubernetes' source package from Debian's archive. The `deb-src` entry is derived at
 * run time from the machine's own apt sources (so no mirror host is written into the
 * repository) and used through a private source list, lists and cache, leaving the system's
 * apt configuration untouched.
 * @module
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const APT_SOURCES_DIR = '/etc/apt/sources.list.d';
export const APT_SOURCES_LIST = '/etc/apt/sources.list';

export interface AptSourceFile {
  name: string;
  text: string;
}

export interface DebSrcOptions {
  /** The Debian release whose archive carries the package, e.g. `bookworm`. */
  suite: string;
  component?: string;
}

/**
 * deb822 `deb-src` stanzas for `suite`, one per distinct mirror found in the machine's apt
 * sources (deb822 `.sources` files and one-line `.list` files). Empty when none lists `suite`.
 */
export function debSrcStanzas(files: readonly AptSourceFile[], options: DebSrcOptions): string {
  const component = options.component ?? 'main';
  const seen = new Set<string>();
  const stanzas: string[] = [];
  for (const mirror of files.flatMap((file) => mirrorsIn(file, options.suite))) {
    if (seen.has(mirror.uri)) continue;
    seen.add(mirror.uri);
    const lines = ['Types: deb-src', `URIs: ${mirror.uri}`, `Suites: ${options.suite}`];
    lines.push(`Components: ${component}`);
    if (mirror.signedBy !== undefined) lines.push(`Signed-By: ${mirror.signedBy}`);
    stanzas.push(lines.join('\n'));
  }
  return stanzas.length === 0 ? '' : `${stanzas.join('\n\n')}\n`;
}

interface Mirror {
  uri: string;
  signedBy: string | undefined;
}

function mirrorsIn(file: AptSourceFile, suite: string): Mirror[] {
  if (file.name.endsWith('.sources')) return deb822Mirrors(file.text, suite);
  if (file.name.endsWith('.list')) return oneLineMirrors(file.text, suite);
  return [];
}

function deb822Mirrors(text: string, suite: string): Mirror[] {
  const mirrors: Mirror[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      const match = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
      if (match?.[1] !== undefined) fields.set(match[1].toLowerCase(), match[2]?.trim() ?? '');
    }
    const words = (key: string): string[] => (fields.get(key) ?? '').split(/\s+/);
    if (fields.get('enabled')?.toLowerCase() === 'no') continue;
    if (!words('types').includes('deb') || !words('suites').includes(suite)) continue;
    for (const uri of words('uris').filter((u) => u !== '')) {
      mirrors.push({ uri, signedBy: fields.get('signed-by') });
    }
  }
  return mirrors;
}

function oneLineMirrors(text: string, suite: string): Mirror[] {
  const mirrors: Mirror[] = [];
  for (const raw of text.split('\n')) {
    const match = /^\s*deb\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)/.exec(raw);
    if (match === null || match[3] !== suite || match[2] === undefined) continue;
    const signedBy = /signed-by=(\S+)/.exec(match[1] ?? '')?.[1];
    mirrors.push({ uri: match[2], signedBy });
  }
  return mirrors;
}

/** The machine's apt source files: /etc/apt/sources.list and /etc/apt/sources.list.d/*. */
export async function readAptSources(): Promise<AptSourceFile[]> {
  const files: AptSourceFile[] = [];
  const list = await readFile(APT_SOURCES_LIST, 'utf8').catch(() => undefined);
  if (list !== undefined) files.push({ name: 'sources.list', text: list });
  const names = await readdir(APT_SOURCES_DIR).catch(() => [] as string[]);
  for (const name of names.sort()) {
    const text = await readFile(join(APT_SOURCES_DIR, name), 'utf8').catch(() => undefined);
    if (text !== undefined) files.push({ name, text });
  }
  return files;
}

/** Private apt directories under `dir` and the `-o` options that make apt-get use only them. */
export async function privateAptOptions(dir: string, stanzas: string): Promise<string[]> {
  const parts = join(dir, 'sources.list.d');
  await mkdir(parts, { recursive: true });
  await mkdir(join(dir, 'lists', 'partial'), { recursive: true });
  await mkdir(join(dir, 'cache', 'archives', 'partial'), { recursive: true });
  await writeFile(join(dir, 'sources.list'), '');
  await writeFile(join(parts, 'sluice-deb-src.sources'), stanzas);
  return [
    '-o',
    `Dir::Etc::SourceList=${join(dir, 'sources.list')}`,
    '-o',
    `Dir::Etc::SourceParts=${parts}`,
    '-o',
    `Dir::State::Lists=${join(dir, 'lists')}`,
    '-o',
    `Dir::Cache=${join(dir, 'cache')}`,
    // Downloads land in our own directory, which apt's _apt sandbox user cannot write.
    '-o',
    'APT::Sandbox::User=root',
  ];
}
