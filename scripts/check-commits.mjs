#!/usr/bin/env node
// Commit messages against the house rule (scripts/lib/commit-messages.mjs).
//   node scripts/check-commits.mjs                 every commit from HEAD back to the rule's start
//                                                  (RULE_BASE, not itself checked); the test command
//                                                  runs it beside the format and lint checks
//   node scripts/check-commits.mjs --message-file F  one message: the commit-msg hook's check
//   node scripts/check-commits.mjs --install-hook  sets core.hooksPath to scripts/hooks
// A shallow clone that does not reach RULE_BASE checks the commits it has.
// Exits 1 naming each commit (or the message) and what is wrong with it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { messageProblems } from './lib/commit-messages.mjs';

/** The last commit made before the rule was checked: older subjects are history. */
const RULE_BASE = '8bc1a43';
const here = new URL('..', import.meta.url).pathname;
const git = (...args) => execFileSync('git', args, { cwd: here, encoding: 'utf8' });
const option = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
};

function report(problems) {
  for (const line of problems) process.stderr.write(`${line}\n`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}

if (process.argv.includes('--install-hook')) {
  git('config', 'core.hooksPath', 'scripts/hooks');
  process.stdout.write('commit messages are now checked by scripts/hooks/commit-msg\n');
} else if (option('message-file') !== undefined) {
  const problems = messageProblems(readFileSync(option('message-file'), 'utf8'));
  report(
    problems.length === 0
      ? []
      : [
          'commit message refused (CONTRIBUTING.md, "Commits"):',
          ...problems.map((p) => `  - ${p}`),
        ],
  );
} else {
  const base = RULE_BASE;
  // NUL between fields, RS between commits: subjects and bodies hold anything else.
  const log = git('log', '--abbrev=7', '--format=%h%x00%p%x00%B%x1e', 'HEAD');
  const problems = [];
  let checked = 0;
  for (const entry of log.split('\x1e')) {
    const [hash = '', parents = '', message = ''] = entry.replace(/^\n/, '').split('\x00');
    if (hash === '' || base.startsWith(hash) || hash.startsWith(base)) break;
    checked += 1;
    if (parents.trim().includes(' ')) continue;
    const found = messageProblems(message);
    const subject = message.split('\n')[0];
    for (const p of found) problems.push(`${hash} "${subject}": ${p}`);
  }
  report(problems);
  process.stdout.write(
    `commit messages: ${checked} since ${base}, ${problems.length === 0 ? 'ok' : 'refused'}\n`,
  );
}
