// Shared by run.mjs, diagnose.mjs and race.mjs: the server configuration of a dispatch bench
// and the seed every run needs (a local runtime as default, a one-step pipeline, agents).
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createClient } from '@sluice/protocol';

export const ADMIN_TOKEN = 'slu_u_bench-dispatch-token-0123456789';

const LOCAL_RUNTIME = {
  metadata: { name: 'local' },
  runtimeScheduler: { type: 'LocalDocker' },
  dockerDaemonScheduler: { type: 'LocalDocker' },
};

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
    agentOfflineAfterMs: 60_000,
    engineSilentAfterMs: 300_000,
    taskLeaseMs: 60_000,
  };
}

/** Seeds the server at `url`; `newAgent(name)` creates an agent and returns its client. */
export async function seedBench(url, options = {}) {
  const admin = createClient({ baseUrl: url, token: ADMIN_TOKEN });
  await admin.call('createRuntimeEnvironment', { body: { name: 'local', spec: LOCAL_RUNTIME } });
  await admin.call('setDefaultRuntimeEnvironment', { params: { name: 'local' } });
  await admin.call('createProject', { body: { name: 'bench' } });
  const pipeline = await admin.call('createPipeline', {
    params: { project: 'bench' },
    body: { name: options.pipelineName ?? 'p', yaml: options.yaml ?? PIPELINE_YAML },
  });
  const newAgent = async (name) => {
    const { token } = await admin.call('createAgent', { body: { name, runtimes: ['local'] } });
    return createClient({ baseUrl: url, token });
  };
  return { admin, pipeline, newAgent };
}
