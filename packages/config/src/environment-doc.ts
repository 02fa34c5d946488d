/**
 * docs/config/environment.md, rendered from the schemas: one table per entry point (variable,
 * default, what it accepts, meaning) between the prose that the tables cannot say. Tables are
 * padded the way prettier pads them, so the file written is the file `prettier --check` accepts
 * and a test can compare it byte for byte (`npm run docs:config` writes it).
 * @module
 */
import { agentEnv } from './agent-env.js';
import { provisionerEnv, volumeAgentEnv } from './provisioner-env.js';
import { cliEnv, dockerEnv, proxyEnv } from './cli-env.js';
import { engineEnv } from './engine-env.js';
import { serverEnv } from './server-env.js';
import { variableMeta } from './variables.js';
import type { EnvShape } from './parse-env.js';

interface Section {
  title: string;
  before?: string;
  shape?: EnvShape;
  after?: string;
}

const SECTIONS: Section[] = [
  {
    title: '# Configuration by environment',
    before: `Flags win over the environment; the environment wins over defaults. Each entry point's
variables are zod schemas in \`packages/config\` (this file is generated from them:
\`npm run docs:config\`); each app reads the environment in its \`src/config.ts\` and \`src/main.ts\`
only (\`scripts/check-boundaries.mjs\` holds it) and reports every problem at once before it starts, each
naming the variable and what it accepts. Tokens and keys are never printed or logged, nor echoed
in those problems.`,
  },
  {
    title: '## `sluice server` (`apps/server/src/config.ts`)',
    shape: serverEnv,
  },
  {
    title:
      '## `sluice run`, `sluice validate` and the management commands (`apps/cli/src/config.ts`)',
    shape: cliEnv,
  },
  {
    title: '## `sluice agent` (`apps/runner/src/config.ts`)',
    before: `Each variable has a flag of the same name in kebab case (\`--server-url\`, \`--local-runtime\`, ...;
\`sluice agent --help\` lists them). Every problem is reported at once, before anything starts.`,
    shape: agentEnv,
    after: `A local engine inherits the agent's environment without \`SLUICE_AGENT_TOKEN\`, \`SLUICE_TOKEN\`,
\`SLUICE_BOOTSTRAP_TOKEN\`, \`SLUICE_SECRET_KEY\` and \`DATABASE_URL\`, and gets \`SLUICE_SERVER_URL\`,
\`SLUICE_ENGINE_TOKEN\`, \`SLUICE_BUILD_ID\` and \`DOCKER_HOST\` for its build, and
\`SLUICE_LOG_SPOOL_DIR\` (\`<SLUICE_AGENT_STATE_DIR>/log-spool\` unless the agent has one). A
standby engine (\`SLUICE_STANDBY_ENGINES\`) is started with \`SLUICE_ENGINE_SLOT\` instead of a
build's variables, and gets them from its agent over an IPC channel when its build comes. The
engine of a Kubernetes warm-pool pod (\`SLUICE_WARM_POOL_MAX\`, docs/warm-pool.md) is started
with \`SLUICE_ENGINE_POOL_PORT\` and \`SLUICE_ENGINE_POOL_KEY_FILE\` instead, and gets them
from its agent on that port, with the key that file holds, over TLS with the certificate and
key of \`SLUICE_ENGINE_POOL_TLS_CERT_FILE\` and \`SLUICE_ENGINE_POOL_TLS_KEY_FILE\` (PEM).`,
  },
  {
    title: '## `sluice provisioner` (`apps/provisioner/src/config.ts`)',
    before: `The volume provisioner of a runtime's StorageClass (\`apps/provisioner/README.md\`). Each
variable has a flag of the same name in kebab case; every problem is reported at once.`,
    shape: provisionerEnv,
  },
  {
    title: '## `sluice volume-agent` (`apps/provisioner/src/config.ts`)',
    before: `The volume provisioner's agent on each node (\`apps/provisioner/src/node-agent.ts\`): keeps
spare \`local\` volumes of the provisioner's StorageClass ready (their directories made first),
removes the directories of deleted volumes and, above a threshold, retires the least recently
used free volume, one per pass. Each variable has a flag of the same name in kebab case.`,
    shape: volumeAgentEnv,
  },
  {
    title: '## `sluice up` (`apps/cli/src/commands/up-setup.ts`)',
    before: `| variable                 | default     | meaning                                                                                                               |
| ------------------------ | ----------- | --------------------------------------------------------------------------------------------------------------------- |
| \`SLUICE_HOME\`            | \`~/.sluice\` | Where \`sluice up\` keeps everything (\`--data-dir\`): the database, \`server.key\`, \`admin-token\`, \`agent-token\`, \`agent/\` |
| \`DOCKER_HOST\`            | the socket  | The Docker engine builds run on                                                                                       |
| \`SLUICE_STANDBY_ENGINES\` | \`1\`         | Engines started ahead of their builds, as for \`sluice agent\`; 0: each engine starts with its build                    |

\`sluice up\` ignores \`DATABASE_URL\`, \`SLUICE_SECRET_KEY\`, \`SLUICE_BOOTSTRAP_TOKEN\` and
\`SLUICE_PUBLIC_URL\`: it always runs on the embedded database in its data directory, with its own
admin token, at \`http://127.0.0.1:<port>\`. The server's other variables apply.`,
  },
  {
    title: '## `sluice engine` (one build, started by a runner; `apps/engine/src/config.ts`)',
    before: `The engine also reads the Docker variables (\`${Object.keys(dockerEnv).join('`, `')}\`: the
build's Docker engine, its dind on Kubernetes over mutual TLS), the proxy variables
(\`${Object.keys(proxyEnv).join('`, `')}\`) and \`SLUICE_GIT_IMAGE\` as the CLI does.`,
    shape: engineEnv,
    after: `On Kubernetes the engine pod also receives, from the runtime environment spec
(\`packages/runtime-spec/src/render/engine-pod.ts\`): \`SLUICE_BUILD_ID\`, \`SLUICE_DIND_POD\` (the dind
pod's name), \`SLUICE_WORKFLOW_LIMITS\` (JSON of \`runtimeScheduler.workflowLimits\`),
\`SLUICE_USER_VOLUME_MOUNTS\` (JSON of \`dockerDaemonScheduler.userVolumeMounts\`),
\`SLUICE_DIND_USER_ACCESS\`, each \`userEnvVars\` entry as \`SLUICE_USER_ENV_<NAME>\` (or
\`SLUICE_USER_SECRET_ENV_<NAME>\` when read from a Secret), and the spec's
\`proxy\` as \`HTTP_PROXY\`, \`HTTPS_PROXY\`, \`NO_PROXY\`. A local engine gets the same from its
\`RunEngine\` task (literal \`userEnvVars\`, \`hostPath\` user volumes, the proxy). The engine gives
every step each \`SLUICE_USER_ENV_<NAME>\` as \`<NAME>\` (a \`SLUICE_USER_SECRET_ENV_<NAME>\` too, its
value masked in the output) and the proxy variables (git-clone only
with \`use_proxy: true\`), binds each of \`SLUICE_USER_VOLUME_MOUNTS\` into every step's container,
and sends its own calls to the control plane through the proxy (docs/runtime-limits.md).`,
  },
  {
    title: '## Tests (`packages/testkit`, `@sluice/db/testing`)',
    before: `| variable                   | meaning                                                                     |
| -------------------------- | --------------------------------------------------------------------------- |
| \`SLUICE_TEST_DATABASE_URL\` | Use this PostgreSQL server for tests instead of starting a throwaway one    |
| \`SLUICE_TEST_FILTER\`       | Run only test files whose path contains this text (\`scripts/run-tests.mjs\`) |`,
  },
];

/** The rows of one entry point's table. */
function rows(shape: EnvShape): string[][] {
  return Object.entries(shape).map(([name, schema]) => {
    const meta = variableMeta(schema);
    const flag = meta.flag === undefined ? '' : ` (\`--${meta.flag}\`)`;
    const secret = meta.secret === true ? '; a secret' : '';
    return [
      `\`${name}\``,
      meta.default === undefined ? '—' : meta.default,
      meta.accepts + secret,
      `${meta.description}${flag}`,
    ];
  });
}

/** A markdown table padded as prettier pads it (every cell to its column's width). */
export function markdownTable(header: readonly string[], body: readonly string[][]): string {
  const all = [header, ...body];
  const widths = header.map((_, i) => Math.max(3, ...all.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

/** The whole of docs/config/environment.md. */
export function renderEnvironmentDoc(): string {
  const parts = SECTIONS.map((section) =>
    [
      section.title,
      section.before,
      section.shape === undefined
        ? undefined
        : markdownTable(['variable', 'default', 'accepts', 'meaning'], rows(section.shape)),
      section.after,
    ]
      .filter((part) => part !== undefined)
      .join('\n\n'),
  );
  return `${parts.join('\n\n')}\n`;
}
