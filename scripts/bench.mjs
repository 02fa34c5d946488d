#!/usr/bin/env node
// `npm run bench -- <name>`: runs bench/<name>/run.mjs (after `npm run build`). Each benchmark
// measures a baseline in the same run and prints one JSON object on its last line.
import { existsSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const names = process.argv.slice(2);
const available = readdirSync(`${root}bench`).filter((n) =>
  existsSync(`${root}bench/${n}/run.mjs`),
);
if (names.length === 0) {
  console.error(`usage: npm run bench -- <name>   (available: ${available.join(', ')})`);
  process.exit(2);
}
for (const name of names) {
  if (!available.includes(name)) {
    console.error(`no benchmark "${name}" (available: ${available.join(', ')})`);
    process.exit(2);
  }
  const result = spawnSync(process.execPath, [`${root}bench/${name}/run.mjs`], {
    stdio: 'inherit',
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
