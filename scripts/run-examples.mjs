#!/usr/bin/env node
// Runs the example pipelines with the built `sluice` CLI on the local Docker engine, printing
// their logs. Exits non-zero if any example does not end as expected.
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const sluice = `${root}apps/cli/bin/sluice.js`;
const examples = [
  { file: 'examples/hello/codefresh.yml', args: ['--branch', 'main'] },
  {
    file: 'examples/git-clone/codefresh.yml',
    args: ['--var', `REPO_URL=file://${root}`, '--var', `REVISION=${headRevision()}`],
  },
  {
    file: 'examples/conditional/codefresh.yml',
    args: ['--branch', 'main', '--var', 'FILES_CHANGED=12'],
  },
];

function headRevision() {
  const out = spawnSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`cannot read the repository's HEAD: ${out.stderr}`);
  return out.stdout.trim();
}

let failed = 0;
for (const example of examples) {
  console.log(`\n\u001b[1m$ sluice run ${example.file} ${example.args.join(' ')}\u001b[0m`);
  const result = spawnSync(process.execPath, [sluice, 'run', example.file, ...example.args], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    failed += 1;
    console.error(`example ${example.file} exited with ${result.status ?? result.signal}`);
  }
}
console.log(`\n${examples.length - failed} of ${examples.length} examples succeeded`);
process.exitCode = failed === 0 ? 0 : 1;
