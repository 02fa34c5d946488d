import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSluiceError } from '@sluice/errors';
import { silentLogger } from '@sluice/log';
import { parsePipeline } from '@sluice/pipeline';
import { ParsePool } from './parse-pool.js';

/** About `steps` × 70 bytes; step 7 has a typo, so there is an issue deep in a worker's answer. */
function bigPipeline(steps: number): string {
  let text = 'version: "1.0"\nsteps:\n';
  for (let i = 0; i < steps; i++)
    text += `  step_${i}:\n    ${i === steps - 7 ? 'imag' : 'image'}: alpine\n    commands: [echo ${i}]\n`;
  return text;
}

test('a large pipeline is parsed in a worker with the same issues, while the event loop runs', async () => {
  const pool = ParsePool.create({ log: silentLogger, size: 1 });
  try {
    // Some 55,000 characters: past the pool's 16,384 parsed in place.
    const yaml = bigPipeline(1000);
    const events: string[] = [];
    const ticking = setInterval(() => events.push('tick'), 1);
    const parsing = pool
      .parse({ yaml, file: 'big.yml', stepTypes: [] })
      .finally(() => events.push('parsed'));
    const result = await parsing;
    clearInterval(ticking);
    // Parsed in place, the document would be done before the first timer could fire.
    assert.equal(events[0], 'tick');
    assert.equal(result.ok, false);
    assert.deepEqual(result.issues, parsePipeline(yaml, { file: 'big.yml' }).issues);
    // Step i starts on line 3 + 3i: no image there, an unknown "imag" on the next line.
    const step = 3 + (1000 - 7) * 3;
    assert.deepEqual(
      result.issues.map((i) => `${i.line}:${i.column}`),
      [`${step}:3`, `${step + 1}:5`],
    );
  } finally {
    await pool.close();
  }
});

test('a worker that dies fails its document with the reason; the next gets a new worker', async () => {
  // A heap this small runs out on a document this large.
  const pool = ParsePool.create({
    log: silentLogger,
    size: 1,
    resourceLimits: { maxOldGenerationSizeMb: 4, maxYoungGenerationSizeMb: 1 },
  });
  try {
    const failed = await pool
      .parse({ yaml: bigPipeline(12_000), file: 'huge.yml', stepTypes: [] })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    assert.ok(isSluiceError(failed), String(failed));
    assert.equal(failed.code, 'SLUICE_PIPELINE_PARSER_FAILED');
    assert.match(failed.message, /stopped while reading huge\.yml: .*memory/i);
    const small = await pool.parse({
      yaml: bigPipeline(300),
      file: 'small.yml',
      stepTypes: [],
    });
    assert.equal(small.issues.length, 2);
  } finally {
    await pool.close();
  }
});

test('documents beyond the queue limit are refused as busy, not queued without end', async () => {
  const pool = ParsePool.create({ log: silentLogger, size: 1, queueLimit: 1 });
  try {
    // Some 22,000 characters: past the pool's 16,384 parsed in place, so they queue.
    const yaml = bigPipeline(400);
    const job = { yaml, file: 'p.yml', stepTypes: [] };
    const first = pool.parse(job);
    const second = pool.parse(job);
    await assert.rejects(pool.parse(job), { code: 'SLUICE_PIPELINE_PARSER_BUSY' });
    assert.equal((await first).ok, false);
    assert.equal((await second).ok, false);
  } finally {
    await pool.close();
  }
});

test('a document parsed again is answered from memory, frozen; another text or other step types is parsed anew', async () => {
  const pool = ParsePool.create({ log: silentLogger, size: 1 });
  try {
    const yaml = 'version: "1.0"\nsteps:\n  hello:\n    image: alpine\n    commands: [echo hi]\n';
    const first = await pool.parse({ yaml, file: 'a.yml', stepTypes: [] });
    const again = await pool.parse({ yaml, file: 'a.yml', stepTypes: [] });
    assert.equal(again, first, 'the same answer object');
    assert.equal(first.ok, true);
    assert.equal(first.steps.length, 1);
    assert.throws(() => (first.steps as unknown[]).push('x'), TypeError, 'frozen');
    const edited = await pool.parse({
      yaml: yaml.replace('hi', 'ho'),
      file: 'a.yml',
      stepTypes: [],
    });
    assert.notEqual(edited, first);
    const renamed = await pool.parse({ yaml, file: 'b.yml', stepTypes: [] });
    assert.notEqual(renamed, first);
  } finally {
    await pool.close();
  }
});

