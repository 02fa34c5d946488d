#!/usr/bin/env -S node --max-semi-space-size=1 --no-opt --no-maglev --max-old-space-size=256 --incremental-marking-soft-trigger=10 --incremental-marking-hard-trigger=30
// `sluice agent` as it is deployed: the same command, run by Node with the agent's V8 flags
// (also the command of the runtime chart's agent container), measured by bench/agent:
//   --max-semi-space-size=1  a 1 MiB young generation (2 MiB: 1.5 MiB more of a busy agent):
//                            under load V8 would otherwise grow it to 32 MiB for garbage the
//                            agent drops at once (parsed tasks, request bodies);
//   --no-opt --no-maglev     no optimising compilers (the interpreter and the baseline compiler
//                            remain): their code and type feedback were 5–8 MiB of a busy agent,
//                            whose work is waiting on the network, for CPU within the bench's
//                            noise (1.35–1.83 s for 600 tasks, against 1.5 s with them);
//   --max-old-space-size=256 the runtime chart's memory limit for the agent container: at or
//                            under 256 MiB V8 lets the old generation grow by its least factor
//                            (1.3) between full collections, where from this machine's default
//                            limit it allows up to 4, garbage it keeps until then: 3–5 MiB of a
//                            busy agent (whose live heap is about 20 MiB with 100 builds), for
//                            about 0.3 s more CPU on 600 tasks;
//   --incremental-marking-soft-trigger=10 --incremental-marking-hard-trigger=30
//                            V8 starts marking the old generation early (the thresholds, in
//                            percent, at which it starts by a task and at once), where it
//                            otherwise waits until the old generation nears its limit (here
//                            about 8 MiB over what survived): a busy agent's garbage (whole
//                            Kubernetes list bodies every 2 s, parsed tasks) is collected
//                            before the old generation grows to hold it (its peak 20 → 16 MiB):
//                            busy 68–69 MiB against 76–77 (bench/agent), for about 0.5 s more
//                            CPU on 600 tasks.
// It runs the agent bundle (src/agent-entry.ts, minified by scripts/bundle-engine.mjs: about
// 3 MiB less resident) when that is fresh, else `sluice agent` through the command tree.
import { freshBundle } from './engine-bundle.js';

const bundle = freshBundle('agent-bundle', 'sluice-agent.mjs');
if (bundle === undefined) process.argv.splice(2, 0, 'agent');
await import(bundle ?? './sluice.js');
