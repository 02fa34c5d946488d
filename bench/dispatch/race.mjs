#!/usr/bin/env node
// Shows the lost wake-up behind the 5 s dispatch and 15 s log outliers of run.mjs (not a
// benchmark: `node bench/dispatch/race.mjs`, after `npm run build`). On PostgreSQL it holds one
// read of a long-poll for 300 ms (a query-result plugin on the server's database, no server code
// changed) and makes the change it should notice during that read:
// - the agent's claim (`update tasks ... returning`) while a build is created: the task's NOTIFY
//   arrives before the poll waits for it, so the task waits for the poll's 5 s re-check;
// - the live log's read (the one read per new chunk all of a build's SSE readers share) while
//   the engine posts a chunk: the chunk would wait for the next chunk or the 15 s tick.
import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '@sluice/db';
import { createClient } from '@sluice/protocol';
import { createServer } from '@sluice/server';
import {
  acknowledge,
  ADMIN_TOKEN,
  benchConfig,
  readEvents,
  seedBench,
  withPlugin,
} from './bench-server.mjs';
import { createTestDatabase, startPostgres } from '@sluice/testkit';

const ROUNDS = Number(process.env.RACE_ROUNDS ?? 3);
const HOLD_MS = 300;
const now = () => performance.now();
const als = new AsyncLocalStorage();
/** Which query result to hold next: `{ op, kind, skip }` (skip that many matches first). */
let hold;
let held; // resolves when the held query has started being held
const kinds = new Map();
const plugin = {
  transformQuery({ node, queryId }) {
    kinds.set(queryId, node.kind);
    return node;
  },
  async transformResult({ result, queryId }) {
    const kind = kinds.get(queryId);
    kinds.delete(queryId);
    const op = hold?.op;
    if (hold !== undefined && (op === undefined || als.getStore() === op) && kind === hold.kind) {
      if (hold.skip-- > 0) return result;
      hold = undefined;
      held?.();
      await sleep(HOLD_MS);
    }
    return result;
  },
};
function tag(obj, name, op) {
  const original = obj[name].bind(obj);
  obj[name] = (...args) => als.run(op, () => original(...args));
}

const pg = await startPostgres();
const raw = await openDatabase({
  url: await createTestDatabase(pg.url, `sluice_race_${process.pid}`),
});
const server = await createServer({ config: benchConfig(), database: withPlugin(raw, plugin) });
tag(server.services.tasks, 'poll', 'poll');
const url = await server.listen();
const { admin, pipelineId, newAgent } = await seedBench(url);
const agent = await newAgent('a');
const ack = (task) => acknowledge(agent, task);

// Warm-up: the first createBuild is slow enough (cold code) to land after the hold.
await admin.call('createBuild', { params: { pipelineId }, body: {} });
for (const task of (await agent.call('pollTasks', { query: { wait: 5 } })).tasks) await ack(task);

console.log(`dispatch: build created while the poll's claim is held ${HOLD_MS} ms`);
let engine;
let buildId;
for (let i = 0; i < ROUNDS; i++) {
  const started = new Promise((resolve) => (held = resolve));
  hold = { op: 'poll', kind: 'UpdateQueryNode', skip: 0 }; // the claim, which finds nothing
  const poll = agent.call('pollTasks', { query: { wait: 30 } });
  await started;
  const t0 = now();
  const created = await admin.call('createBuild', {
    params: { pipelineId },
    body: {},
  });
  const { tasks } = await poll;
  let task = tasks.find((t) => t.buildId === created.id);
  if (task === undefined) {
    // The held claim missed it (its snapshot predates the task): the next poll must find it.
    const next = await agent.call('pollTasks', { query: { wait: 30 } });
    task = next.tasks.find((t) => t.buildId === created.id);
  }
  console.log(`  round ${i + 1}: task at the agent after ${(now() - t0).toFixed(0)} ms`);
  await ack(task);
  engine = createClient({ baseUrl: url, token: String(task.spec.engineToken) });
  buildId = created.id;
}

console.log(`log: chunk posted while the live log's read is held ${HOLD_MS} ms`);
const response = await fetch(`${url}/api/v1/builds/${buildId}/log/stream`, {
  headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
});
const arrivals = new Map();
let attached;
const attachedP = new Promise((resolve) => (attached = resolve));
const reading = readEvents(response, (event) => {
  if (event.startsWith(': keep-alive')) attached();
  const id = /^id: (\d+)$/m.exec(event);
  if (id !== null) arrivals.get(Number(id[1]))?.();
});
await attachedP;
for (let seq = 0; seq < ROUNDS; seq++) {
  await sleep(50); // let the follower park
  // The live log waits now. Wake it with a chunk: its read of that chunk (the log's one raw
  // query) is held, and our chunk is posted meanwhile.
  const started = new Promise((resolve) => (held = resolve));
  hold = { op: undefined, kind: 'RawNode', skip: 1 }; // skip the chunk's own insert
  const line = (text) => [
    { step: 'build', stream: 'stdout', line: text, at: new Date().toISOString() },
  ];
  const arrived = new Promise((resolve) => arrivals.set(seq * 2 + 1, resolve));
  await engine.call('engineLog', { body: { seq: seq * 2, lines: line('wake') } });
  await started;
  const t0 = now();
  await engine.call('engineLog', { body: { seq: seq * 2 + 1, lines: line('measured') } });
  await arrived;
  console.log(`  round ${seq + 1}: chunk on the stream after ${(now() - t0).toFixed(0)} ms`);
}
await engine.call('engineEvents', {
  body: { events: [{ type: 'build-finished', status: 'success', at: new Date().toISOString() }] },
});
await reading;
await server.close();
await raw.close();
await pg.stop();