/** A valid step type with an `items`-long list in an `x-` field of its metadata. */
function paddedStepType(items: number, name = 'acme/padded'): string {
  const padding = Array.from({ length: items }, () => '    - 1').join('\n');
  return `version: '1.0'
kind: step-type
metadata:
  name: ${name}
  version: 1.0.0
  description: Padded
  x-padding:
${padding}
spec:
  arguments:
    type: object
    properties:
      WHO: { type: string, pattern: '^[a-z]+$' }
  steps:
    hello:
      image: alpine
      commands: ['echo [[ .Arguments.WHO ]]']
`;
}

test('a large step type is parsed in a worker once; pipelines then expand it without parsing it again', async () => {
  const counted: string[] = [];
  const pool = ParsePool.create({
    log: silentLogger,
    size: 1,
    counted: (kind, where) => counted.push(`${kind} ${where}`),
  });
  try {
    // Some 30,000 characters: past the 16,384 parsed in place.
    const text = paddedStepType(3_000);
    const events: string[] = [];
    const ticking = setInterval(() => events.push('tick'), 1);
    const parsed = await pool
      .parseStepType(text, 'control plane: acme/padded:1.0.0')
      .finally(() => events.push('parsed'));
    clearInterval(ticking);
    assert.equal(events[0], 'tick', 'the event loop ran while it was parsed');
    assert.ok(parsed.ok);
    assert.equal(parsed.document.description, 'Padded');
    const pipeline = (who: string, steps = 1) =>
      `version: "1.0"\nsteps:\n${Array.from(
        { length: steps },
        (_, i) => `  say_${i}:\n    type: acme/padded:1.0.0\n    arguments: { WHO: ${who} }\n`,
      ).join('')}`;
    const small = await pool.parse({
      yaml: pipeline('ada'),
      file: 'small.yml',
      stepTypes: [parsed.document],
    });
    assert.deepEqual(small.issues, []);
    assert.deepEqual(
      small.steps.map((s) => s.name),
      ['say_0', 'say_0_hello'],
    );
    // Past 16,384 characters, so the pipeline goes to the worker with the step type as data.
    const large = await pool.parse({
      yaml: pipeline('ADA', 300),
      file: 'large.yml',
      stepTypes: [parsed.document],
    });
    assert.equal(large.ok, false, "the pattern came along: 'ADA' is not ^[a-z]+$");
    assert.match(
      large.issues[0]?.message ?? '',
      /must match \/\^\[a-z\]\+\$\/, got a string \("ADA"\)/,
    );
    assert.deepEqual(counted, ['step-type worker', 'pipeline inline', 'pipeline worker']);
  } finally {
    await pool.close();
  }
});

test('a step type that does not parse comes back with its issues, at line:column', async () => {
  const pool = ParsePool.create({ log: silentLogger, size: 1 });
  try {
    const text = paddedStepType(3_000).replace('kind: step-type', 'kind: pipeline');
    const parsed = await pool.parseStepType(text, 'control plane');
    assert.equal(parsed.ok, false);
    assert.deepEqual(
      parsed.ok ? [] : parsed.issues.map((i) => `${i.file}:${i.line}:${i.column} ${i.message}`),
      ['control plane:2:7 "kind" must be "step-type", got a string ("pipeline")'],
    );
  } finally {
    await pool.close();
  }
});

test('a regular-expression branch filter is checked and matched in a worker, the plain name in place', async () => {
  const pool = ParsePool.create({ log: silentLogger, size: 1 });
  try {
    // Ten counted repetitions: RE2 compiles some 4,000 instructions, slow to compile and to run.
    const heavy = `/^${'[a-z0-9-]{0,200}'.repeat(10)}$/`;
    const events: string[] = [];
    const ticking = setInterval(() => events.push('tick'), 1);
    const check = await pool.checkBranchFilter(heavy).finally(() => events.push('checked'));
    clearInterval(ticking);
    assert.equal(events[0], 'tick', 'the event loop ran while it compiled');
    assert.equal(check.ok, false);
    assert.match(check.ok ? '' : check.message, /is too complex: RE2 compiles it to 4,0\d\d/);
    assert.deepEqual(await pool.checkBranchFilter(heavy, 'release-1'), { ok: true, matches: true });
    assert.deepEqual(await pool.checkBranchFilter('/^main$/', 'main'), { ok: true, matches: true });
    assert.deepEqual(await pool.checkBranchFilter('/^main$/', 'dev'), { ok: true, matches: false });
    assert.deepEqual(await pool.checkBranchFilter('main', 'main'), { ok: true, matches: true });
    assert.deepEqual(await pool.checkBranchFilter('', 'any'), { ok: true, matches: true });
    const invalid = await pool.checkBranchFilter('/[main/', 'main');
    assert.equal(invalid.ok, false);
  } finally {
    await pool.close();
  }
});
