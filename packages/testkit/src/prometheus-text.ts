/**
 * Reading `/metrics` (the server's and the agent's) in tests with a real Prometheus text-format parser
 * (parse-prometheus-text-format, the prom2json shape), and small lookups over what it returns.
 * That parser folds every series of a histogram into one sample, losing their labels, so a
 * histogram's `# TYPE` is kept aside and its `_bucket`, `_sum` and `_count` lines are parsed as
 * series of their own, each with its labels.
 * @module
 */
import assert from 'node:assert/strict';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export interface Sample {
  labels?: Record<string, string>;
  value?: string;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: string;
  metrics: Sample[];
}

export interface Scrape {
  /** `# TYPE` of every family as written: counter, gauge, histogram, ... */
  types: Map<string, string>;
  /** Families by name; a histogram `h` appears as `h_bucket`, `h_sum` and `h_count`. */
  families: Map<string, MetricFamily>;
}

export function parseMetrics(text: string): Scrape {
  const types = new Map<string, string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm))
    types.set(name ?? '', type ?? '');
  const unfolded = text.replace(/^(# TYPE \S+) histogram$/gm, '$1 untyped');
  const families = new Map<string, MetricFamily>();
  // A histogram's series alternate (buckets, sum, count per label set): one family per run.
  for (const f of parsePrometheusTextFormat(unfolded) as MetricFamily[]) {
    const seen = families.get(f.name);
    if (seen === undefined) families.set(f.name, { ...f, metrics: [...f.metrics] });
    else seen.metrics.push(...f.metrics);
  }
  return { types, families };
}

/** GETs `url`, checks the status and content type, and parses the text. */
export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  assert.equal(response.status, 200, `GET ${url}`);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseMetrics(await response.text());
}

/** Asserts the family is there (with its type); a histogram's count series. */
export function family(metrics: Scrape, name: string, type?: string): MetricFamily {
  const declared = metrics.types.get(name);
  assert.ok(declared !== undefined, `no series ${name} in /metrics`);
  if (type !== undefined) assert.equal(declared, type, `${name} is a ${declared}`);
  const found = metrics.families.get(declared === 'histogram' ? `${name}_count` : name);
  assert.ok(found !== undefined, `no samples of ${name} in /metrics`);
  return found;
}

/** The value of `name`'s sample whose labels include `labels` (a histogram: its count). */
export function sample(
  metrics: Scrape,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const match = family(metrics, name).metrics.find((m) =>
    Object.entries(labels).every(([key, value]) => m.labels?.[key] === value),
  );
  return match === undefined ? undefined : Number(match.value);
}
