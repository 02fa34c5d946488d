#!/usr/bin/env -S node --max-semi-space-size=2 --no-opt --no-maglev
// `sluice agent` as it is deployed: the same command, run by Node with the agent's V8 flags
// (also the command of the runtime chart's agent container), measured by bench/agent:
//   --max-semi-space-size=2  a 2 MiB young generation: under load V8 would otherwise grow it
//                            to 32 MiB for garbage the agent drops at once (parsed tasks,
//                            request bodies);
//   --no-opt --no-maglev     no optimising compilers (the interpreter and the baseline compiler
//                            remain): their code and type feedback were 5–8 MiB of a busy agent,
//                            whose work is waiting on the network, for CPU within the bench's
//                            noise (1.35–1.83 s for 600 tasks, against 1.5 s with them).
// It runs the agent bundle (src/agent-main.ts, minified by scripts/bundle-engine.mjs: about
// 3 MiB less resident) when that is fresh, else `sluice agent` through the command tree.
import { freshBundle } from './engine-bundle.js';

const bundle = freshBundle('agent-bundle', 'sluice-agent.mjs');
if (bundle === undefined) process.argv.splice(2, 0, 'agent');
await import(bundle ?? './sluice.js');
