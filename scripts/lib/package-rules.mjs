// Who may import whom: the one copy of the package rules. scripts/check-boundaries.mjs enforces
// them, and ARCHITECTURE.md's table "Who imports whom" is rendered from them (`renderTable`,
// between its `boundaries` markers; `node scripts/check-boundaries.mjs --write` rewrites it, and
// the check fails while the two differ).

export const ALLOWED = {
  '@sluice/errors': [],
  '@sluice/process': [],
  '@sluice/labels': [],
  '@sluice/config': ['@sluice/errors'],
  '@sluice/pipeline': ['@sluice/errors'],
  '@sluice/pki': ['@sluice/errors'],
  '@sluice/triggers': ['@sluice/errors', '@sluice/pipeline'],
  '@sluice/runtime-spec': ['@sluice/errors', '@sluice/labels'],
  '@sluice/protocol': ['@sluice/errors'],
  '@sluice/log': ['@sluice/errors'],
  '@sluice/docker': ['@sluice/errors', '@sluice/config'],
  '@sluice/db': ['@sluice/errors', '@sluice/process'],
  '@sluice/testkit': ['@sluice/errors', '@sluice/process'],
  // The proxy rule of the Kubernetes client is the control plane's transport's (@sluice/protocol/node).
  '@sluice/kube': ['@sluice/errors', '@sluice/config', '@sluice/protocol'],
  '@sluice/engine': [
    '@sluice/errors',
    '@sluice/config',
    '@sluice/process',
    '@sluice/labels',
    '@sluice/pipeline',
    '@sluice/docker',
    '@sluice/log',
    '@sluice/protocol',
  ],
  '@sluice/server': [
    '@sluice/errors',
    '@sluice/process',
    '@sluice/log',
    '@sluice/pipeline',
    '@sluice/protocol',
    '@sluice/db',
    '@sluice/pki',
    '@sluice/runtime-spec',
    '@sluice/triggers',
    '@sluice/config',
  ],
  '@sluice/runner': [
    '@sluice/errors',
    '@sluice/process',
    '@sluice/labels',
    '@sluice/docker',
    '@sluice/kube',
    '@sluice/log',
    '@sluice/protocol',
    '@sluice/config',
    // A warm-pool pod's handover port is TLS with a certificate made for that pod.
    '@sluice/pki',
  ],
  '@sluice/provisioner': [
    '@sluice/errors',
    '@sluice/process',
    '@sluice/config',
    '@sluice/kube',
    '@sluice/log',
    '@sluice/runtime-spec',
  ],
  // The web UI talks to the server only through the public API's typed client.
  '@sluice/web': ['@sluice/errors', '@sluice/protocol'],
  // The CLI is the single `sluice` binary: the one place allowed to compose other apps, through
  // their `main` entries (scripts/lib/entry-rules.mjs).
  '@sluice/cli': [
    '@sluice/errors',
    '@sluice/process',
    '@sluice/pipeline',
    '@sluice/docker',
    '@sluice/log',
    '@sluice/engine',
    '@sluice/server',
    '@sluice/runner',
    '@sluice/runtime-spec',
    '@sluice/protocol',
    // runner init|delete|upgrade install the runtime's objects through the one Kubernetes client.
    '@sluice/kube',
    '@sluice/config',
    // sluice provisioner runs the volume provisioner.
    '@sluice/provisioner',
  ],
};
// Tests may also use the internal CA to make real certificates (the docker package's TLS tests)
// and render real build objects (the runner's Kubernetes tests).
export const TEST_ONLY = ['@sluice/testkit', '@sluice/pki', '@sluice/runtime-spec'];
export const PURE = new Set([
  '@sluice/errors',
  '@sluice/labels',
  '@sluice/config',
  '@sluice/pipeline',
  '@sluice/protocol',
  '@sluice/runtime-spec',
]);

/** What the table says beside a package's list, when there is more to say than the list. */
export const NOTES = {
  '@sluice/process': 'Node built-ins only: `sleep`, `backoffDelay`, `processAlive`',
  '@sluice/labels': 'the label keys and values one side writes and another selects by',
  '@sluice/testkit': 'imported only by tests',
  '@sluice/web': 'no Node built-ins; the server only through its API',
  '@sluice/cli': 'the one app allowed to compose other apps, through their `main` entries',
};

/** Lines of the rendered list: at most this long, as the rest of the document. */
const WIDTH = 100;

/**
 * The rules as ARCHITECTURE.md holds them between its markers: one list item per package,
 * wrapped (a table's rows would be as wide as its longest list).
 */
export function renderRules(apps) {
  const short = (name) => name.replace('@sluice/', '');
  return Object.entries(ALLOWED)
    .map(([name, allowed]) => {
      const kind = [apps.has(name) ? 'app' : undefined, PURE.has(name) ? 'pure' : undefined]
        .filter(Boolean)
        .join(', ');
      const list = allowed.length === 0 ? 'nothing' : allowed.map(short).join(', ');
      const note = NOTES[name] === undefined ? '' : `; ${NOTES[name]}`;
      return wrap(`- \`${name}\`${kind === '' ? '' : ` (${kind})`}: ${list}${note}.`);
    })
    .join('\n');
}

function wrap(text) {
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = `  ${word}`;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line].join('\n');
}
