/**
 * The control plane's Prometheus metrics, on a registry of its own (never prom-client's global
 * one, so two servers in one process, as in tests, keep theirs apart). Counted as things happen:
 * HTTP requests by route template, log lines received, builds handed to an agent (how long they
 * waited), builds finished by status. Read at each scrape: the builds not yet finished by status
 * and the two queues (builds pending, tasks waiting for an agent) from the database, in two
 * small queries with a time limit that read only unfinished work (through the account+status
 * index; the finished builds, which only grow, are never counted), and the database pool from
 * the driver. Plus the process's own metrics, prefixed `sluice_server_`.
 * @module
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { BUILD_STATUSES, sql } from '@sluice/db';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type { Database } from '@sluice/db';
import type { Logger } from '@sluice/log';
import { withTimeout } from './with-timeout.js';

export interface HttpRequestLabels {
  method: string;
  /** The route's template (`/api/v1/builds/:buildId`), or `unmatched`; never the raw URL. */
  route: string;
  /** `2xx`, `4xx`, ... */
  statusClass: string;
}

export interface ServerMetrics {
  readonly contentType: string;
  httpRequest(labels: HttpRequestLabels, seconds: number): void;
  logLinesReceived(lines: number): void;
  /** A build was handed to an agent for the first time, `seconds` after it was created. */
  buildDispatched(seconds: number): void;
  /** A build ended with `status` (counted by the transaction that ends it). */
  buildFinished(status: string): void;
  /** A scheduling pass for one account took `seconds`, electing `elected` builds. */
  schedulingPass(seconds: number, elected: number): void;
  /** A pipeline or step-type document was parsed, in place or in a worker thread. */
  documentParsed(kind: 'pipeline' | 'step-type', where: 'inline' | 'worker'): void;
  /** Reads the build logs' readers at each scrape (`LogHub.stats`). */
  observeLogReaders(read: () => LogReaderCounts): void;
  /** Reads the database-backed series, then renders every series as Prometheus text. */
  render(): Promise<string>;
}

/** What the build logs' readers hold of this server process now (`LogHub.stats`). */
export interface LogReaderCounts {
  /** SSE streams open. */
  streams: number;
  /** Streams whose socket has not taken the last write: their reader is slower than the log. */
  waitingForReader: number;
  /** Bytes written to streams that their sockets have not taken yet. */
  queuedBytes: number;
  /** Streams told to resume since the process started (they fell behind the live window). */
  behind: number;
  /** Text downloads open, and those waiting for their reader to take the last page. */
  downloads: number;
  downloadsWaiting: number;
  /** Builds followed live, and the bytes their windows of recent chunks hold. */
  liveBuilds: number;
  windowBytes: number;
}

