#!/usr/bin/env node
// log-latency: how soon a line a step prints shows on the build page in the browser, and how
// many lines a second the server takes in while builds log at once. Against `sluice up` (the
// built CLI on PGlite in a temp directory, builds on the Docker engine) and the web UI in
// Debian's Chromium (playwright-core).
//   p50_ms, p99_ms     a step prints a line every 10 ms (BENCH_LINES, 2,000); for each line, the
//                      time from the engine reading it (the line's `at` in the log API) to the
//                      build page first showing it (a MutationObserver in the page, same clock)
//   seen               how many of the lines the page was seen to show (rows scroll past in
//                      follow mode; a line rendered and replaced within one frame is not seen)
//   ingest_lines_per_s BENCH_BUILDS (20) builds each printing BENCH_BURST (10,000) lines as fast
//                      as they can, at once: all their lines over the time from the first line
//                      read by an engine to the last build finished (every line stored by then);
//                      with each build's own lines per second (median) and how far apart the
//                      builds' first lines came (`first_line_spread_s`)
//   baseline_ms        the p50 of the same lines read from the log API's SSE stream by Node
//                      alone (no browser), in the same run
//   server_ingest      the server alone (server-ingest.mjs): `sluice server` on PGlite, 20
//                      clients posting 10,000 lines each as engines do, over real HTTP, at once,
//                      in chunks of 2,000 lines (what a busy engine sends: build-outbox.ts) and of
//                      200 (a quiet engine's, and every engine's before it batched by round trip)
// Goal: p99_ms at most 250, lines a second ingested by the server at least 50,000. `met` says
// which goal each figure meets: the end-to-end ingest is bounded by how fast 20 engines and their
// containers read lines on this machine's 2 cores, the server-only one by the server.
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { createClient } from '@sluice/protocol';
import { ensureDockerEngine, ensureTestImages, makeTempDir, waitFor } from '@sluice/testkit';
import { startSluice, waitForUp } from '../../test/dist/e2e/cli-harness.js';
import { createPipelines } from '../../test/dist/e2e/control-plane-seed.js';
import { launchChromium } from '../../test/dist/e2e/browser.js';
import { serverIngest } from './server-ingest.mjs';

const LINES = Number(process.env.BENCH_LINES ?? 2000);
const BUILDS = Number(process.env.BENCH_BUILDS ?? 20);
const BURST = Number(process.env.BENCH_BURST ?? 10_000);
const PROJECT = 'bench';
const TICKING = `version: "1.0"
steps:
  tick:
    image: sluice/busybox:1
    commands:
      - i=0; while [ $i -lt ${LINES} ]; do i=$((i+1)); echo "L $i"; sleep 0.01; done
`;
const BURSTING = `version: "1.0"
steps:
  burst:
    image: sluice/busybox:1
    commands:
      - seq 1 ${BURST}
`;

const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
};
const log = (line) => console.log(line);

/** Every line of a build's log with its `at`, read from the SSE stream to its end event. */
async function readLog(url, token, buildId, onLine = () => {}) {
  const response = await fetch(`${url}/api/v1/builds/${buildId}/log/stream`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
  });
  const lines = [];
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const bytes of response.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!/^event: log$/m.test(event)) continue;
      const data = /^data: (.*)$/m.exec(event)?.[1] ?? '{}';
      const now = Date.now();
      for (const line of JSON.parse(data).lines) {
        lines.push(line);
        onLine(line, now);
      }
    }
  }
  return lines;
}

async function finished(admin, buildId, timeoutMs = 600_000) {
  return waitFor(
    () => admin.call('getBuild', { params: { buildId } }),
    (b) => b.timing.finishedAt !== undefined,
    { what: `build ${buildId} to finish`, intervalMs: 100, timeoutMs },
  );
}

// Records, in the page, when each "L n" row is first in the DOM.
const OBSERVE = `(() => {
  window.__seen = {};
  const mark = () => {
    const now = Date.now();
    for (const row of document.querySelectorAll('.log-line .lt')) {
      const m = /^L (\\d+)$/.exec(row.textContent);
      if (m && window.__seen[m[1]] === undefined) window.__seen[m[1]] = now;
    }
  };
  new MutationObserver(mark).observe(document.body, { childList: true, subtree: true });
  mark();
})()`;

async function latency(url, token, admin, pipelineId, browser) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.fill('#token', token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Builds' }).waitFor();
  const build = await admin.call('createBuild', { params: { pipelineId }, body: {} });
  await page.goto(`${url}/builds/${build.id}`);
  await page.getByRole('log').waitFor();
  await page.evaluate(OBSERVE);
  const nodeSeen = {};
  const lines = await readLog(url, token, build.id, (line, now) => {
    const n = /^L (\d+)$/.exec(line.line)?.[1];
    if (n) nodeSeen[n] = now;
  });
  await finished(admin, build.id);
  await page.getByText(/complete · \d+ lines/).waitFor();
  const seen = await page.evaluate('window.__seen');
  await page.close();
  const browserMs = [];
  const nodeMs = [];
  for (const line of lines) {
    const n = /^L (\d+)$/.exec(line.line)?.[1];
    if (!n) continue;
    const at = Date.parse(line.at);
    if (seen[n] !== undefined) browserMs.push(seen[n] - at);
    if (nodeSeen[n] !== undefined) nodeMs.push(nodeSeen[n] - at);
  }
  return { browserMs, nodeMs, printed: lines.filter((l) => /^L \d+$/.test(l.line)).length };
}

