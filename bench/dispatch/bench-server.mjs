// Shared by run.mjs, diagnose.mjs and race.mjs: the server configuration of a dispatch bench,
// the seed every run needs (a local runtime as default, a one-step pipeline, agents), the
// server's database behind a Kysely plugin, a reader of the SSE log stream, and percentiles.
import { SERVER_DEFAULTS } from '@sluice/config';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createClient } from '@sluice/protocol';
import {
  acknowledgeTasks,
  createLocalRuntime,
  createPipelines,
} from '../../test/dist/e2e/control-plane-seed.js';

export const ADMIN_TOKEN = 'slu_u_bench-dispatch-token-0123456789';

const PIPELINE_YAML =
  'version: "1.0"\nsteps:\n  build:\n    image: alpine\n    commands: ["make"]\n';

/** The server configuration: port 0, a fresh secret key, defaults for the rest. */
export function benchConfig() {
  return {
    port: 0,
    host: '127.0.0.1',
    dataDir: undefined,
    databaseUrl: undefined,
    bootstrapToken: ADMIN_TOKEN,
    secretKey: exportSecretKey(generateSecretKey()),
    publicUrl: 'http://control-plane.bench',
    agentOfflineAfterMs: SERVER_DEFAULTS.agentOfflineAfterMs,
    limitsIntervalMs: SERVER_DEFAULTS.limitsIntervalMs,
    taskLeaseMs: SERVER_DEFAULTS.taskLeaseMs,
  };
}

/** Seeds the server at `url`; `newAgent(name)` creates an agent and returns its client. */
export async function seedBench(url, options = {}) {
  const admin = createClient({ baseUrl: url, token: ADMIN_TOKEN });
  await createLocalRuntime(admin, { isDefault: true });
  const name = options.pipelineName ?? 'p';
  const ids = await createPipelines(admin, 'bench', { [name]: options.yaml ?? PIPELINE_YAML });
  const newAgent = async (agentName) => {
    const { token } = await admin.call('createAgent', {
      body: { name: agentName, runtimes: ['local'] },
    });
    return createClient({ baseUrl: url, token });
  };
  return { admin, pipelineId: ids[name], newAgent };
}

/** Reports one task done, as the agent's task runner does. */
export const acknowledge = (agent, task) => acknowledgeTasks(agent, [task]);

/** The opened database `raw` with every query going through the Kysely `plugin`. */
export function withPlugin(raw, plugin) {
  return {
    db: raw.db.withPlugin(plugin),
    kind: raw.kind,
    subscribe: (channel, handler) => raw.subscribe(channel, handler),
    close: () => raw.close(),
  };
}

/**
 * Reads an SSE response to its end, calling `onEvent(block, at)` with each event's text and the
 * time (performance.now()) its bytes arrived.
 */
export async function readEvents(response, onEvent) {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of response.body) {
    const at = performance.now();
    buffer += decoder.decode(bytes, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      onEvent(buffer.slice(0, end), at);
      buffer = buffer.slice(end + 2);
    }
  }
}

/** Nearest-rank percentile; undefined for no samples. */
export function percentile(xs, p) {
  if (xs.length === 0) return undefined;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}
