/**
 * Helm charts rendered as `helm template` renders them, for the chart tests: no helm binary can
 * be had here, so `go/chart-render` (Go's text/template with sprig and the functions Helm adds,
 * values checked against values.schema.json) is built once per machine from Debian's Go and Go
 * packages, and cached by the hash of its source beside the Kubernetes binaries.
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { UnavailableError } from '@sluice/errors';
import { aptInstall } from './apt-install.js';
import { childEnv, readTestkitEnv } from './config.js';
import { runCommand, tailLines } from './run-command.js';

/** Debian's Go and the Go sources the renderer is built from. */
export const CHART_RENDER_PACKAGES = [
  'golang-go',
  'golang-github-masterminds-sprig-dev',
  'golang-github-ghodss-yaml-dev',
  'golang-github-xeipuuv-gojsonschema-dev',
] as const;
const GOCODE = '/usr/share/gocode';
const SOURCE = new URL('../go/chart-render/main.go', import.meta.url).pathname;
const FAILED = 'SLUICE_TEST_CHART_RENDER_FAILED';

/** The renderer's path, built on first use (a few seconds; the Go packages installed if missing). */
export async function ensureChartRenderer(
  options: { log?: (line: string) => void } = {},
): Promise<string> {
  const source = await readFile(SOURCE);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 12);
  const dir = join(dirname(readTestkitEnv().kubeCacheDir), 'chart-render', hash);
  const binary = join(dir, 'chart-render');
  if (existsSync(binary)) return binary;
  if (!existsSync(join(GOCODE, 'src/github.com/Masterminds/sprig')) || !existsSync('/usr/bin/go')) {
    const installed = await aptInstall(CHART_RENDER_PACKAGES, options);
    if (!installed.ok)
      throw new UnavailableError(FAILED, `Cannot install the chart renderer's Go packages`, {
        details: { step: installed.step, output: installed.output },
        hint: `apt-get install -y ${CHART_RENDER_PACKAGES.join(' ')}`,
      });
  }
  // GOPATH mode on Debian's Go sources: a private GOPATH for our one package, then gocode.
  // Test files side by side may each build it at once: each builds in its own directory (build
  // cache included) and renames its binary into place, the same bytes whoever is last.
  const gopath = await mkdtemp(join(tmpdir(), 'sluice-chart-render-'));
  try {
    const pkg = join(gopath, 'src', 'chartrender');
    await mkdir(pkg, { recursive: true });
    await copyFile(SOURCE, join(pkg, 'main.go'));
    await mkdir(dir, { recursive: true });
    const env = childEnv({
      GO111MODULE: 'off',
      GOPATH: `${gopath}:${GOCODE}`,
      GOCACHE: join(gopath, 'gocache'),
      GOPROXY: 'off',
      GOFLAGS: '',
      CGO_ENABLED: '0',
    });
    const built = await runCommand('go', ['build', '-o', join(gopath, 'chart-render'), '.'], {
      cwd: pkg,
      env,
    });
    if (built.code !== 0)
      throw new UnavailableError(FAILED, 'Building the chart renderer (go build) failed', {
        details: { output: tailLines(built.stderr + built.stdout, 30) },
        hint: `cd packages/testkit/go/chart-render and build it with GO111MODULE=off GOPATH=…:${GOCODE}`,
      });
    // Beside the binary first (the temp dir may be another filesystem), then renamed over it.
    const unique = `${binary}.${process.pid}.tmp`;
    await copyFile(join(gopath, 'chart-render'), unique);
    await rename(unique, binary);
    return binary;
  } finally {
    await rm(gopath, { recursive: true, force: true });
  }
}

export interface RenderChartOptions {
  /** Values, written to a file and given after the chart's values.yaml. */
  values?: Record<string, unknown>;
  /** More values files, after `values`. */
  valuesFiles?: readonly string[];
  /** `--set key=value` pairs, which win over the files. */
  set?: Readonly<Record<string, string>>;
  release?: string;
  namespace?: string;
}

export type RenderedChart =
  { ok: true; text: string; objects: Record<string, unknown>[] } | { ok: false; error: string };

/** `helm template` of `chartDir`: the objects, or the renderer's error (bad values, a template). */
export async function renderChart(
  chartDir: string,
  options: RenderChartOptions = {},
): Promise<RenderedChart> {
  const binary = await ensureChartRenderer();
  const temp = await mkdtemp(join(tmpdir(), 'sluice-chart-values-'));
  try {
    const args = ['--chart', chartDir];
    args.push(
      '--release',
      options.release ?? 'sluice',
      '--namespace',
      options.namespace ?? 'default',
    );
    if (options.values !== undefined) {
      const file = join(temp, 'values.json');
      await writeFile(file, JSON.stringify(options.values));
      args.push('--values', file);
    }
    for (const file of options.valuesFiles ?? []) args.push('--values', file);
    for (const [key, value] of Object.entries(options.set ?? {}))
      args.push('--set', `${key}=${value}`);
    const result = await runCommand(binary, args);
    if (result.code !== 0) return { ok: false, error: result.stderr.trim() };
    const objects = parseAllDocuments(result.stdout)
      .map((doc) => doc.toJS() as Record<string, unknown> | null)
      .filter((o): o is Record<string, unknown> => o !== null);
    return { ok: true, text: result.stdout, objects };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}
