#!/usr/bin/env -S node --max-semi-space-size=2
// `sluice agent` as it is deployed: the same command, run by Node with a 2 MiB young generation.
// Under load V8 would otherwise grow the young generation to 32 MiB for garbage the agent drops
// at once (parsed tasks, request bodies); with 2 MiB the agent stays under the 100 MiB Codefresh
// requests for its runner while 100 builds run, at the same task throughput (bench/agent).
process.argv.splice(2, 0, 'agent');
await import('./sluice.js');
