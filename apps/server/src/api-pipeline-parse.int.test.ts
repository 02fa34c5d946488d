/**
 * A pipeline at the size limit is parsed off the request path: other requests are answered while
 * it is read; over the limit it is refused before anything reads it.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { useTestDatabases } from '@sluice/db/testing';
import { LIMITS } from '@sluice/protocol';
import {
  ADMIN_TOKEN,
  seedPipeline,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

/** Just under 1 MiB: 14,000 steps, the last with a typo so the answer carries a position. */
function megabytePipeline(): string {
  let text = 'version: "1.0"\nsteps:\n';
  for (let i = 0; i < 14_000; i++) {
    const n = String(i).padStart(5, '0');
    const image = i === 13_999 ? 'imag' : 'image';
    text += `  step_${n}:\n    ${image}: alpine:3.19\n    commands:\n      - echo ${n}\n`;
  }
  return text;
}

function createPipeline(t: TestServer, name: string, yaml: string) {
  return fetch(`${t.url}/api/v1/projects/web/pipelines`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, yaml }),
  });
}

/** Whether the server logged that it started parsing pipeline `file`. */
function parseStarted(t: TestServer, file: string): boolean {
  return t
    .logs()
    .split('\n')
    .some((line) => line.includes(file) && line.includes('"msg":"pipeline parse started"'));
}

databases.test(
  'while a 1 MB pipeline is parsed, health requests are answered before the apply is',
  async (database) => {
    const t = await startTestServer(database);
    try {
      await seedPipeline(t);
      const yaml = megabytePipeline();
      assert.ok(Buffer.byteLength(yaml) <= LIMITS.pipelineYamlBytes);
      const order: string[] = [];
      const applying = createPipeline(t, 'big', yaml).then(async (response) => {
        order.push('apply');
        return { status: response.status, body: (await response.json()) as ErrorBody };
      });
      // The server is in this process: once it has said it started parsing, a handler that
      // parsed in place could not answer anything (nor let this code run) until it was done.
      while (!parseStarted(t, '"web/big"')) await nextTurn();
      for (let i = 0; i < 3; i++) {
        const health = await fetch(`${t.url}/api/health`);
        assert.equal(health.status, 200);
        order.push('health');
      }
      const applied = await applying;
      assert.deepEqual(order, ['health', 'health', 'health', 'apply']);
      assert.equal(applied.status, 422);
      const [first] = applied.body.error.details.issues;
      // Step 13,999 starts on line 3 + 4 × 13,999; its "imag" is on the next line.
      assert.deepEqual(first, {
        severity: 'error',
        code: 'SLUICE_PIPELINE_MISSING_FIELD',
        message: 'Missing required field "image" in freestyle step "step_13999"',
        path: ['steps', 'step_13999'],
        line: 3 + 4 * 13_999,
        column: 3,
      });
      assert.equal(applied.body.error.details.issueCount, 2);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a 1.5 MiB pipeline is refused with 413 before it is parsed; a 5 MiB body before it is read',
  async (database) => {
    const t = await startTestServer(database);
    try {
      await seedPipeline(t);
      // Broken from its first line: parsed, it would be a 422 naming line 1.
      const step = '  s: {image: alpine, commands: [make]}\n';
      const lines = (mib: number) => step.repeat(Math.ceil((mib * 1024 * 1024) / step.length));
      const response = await createPipeline(t, 'huge', `steps: [\n${lines(1.5)}`);
      const body = (await response.json()) as ErrorBody;
      assert.equal(response.status, 413);
      assert.equal(body.error.code, 'SLUICE_PIPELINE_TOO_LARGE');
      assert.ok(!parseStarted(t, '"web/huge"'), 'the document was not handed to the parser');
      assert.ok(parseStarted(t, '"web/app"'), 'the seeded pipeline was');
      const whole = await createPipeline(t, 'whole', `steps: [\n${lines(5)}`);
      const refused = (await whole.json()) as ErrorBody;
      assert.equal(whole.status, 413);
      assert.equal(refused.error.code, 'SLUICE_REQUEST_TOO_LARGE');
      assert.match(
        refused.error.message,
        /larger than 2,162,688 bytes \(2\.06 MiB\), the most POST/,
      );
    } finally {
      await t.close();
    }
  },
);

interface ErrorBody {
  error: {
    code: string;
    message: string;
    details: { issues: Record<string, unknown>[]; issueCount: number };
  };
}

databases.test(
  "validatePipeline lists a pipeline's problems with their lines and saves nothing",
  async (database) => {
    const t = await startTestServer(database);
    try {
      await seedPipeline(t);
      const typo =
        'version: "1.0"\nsteps:\n  hello:\n    imag: sluice/busybox:1\n    commands: [ls]\n';
      const invalid = await t.admin.call('validatePipeline', { body: { yaml: typo } });
      assert.equal(invalid.ok, false);
      assert.ok(
        invalid.issues.some((i) => i.severity === 'error' && i.line === 3),
        JSON.stringify(invalid.issues),
      );
      assert.equal(invalid.issueCount, invalid.issues.length);
      const valid = await t.admin.call('validatePipeline', {
        body: { yaml: typo.replace('imag:', 'image:') },
      });
      assert.deepEqual(valid, { ok: true, issues: [], issueCount: 0 });
      const { items } = await t.admin.call('listPipelines', { params: { project: 'web' } });
      assert.deepEqual(
        items.map((p) => p.name),
        ['app'],
      );
    } finally {
      await t.close();
    }
  },
);
