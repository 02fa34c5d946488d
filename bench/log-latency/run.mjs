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
//                      as they can, all at once: each build's step prints `ready`, then waits
//                      for a file (/tmp/go); once every build's `ready` has come through the log
//                      API the bench writes in all 20 step containers (`docker exec`; containers
//                      cannot reach the host here) a common start time BENCH_RELEASE_AHEAD_S (6)
//                      ahead, which every step waits for. A reader on each build's SSE stream
//                      (attached before the release) notes when each line comes out of the
//                      server: the figure is the lines that came out while all 20 were printing
//                      (from the last build's first line to the first build's last line) over
//                      that window. Beside it: all lines from the release to the last line out
//                      (`released_lines_per_s`), the whole-run figure as before (first line read
//                      by an engine to the last build finished: `whole_run_lines_per_s`), each
//                      build's own lines per second (median) and how far apart the builds' first
//                      lines came (`first_line_spread_s`, by the engines' `at`). Every build's
//                      log is then read back whole: each number once, in order, none lost.
//   baseline_ms        the p50 of the same lines read from the log API's SSE stream by Node
//                      alone (no browser), in the same run
//   server_ingest      the server alone (server-ingest.mjs): `sluice server` on PGlite, 20
//                      clients posting 10,000 lines each as engines do, over real HTTP, at once,
//                      in chunks of 2,000 lines (what a busy engine sends: build-outbox.ts) and of
//                      200 (a quiet engine's, and every engine's before it batched by round trip)
// Goal: p99_ms at most 250, lines a second ingested by the server at least 50,000. `met` says
// which goal each figure meets: the end-to-end one (`ingest_lines_per_s`, the window in which all
// 20 builds print) and the server-only one.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
// The step prints `ready`, then waits until the bench puts /tmp/go in its container: a start
// time in the host's uptime (hundredths of a second, /proc/uptime is the kernel's, shared with
// the containers), which it sleeps until, coarsely then the last 0.15 s in the shell alone.
const BURSTING = `version: "1.0"
steps:
  burst:
    image: sluice/busybox:1
    commands:
      - echo ready
      - until [ -e /tmp/go ]; do sleep 0.1; done; read t < /tmp/go; while IFS='. ' read s c x < /proc/uptime; [ $s$c -lt $((t-15)) ]; do sleep 0.1; done; while IFS='. ' read s c x < /proc/uptime; [ $s$c -lt $t ]; do :; done
      - seq 1 ${BURST}
`;
// How far ahead of now the common start is set: more than 20 `docker exec`s take here.
const RELEASE_AHEAD_S = Number(process.env.BENCH_RELEASE_AHEAD_S ?? 6);
/** The host's uptime in hundredths of a second, as the steps read it. */
const uptimeCs = () => Math.round(Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 100);

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
  await page.getByText('Use an API token instead').click();
  await page.fill('#token', token);
  await page.getByRole('button', { name: 'Sign in with the token' }).click();
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

/** Gives every build's step the common start time, in /tmp/go of its container; when it is. */
async function release(builds) {
  const start = uptimeCs() + RELEASE_AHEAD_S * 100;
  const at = Date.now() + RELEASE_AHEAD_S * 1000;
  const write = (b) =>
    new Promise((resolve, reject) => {
      const child = spawn('docker', [
        'exec',
        `sluice-${b.id}-burst-1`,
        'sh',
        '-c',
        `echo ${start} > /tmp/start && mv /tmp/start /tmp/go`,
      ]);
      child.on('error', reject);
      child.on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`docker exec in ${b.id}'s step: exit ${code}`)),
      );
    });
  await Promise.all(builds.map(write));
  if (Date.now() > at)
    throw new Error(
      `the start time was given late: set BENCH_RELEASE_AHEAD_S above ${RELEASE_AHEAD_S}`,
    );
  return at;
}

