import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { isSluiceError } from '@sluice/errors';
import { ensureTestImages, makeTempDir, runCommand } from '@sluice/testkit';
import type { ServicesSpec } from '@sluice/pipeline';
import { startServices } from './step-services.js';
import { SERVICE_LABEL } from '../containers/service-containers.js';
import {
  createStepRuntime,
  service,
  SHELL_IMAGE,
  shService,
  uniqueId,
} from './step-runtime.test-support.js';
import type { StepRuntimeFixture } from './step-runtime.test-support.js';

/** Like a database: takes a few seconds to start, then answers "ok" on port 5432. */
const SLOW_DB_IMAGE = `${uniqueId('sluice-it/slow-db')}:1`;

before(async () => {
  await ensureTestImages();
  const dir = await makeTempDir('sluice-slow-db-');
  try {
    const dockerfile = [
      `FROM ${SHELL_IMAGE}`,
      'CMD echo "starting with ${POSTGRES_PASSWORD:-none}"; sleep 3; echo listening; exec nc -ll -p 5432 -e echo ok',
    ].join('\n');
    const result = await runCommand('docker', ['build', '-q', '-t', SLOW_DB_IMAGE, '-'], {
      input: dockerfile,
      cwd: dir.path,
    });
    assert.equal(result.code, 0, result.stderr);
  } finally {
    await dir.cleanup();
  }
});
after(async () => {
  await runCommand('docker', ['rmi', '-f', SLOW_DB_IMAGE]);
});

const PROBE = {
  image: SHELL_IMAGE,
  commands: ['nc -w 1 db 5432 | grep -q ok'],
  periodSeconds: 1,
  timeoutSeconds: 3,
  initialDelaySeconds: 0,
  successThreshold: 1,
  failureThreshold: 30,
};

/** Runs `command` in the build's network sandbox, as a step would; returns stdout and exit code. */
async function stepSees(fx: StepRuntimeFixture, command: string) {
  const { code, output } = await fx.sh(command, { volume: true, sandbox: true });
  return { code, out: output };
}

async function serviceContainers(fx: StepRuntimeFixture): Promise<string[]> {
  return fx.containers({ [SERVICE_LABEL]: 'db' });
}

test('the step reaches a slow service by name once its readiness probe passed', async () => {
  const fx = await createStepRuntime({ secrets: { DB_PASSWORD: 'hunter2-secret' } });
  const blocks: ServicesSpec[] = [
    {
      name: 'database',
      services: [
        service({
          name: 'db',
          image: SLOW_DB_IMAGE,
          environment: [['POSTGRES_PASSWORD', 'hunter2-secret']],
          volumes: [`${fx.runtime.volumeName}:/codefresh/volume`],
        }),
      ],
      readiness: PROBE,
      setup: { image: SHELL_IMAGE, commands: ['nc -w 1 db 5432 > /codefresh/volume/seeded'] },
      references: [],
    },
  ];
  try {
    const running = await startServices(blocks, 'tests', fx.runtime);
    const seen = await stepSees(fx, 'nc -w 2 db 5432; cat /dev/null');
    assert.equal(seen.code, 0);
    assert.deepEqual(seen.out, ['ok']);
    const system = fx.lines('tests', 'system');
    assert.ok(system.includes('[db] starting with ****'), system.join('\n'));
    assert.ok(!system.some((l) => l.includes('hunter2')));
    assert.ok(system.some((l) => /^\[database readiness\] ready after \d+ checks$/.test(l)));
    assert.equal((await serviceContainers(fx)).length, 1);

    // setup ran after readiness, with the volume: its output file holds the service's answer.
    const seeded = await stepSees(fx, 'cat /codefresh/volume/seeded');
    assert.deepEqual(seeded.out, ['ok']);
    await running.stop();
    assert.deepEqual(await serviceContainers(fx), []);
  } finally {
    await fx.close();
  }
});

