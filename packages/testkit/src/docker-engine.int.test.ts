import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ensureDockerEngine } from './docker-engine.js';
import { runCommand } from './run-command.js';

test(
  'ensureDockerEngine leaves an engine that answers the docker CLI',
  { timeout: 180_000 },
  async () => {
    const lines: string[] = [];
    const engine = await ensureDockerEngine({ log: (line) => lines.push(line) });
    assert.ok(engine.socketPath.length > 0);
    const version = await runCommand('docker', ['version', '--format', '{{.Server.APIVersion}}']);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout.trim(), /^\d+\.\d+$/);
    // A second call finds the engine already answering and starts nothing.
    const again = await ensureDockerEngine();
    assert.deepEqual(again, { socketPath: engine.socketPath, started: false });
  },
);