async function ingest(url, token, admin, pipelineId) {
  const builds = await Promise.all(
    Array.from({ length: BUILDS }, () =>
      admin.call('createBuild', { params: { pipelineId }, body: {} }),
    ),
  );
  // A build that has not ended 5 minutes on is left out and counted (`stuck`), not waited for.
  const ended = await Promise.all(
    builds.map((b) => finished(admin, b.id, 300_000).catch(() => undefined)),
  );
  const done = ended.filter((b) => b !== undefined);
  const failed = done.filter((b) => b.status !== 'success');
  if (failed.length > 0) throw new Error(`${failed.length} burst builds did not succeed`);
  const logs = await Promise.all(done.map((b) => readLog(url, token, b.id)));
  const numbered = logs.flat().filter((l) => /^\d+$/.test(l.line));
  // Reduced, not spread: 200,000 arguments overflow the stack.
  const times = numbered.map((l) => Date.parse(l.at));
  const first = times.reduce((a, b) => Math.min(a, b), Infinity);
  const lastRead = times.reduce((a, b) => Math.max(a, b), -Infinity);
  const last = done.reduce((a, b) => Math.max(a, Date.parse(b.timing.finishedAt)), -Infinity);
  // Each build's own reading (its first to last line) and when each began: is the figure the
  // engines' reading or the builds starting one after another?
  const spans = logs.map((lines) => {
    const at = lines.filter((l) => /^\d+$/.test(l.line)).map((l) => Date.parse(l.at));
    return { from: Math.min(...at), to: Math.max(...at), lines: at.length };
  });
  const perBuild = spans.map((s) => s.lines / Math.max(0.001, (s.to - s.from) / 1000));
  return {
    stuck: builds.length - done.length,
    lines: numbered.length,
    seconds: (last - first) / 1000,
    readSeconds: (lastRead - first) / 1000,
    perBuildLinesPerS: Math.round(percentile(perBuild, 0.5)),
    firstLineSpreadS: (Math.max(...spans.map((s) => s.from)) - first) / 1000,
  };
}

await ensureDockerEngine();
await ensureTestImages();
const browser = await launchChromium();
const temp = await makeTempDir('sluice-bench-log-latency-');
const cli = startSluice(['up', '--port', '0', '--data-dir', temp.path]);
try {
  const { url, token } = await waitForUp(cli);
  const admin = createClient({ baseUrl: url, token });
  const ids = await createPipelines(admin, PROJECT, { ticking: TICKING, bursting: BURSTING });
  const loadAtStart = loadavg()[0];
  const lat = await latency(url, token, admin, ids.ticking, browser);
  log(
    `latency: ${lat.browserMs.length}/${lat.printed} lines seen in the page, p50 ${percentile(lat.browserMs, 0.5)} ms, p99 ${percentile(lat.browserMs, 0.99)} ms`,
  );
  const burst = await ingest(url, token, admin, ids.bursting);
  log(`ingest: ${burst.lines} lines from ${BUILDS} builds in ${burst.seconds} s`);
  const server = {
    busy: await serverIngest({ builds: BUILDS, lines: BURST, chunkLines: 2000 }),
    small: await serverIngest({ builds: BUILDS, lines: BURST, chunkLines: 200 }),
  };
  log(
    `server ingest: ${server.busy.lines_per_s} lines/s (2,000-line chunks), ${server.small.lines_per_s} (200)`,
  );
  const p50 = percentile(lat.browserMs, 0.5);
  const p99 = percentile(lat.browserMs, 0.99);
  const perSecond = Math.round(burst.lines / burst.seconds);
  console.log(
    JSON.stringify({
      bench: 'log-latency',
      lines: LINES,
      seen: lat.browserMs.length,
      p50_ms: p50,
      p99_ms: p99,
      baseline_ms: { p50: percentile(lat.nodeMs, 0.5), p99: percentile(lat.nodeMs, 0.99) },
      ingest_lines_per_s: perSecond,
      ingest: {
        builds: BUILDS,
        stuck: burst.stuck,
        lines: burst.lines,
        seconds: burst.seconds,
        // How fast the engines read the lines (first to last `at`): the ceiling on ingest here.
        engines_lines_per_s: Math.round(burst.lines / burst.readSeconds),
        // One build's own lines over its own first to last line, the median build.
        per_build_lines_per_s: burst.perBuildLinesPerS,
        // From the first build's first line to the last build's first line.
        first_line_spread_s: burst.firstLineSpreadS,
      },
      server_ingest_lines_per_s: server.busy.lines_per_s,
      server_ingest: server,
      goal: { p99_ms: 250, ingest_lines_per_s: 50_000 },
      met: {
        p99: p99 <= 250,
        server_ingest: server.busy.lines_per_s >= 50_000,
        end_to_end_ingest: perSecond >= 50_000,
      },
      machine: {
        cpus: cpus().length,
        loadavg_1m: [Math.round(loadAtStart * 100) / 100, Math.round(loadavg()[0] * 100) / 100],
      },
    }),
  );
} finally {
  await browser.close();
  cli.child.kill('SIGTERM');
  await cli.done;
  for (const name of ['ticking', 'bursting'])
    spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${PROJECT}-${name}`]);
  await temp.cleanup();
}
