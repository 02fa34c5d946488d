import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BODY_LIMITS } from './schemas/limits.js';
import { routes } from './routes.js';

const limitsDoc = readFileSync(new URL('../../../docs/limits.md', import.meta.url), 'utf8');

/** The rows of docs/limits.md's table of request bodies: route → its limit in bytes. */
function documentedLimits(): Map<string, number> {
  const section = limitsDoc.split('## Request bodies')[1]?.split('\n## ')[0] ?? '';
  const rows = section.matchAll(/^\| `([A-Z]+ [^`]+)`\s*\| ([\d,]+) bytes/gm);
  return new Map(
    [...rows].map(([, route = '', bytes = '']) => [route, Number(bytes.replaceAll(',', ''))]),
  );
}

test("docs/limits.md lists every route whose body limit is not the default, with the route's limit", () => {
  const larger = Object.values(routes)
    .filter((route) => route.bodyLimit !== BODY_LIMITS.default)
    .map((route) => [`${route.method} ${route.path}`, route.bodyLimit] as const);
  assert.deepEqual(
    [...documentedLimits()].sort(),
    [...larger].sort(),
    'the table of "## Request bodies" and BODY_LIMITS of the routes differ',
  );
  assert.match(
    limitsDoc,
    new RegExp(`64 KiB \\(${BODY_LIMITS.default.toLocaleString('en-US')} bytes\\)`),
  );
});

test('a route that carries a document takes at least twice its size: JSON escaping doubles it at worst', () => {
  assert.ok(routes.createPipeline.bodyLimit > 2 * 1_048_576);
  assert.ok(routes.putStepType.bodyLimit > 2 * 1_000_000);
  assert.ok(routes.createRuntimeEnvironment.bodyLimit > 2 * 262_144);
  assert.equal(routes.receiveWebhook.bodyLimit, 25 * 1024 * 1024, "GitHub's 25 MB, as MiB");
});