test('a probe that never passes fails after failureThreshold checks, quoting its output', async () => {
  const fx = await createStepRuntime();
  const blocks: ServicesSpec[] = [
    {
      name: 'database',
      services: [service({ name: 'db', image: SLOW_DB_IMAGE })],
      readiness: {
        ...PROBE,
        commands: ['echo "probing db:5433"', 'nc -w 1 db 5433 | grep -q ok'],
        failureThreshold: 2,
      },
      references: [],
    },
  ];
  try {
    await assert.rejects(startServices(blocks, 'tests', fx.runtime), (err: unknown) => {
      assert.ok(isSluiceError(err));
      assert.equal(err.code, 'SLUICE_SERVICES_NOT_READY');
      assert.match(err.message, /^Services database were not ready/);
      assert.match(err.message, /failed 2 times in a row/);
      assert.match(err.message, /probing db:5433/);
      return true;
    });
    assert.deepEqual(await serviceContainers(fx), []);
    const checks = fx.lines('tests', 'system').filter((l) => l.includes('readiness] check'));
    assert.equal(checks.length, 2);
  } finally {
    await fx.close();
  }
});

test('cancelling while the probe waits stops and removes the services', async () => {
  const fx = await createStepRuntime();
  const blocks: ServicesSpec[] = [
    {
      services: [service({ name: 'db', image: SLOW_DB_IMAGE })],
      readiness: { ...PROBE, commands: ['exit 1'], initialDelaySeconds: 60 },
      references: [],
    },
  ];
  try {
    const starting = startServices(blocks, 'tests', fx.runtime);
    setTimeout(() => fx.controller.abort(), 1500);
    await assert.rejects(starting, /cancelled/);
    assert.deepEqual(await serviceContainers(fx), []);
  } finally {
    await fx.close();
  }
});

const sh = shService;

test("a services block starts its services in depends_on and links order, each once its dependency's condition is met, with link aliases", async () => {
  const fx = await createStepRuntime();
  // Written in the reverse of the order they must start in.
  const blocks: ServicesSpec[] = [
    {
      name: 'stack',
      services: [
        service({
          name: 'api',
          ...sh('nc -w 2 database 80 > /tmp/saw; exec nc -ll -p 81 -e cat /tmp/saw'),
          dependsOn: [{ name: 'db', condition: 'service_healthy' }],
          links: ['db:database'],
          ports: ['81'],
        }),
        service({
          name: 'db',
          ...sh('exec nc -ll -p 80 -e echo db-up'),
          dependsOn: [{ name: 'migrate', condition: 'service_completed_successfully' }],
          ports: ['80'],
        }),
        service({ name: 'migrate', ...sh('sleep 1') }),
      ],
      references: [],
    },
  ];
  try {
    const running = await startServices(blocks, 'tests', fx.runtime);
    const seen = await stepSees(fx, 'nc -w 2 api 81');
    assert.deepEqual(seen.out, ['db-up'], 'api reached db by its link alias once db answered');
    const system = fx.lines('tests', 'system').filter((l) => /starting|waiting/.test(l));
    assert.deepEqual(system, [
      `[migrate] starting ${SHELL_IMAGE}`,
      '[db] waiting for migrate to complete',
      `[db] starting ${SHELL_IMAGE}`,
      '[api] waiting for db on port 80',
      `[api] starting ${SHELL_IMAGE}`,
    ]);
    await running.stop();
  } finally {
    await fx.close();
  }
});

test('a services block whose service depends on one outside it, or whose dependency fails, leaves nothing behind and says which', async () => {
  const fx = await createStepRuntime();
  const block = (name: string, services: ServicesSpec['services']): ServicesSpec => ({
    name,
    services,
    references: [],
  });
  try {
    const unknown = block('web', [
      service({ name: 'app', ...sh('true'), links: ['cache'] }),
      service({ name: 'db', ...sh('sleep 30') }),
    ]);
    await assert.rejects(
      startServices([unknown], 'tests', fx.runtime),
      /Service app depends on cache, which is not a service of the services block \(app, db\)/,
    );
    const failing = block('jobs', [
      service({ name: 'migrate', ...sh('exit 4') }),
      service({
        name: 'db',
        ...sh('sleep 30'),
        dependsOn: [{ name: 'migrate', condition: 'service_completed_successfully' }],
      }),
    ]);
    await assert.rejects(
      startServices([failing], 'tests', fx.runtime),
      /Service db depends on migrate completing successfully, but it exited with code 4/,
    );
    assert.deepEqual(await fx.containers({ [SERVICE_LABEL]: 'migrate' }), []);
  } finally {
    await fx.close();
  }
});