async function ingest(url, token, admin, pipelineId) {
  const builds = await Promise.all(
    Array.from({ length: BUILDS }, () =>
      admin.call('createBuild', { params: { pipelineId }, body: {} }),
    ),
  );
  // Each build's SSE stream read from now: when each of its lines came out of the server.
  const ready = new Set();
  const out = builds.map(() => []);
  const reading = builds.map((b, i) =>
    readLog(url, token, b.id, (line, now) => {
      if (line.line === 'ready') ready.add(i);
      else if (/^\d+$/.test(line.line)) out[i].push(now);
    }),
  );
  // Every step running and waiting (its `ready` read back through the API), then all released.
  await waitFor(
    () => ready.size,
    (n) => n === builds.length,
    { what: `all ${builds.length} burst steps to print ready`, intervalMs: 50, timeoutMs: 300_000 },
  );
  const given = Date.now();
  const released = await release(builds);
  const releaseS = (Date.now() - given) / 1000;
  // A build that has not ended 5 minutes on is left out and counted (`stuck`), not waited for.
  const ended = await Promise.all(
    builds.map((b) => finished(admin, b.id, 300_000).catch(() => undefined)),
  );
  await Promise.all(reading);
  const done = ended.filter((b) => b !== undefined);
  const failed = done.filter((b) => b.status !== 'success');
  if (failed.length > 0) throw new Error(`${failed.length} burst builds did not succeed`);
  // Read back whole: every number once and in order in each build's stored log.
  const logs = await Promise.all(done.map((b) => readLog(url, token, b.id)));
  logs.forEach((lines, i) => {
    const numbers = lines.filter((l) => /^\d+$/.test(l.line)).map((l) => Number(l.line));
    const wrong = numbers.findIndex((n, k) => n !== k + 1);
    if (numbers.length !== BURST || wrong >= 0)
      throw new Error(
        `build ${done[i].id}: ${numbers.length} of ${BURST} lines stored, first out of order at ${wrong}`,
      );
  });
  const numbered = logs.flat().filter((l) => /^\d+$/.test(l.line));
  // Reduced, not spread: 200,000 arguments overflow the stack.
  const times = numbered.map((l) => Date.parse(l.at));
  const first = times.reduce((a, b) => Math.min(a, b), Infinity);
  const last = done.reduce((a, b) => Math.max(a, Date.parse(b.timing.finishedAt)), -Infinity);
  // Each build's own reading (its first to last line, by the engine's `at`) and when each began.
  const spans = logs.map((lines) => {
    const at = lines.filter((l) => /^\d+$/.test(l.line)).map((l) => Date.parse(l.at));
    return { from: Math.min(...at), to: Math.max(...at), lines: at.length };
  });
  const perBuild = spans.map((s) => s.lines / Math.max(0.001, (s.to - s.from) / 1000));
  // Out of the server: the window in which every build was printing (the last build's first
  // line out to the first build's last line out) and the lines that came out within it.
  const outs = out.filter((o) => o.length > 0);
  const allIn = Math.max(...outs.map((o) => o[0]));
  const firstDone = Math.min(...outs.map((o) => o[o.length - 1]));
  const lastOut = Math.max(...outs.map((o) => o[o.length - 1]));
  const inWindow = outs.reduce(
    (n, o) => n + o.filter((t) => t >= allIn && t <= firstDone).length,
    0,
  );
  const windowS = (firstDone - allIn) / 1000;
  return {
    stuck: builds.length - done.length,
    releaseS,
    lines: numbered.length,
    windowLines: inWindow,
    windowSeconds: windowS,
    windowLinesPerS: windowS > 0 ? Math.round(inWindow / windowS) : null,
    releasedSeconds: (lastOut - released) / 1000,
    releasedLinesPerS: Math.round(numbered.length / ((lastOut - released) / 1000)),
    firstOutAfterReleaseS: (Math.min(...outs.map((o) => o[0])) - released) / 1000,
    outSpreadS: (allIn - Math.min(...outs.map((o) => o[0]))) / 1000,
    seconds: (last - first) / 1000,
    readSeconds: (times.reduce((a, b) => Math.max(a, b), -Infinity) - first) / 1000,
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
  const ids = await createPipelines(admin, PROJECT, {
    ticking: TICKING,
    bursting: BURSTING,
  });
  const loadAtStart = loadavg()[0];
  const lat = await latency(url, token, admin, ids.ticking, browser);
  log(
    `latency: ${lat.browserMs.length}/${lat.printed} lines seen in the page, p50 ${percentile(lat.browserMs, 0.5)} ms, p99 ${percentile(lat.browserMs, 0.99)} ms`,
  );
  const burst = await ingest(url, token, admin, ids.bursting);
  log(
    `ingest: ${burst.windowLines} lines out in the ${burst.windowSeconds} s all ${BUILDS} builds printed, ${burst.lines} in ${burst.releasedSeconds} s from the release`,
  );
  const server = {
    busy: await serverIngest({ builds: BUILDS, lines: BURST, chunkLines: 2000 }),
    small: await serverIngest({ builds: BUILDS, lines: BURST, chunkLines: 200 }),
  };
  log(
    `server ingest: ${server.busy.lines_per_s} lines/s (2,000-line chunks), ${server.small.lines_per_s} (200)`,
  );
  const p50 = percentile(lat.browserMs, 0.5);
  const p99 = percentile(lat.browserMs, 0.99);
  const wholeRun = Math.round(burst.lines / burst.seconds);
  const perSecond = burst.windowLinesPerS;
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
        // How long giving the start time to all 20 took (20 `docker exec`s at once).
        release_s: burst.releaseS,
        lines: burst.lines,
        // The window in which all builds were printing, by when lines came out of the server.
        window_lines: burst.windowLines,
        window_s: burst.windowSeconds,
        // All lines from the release to the last line out of the server.
        released_lines_per_s: burst.releasedLinesPerS,
        released_s: burst.releasedSeconds,
        first_out_after_release_s: burst.firstOutAfterReleaseS,
        // From the first build's first line out to the last build's first line out.
        first_out_spread_s: burst.outSpreadS,
        // As before the gate: first line read by an engine to the last build finished.
        whole_run_lines_per_s: wholeRun,
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
        end_to_end_ingest: perSecond !== null && perSecond >= 50_000,
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