export interface ServerMetricsOptions {
  database: Database;
  clock: () => number;
  log: Logger;
  /** A scrape's database reads give up after this long; default 2000. */
  queryTimeoutMs?: number;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const DISPATCH_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

export function createServerMetrics(options: ServerMetricsOptions): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'sluice_server_' });
  const registers = [registry];
  const http = new Histogram({
    name: 'sluice_server_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status class (long-polls and streams included)',
    labelNames: ['method', 'route', 'status_class'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const logLines = new Counter({
    name: 'sluice_server_log_lines_received_total',
    help: 'Build log lines received from engines (a chunk the engine resends counts again)',
    registers,
  });
  const dispatch = new Histogram({
    name: 'sluice_server_build_dispatch_seconds',
    help: 'Time from a build being created to its first task being handed to an agent',
    buckets: DISPATCH_BUCKETS,
    registers,
  });
  const finished = new Counter({
    name: 'sluice_server_builds_finished_total',
    help: 'Builds ended, by status (counted by the server process that ended them)',
    labelNames: ['status'],
    registers,
  });
  for (const status of FINISHED_STATUSES) finished.inc({ status }, 0);
  const passes = new Histogram({
    name: 'sluice_server_scheduling_pass_seconds',
    help: "Scheduling passes (one account's pending builds elected under its limits), from its transaction's start to its commit",
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const elected = new Counter({
    name: 'sluice_server_builds_elected_total',
    help: 'Builds elected by the scheduling passes of this server process',
    registers,
  });
  const parses = new Counter({
    name: 'sluice_server_document_parses_total',
    help: 'Pipeline and step-type documents parsed by this server process (not those answered from memory), in place or in a worker thread',
    labelNames: ['kind', 'where'],
    registers,
  });
  const fromDatabase = databaseSeries(registry, options);
  let readLogReaders: (() => LogReaderCounts) | undefined;
  logReaderSeries(registry, () => readLogReaders?.());
  return {
    contentType: registry.contentType,
    httpRequest: (labels, seconds) =>
      http.observe(
        { method: labels.method, route: labels.route, status_class: labels.statusClass },
        seconds,
      ),
    logLinesReceived: (lines) => logLines.inc(lines),
    buildDispatched: (seconds) => dispatch.observe(Math.max(0, seconds)),
    buildFinished: (status) => finished.inc({ status }),
    schedulingPass: (seconds, count) => {
      passes.observe(seconds);
      elected.inc(count);
    },
    documentParsed: (kind, where) => parses.inc({ kind, where }),
    observeLogReaders: (read) => (readLogReaders = read),
    async render() {
      await fromDatabase.refresh();
      return registry.metrics();
    },
  };
}

/** The log readers' series, read from the log hub at each scrape. */
function logReaderSeries(registry: Registry, read: () => LogReaderCounts | undefined): void {
  const registers = [registry];
  const gauge = (name: string, help: string, value: (c: LogReaderCounts) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const counts = read();
        if (counts !== undefined) this.set(value(counts));
      },
    });
  gauge('sluice_server_log_streams', 'Build log SSE streams open', (c) => c.streams);
  gauge(
    'sluice_server_log_streams_waiting',
    'Log streams whose reader has not taken the last event: nothing more is written to them until it does',
    (c) => c.waitingForReader,
  );
  gauge(
    'sluice_server_log_stream_queued_bytes',
    'Bytes written to log streams that their sockets have not taken yet',
    (c) => c.queuedBytes,
  );
  gauge(
    'sluice_server_log_streams_behind',
    'Log streams told to resume since the process started (they fell behind the live window)',
    (c) => c.behind,
  );
  gauge('sluice_server_log_downloads', 'Build log text downloads open', (c) => c.downloads);
  gauge('sluice_server_log_live_builds', 'Builds whose log is followed live', (c) => c.liveBuilds);
  gauge(
    'sluice_server_log_window_bytes',
    "Bytes held by the followed builds' windows of recent log chunks",
    (c) => c.windowBytes,
  );
}

interface DatabaseSeries {
  /** Sets the series from the database now; on failure `database_up` is 0 and they are absent. */
  refresh(): Promise<void>;
}

function databaseSeries(registry: Registry, options: ServerMetricsOptions): DatabaseSeries {
  const { database, clock, log } = options;
  const registers = [registry];
  const up = new Gauge({
    name: 'sluice_server_database_up',
    help: '1 when the last scrape could read the database, else 0 (the database series are then absent)',
    registers,
  });
  const builds = new Gauge({
    name: 'sluice_server_builds',
    help: 'Builds not yet finished, by status (pending, elected, running, pending-approval), all accounts',
    labelNames: ['status'],
    registers,
  });
  const depth = new Gauge({
    name: 'sluice_server_queue_depth',
    help: 'Waiting work: queue="builds" pending builds, queue="tasks" tasks ready for an agent',
    labelNames: ['queue'],
    registers,
  });
  const oldest = new Gauge({
    name: 'sluice_server_queue_oldest_age_seconds',
    help: 'Age of the oldest waiting item of each queue (0 when it is empty)',
    labelNames: ['queue'],
    registers,
  });
  new Gauge({
    name: 'sluice_server_db_pool_connections',
    help: 'Database pool connections by state (in_use, idle) and the pool maximum (max); PGlite has one',
    labelNames: ['kind', 'state'],
    registers,
    collect() {
      const stats = database.poolStats();
      const kind = database.kind;
      this.set({ kind, state: 'in_use' }, stats.total - stats.idle);
      this.set({ kind, state: 'idle' }, stats.idle);
      this.set({ kind, state: 'max' }, stats.max);
    },
  });
  new Gauge({
    name: 'sluice_server_db_pool_waiting',
    help: 'Queries waiting for a free database connection',
    labelNames: ['kind'],
    registers,
    collect() {
      this.set({ kind: database.kind }, database.poolStats().waiting);
    },
  });
  let failing = false;
  let inFlight: Promise<void> | undefined;

  const read = async () => {
    const now = clock();
    const [byStatus, tasks] = await withTimeout(
      readQueues(database, new Date(now)),
      options.queryTimeoutMs ?? 2000,
      'reading the metrics from the database',
    );
    builds.reset();
    for (const status of UNFINISHED) builds.set({ status }, 0);
    let pending = { count: 0, oldest: undefined as Date | undefined };
    for (const row of byStatus) {
      builds.set({ status: row.status }, row.count);
      if (row.status === 'pending') pending = { count: row.count, oldest: toDate(row.oldest) };
    }
    setQueue('builds', pending.count, pending.oldest, now);
    setQueue('tasks', tasks.count, toDate(tasks.oldest), now);
    up.set(1);
    if (failing) log.info('metrics read the database again');
    failing = false;
  };
  const setQueue = (queue: string, count: number, since: Date | undefined, now: number) => {
    depth.set({ queue }, count);
    oldest.set({ queue }, since === undefined ? 0 : Math.max(0, (now - since.getTime()) / 1000));
  };
  const refresh = async () => {
    try {
      await read();
    } catch (err) {
      up.set(0);
      builds.reset();
      depth.reset();
      oldest.reset();
      if (!failing) log.warn('metrics cannot read the database', { error: String(err) });
      failing = true;
    }
  };
  return {
    // Scrapes that overlap share one read.
    refresh: () => (inFlight ??= refresh().finally(() => (inFlight = undefined))),
  };
}

interface CountRow {
  count: number;
  oldest: Date | string | null;
}

const UNFINISHED = BUILD_STATUSES.filter((status) => !FINISHED_STATUSES.includes(status));

/**
 * Unfinished builds by status (with the oldest of each), and the tasks ready for an agent now.
 * Builds are read account by account through the (account_id, status) index, so the cost is
 * the unfinished builds', however many have finished.
 */
async function readQueues(
  database: Database,
  now: Date,
): Promise<[(CountRow & { status: string })[], CountRow]> {
  const byStatus = await sql<CountRow & { status: string }>`
    select b.status, count(*)::int as count, min(b.created_at) as oldest
    from accounts a cross join lateral (
      select status, created_at from builds
      where account_id = a.id and status in (${sql.join(UNFINISHED)})
    ) b
    group by b.status`.execute(database.db);
  // Per runtime through the (runtime, status, available_at) index: done tasks are never read.
  const tasks = await sql<CountRow>`
    select count(*)::int as count, min(t.available_at) as oldest
    from (select distinct name from runtime_environments) r
    cross join lateral (
      select available_at from tasks
      where runtime = r.name and status = 'queued' and available_at <= ${now}
    ) t`.execute(database.db);
  return [byStatus.rows, tasks.rows[0] ?? { count: 0, oldest: null }];
}

function toDate(value: Date | string | null | undefined): Date | undefined {
  if (value === null || value === undefined) return undefined;
  return value instanceof Date ? value : new Date(value);
}
