/**
 * Webhook deliveries and trigger set-up for the trigger API tests: the fixtures of
 * `@sluice/triggers`, signed the way each git host signs, posted as exact bytes over real HTTP.
 * @module
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Database } from '@sluice/db';
import { isSluiceError } from '@sluice/errors';
import type { CreateTrigger } from '@sluice/protocol';
import { SIMPLE_PIPELINE } from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';

export const SECRET = 'webhook-secret-0123456789abcdef';
export type Provider = 'github' | 'gitlab' | 'gitea';

/** A delivery fixture's bytes, exactly as the host sent them. */
export function fixture(name: string): string {
  const dir = '../../../packages/triggers/test-data/webhooks';
  return readFileSync(new URL(`${dir}/${name}.json`, import.meta.url), 'utf8');
}

/**
 * A delivery fixture made another delivery's bytes (a field the parsers ignore), as a second
 * push differs from the first: the same bytes are one delivery, whatever id comes with them.
 */
export function fixtureVariant(name: string, variant: string): string {
  const payload = JSON.parse(fixture(name)) as Record<string, unknown>;
  return JSON.stringify({ ...payload, sluice_test_variant: variant });
}

/** The event and signature headers a host sends with `body`, signed the way it signs. */
export function signedHeaders(
  provider: Provider,
  event: string,
  body: string,
  secret = SECRET,
): Record<string, string> {
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  switch (provider) {
    case 'github':
      return { 'x-github-event': event, 'x-hub-signature-256': `sha256=${hex}` };
    case 'gitlab':
      return { 'x-gitlab-event': event, 'x-gitlab-token': secret };
    case 'gitea':
      return { 'x-gitea-event': event, 'x-gitea-signature': hex };
  }
}

export interface Delivery {
  status: number;
  body: { outcome?: string; buildId?: string; reason?: string; error?: { code: string } };
}

/** Posts exact bytes over real HTTP, as a git host does (the typed client re-serialises). */
export async function deliver(
  t: TestServer,
  triggerId: string,
  [provider, event, body]: [Provider, string, string],
  options: { secret?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<Delivery> {
  const response = await fetch(`${t.url}/api/webhooks/${triggerId}`, {
    method: 'POST',
    headers: {
      'content-type': options.contentType ?? 'application/json',
      ...signedHeaders(provider, event, body, options.secret),
      ...options.headers,
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as Delivery['body'] };
}

export async function setUp(t: TestServer) {
  await t.admin.call('createProject', { body: { name: 'web' } });
  const pipeline = await t.admin.call('createPipeline', {
    params: { project: 'web' },
    body: { name: 'app', yaml: SIMPLE_PIPELINE },
  });
  const gitTrigger = (body: Partial<Extract<CreateTrigger, { kind: 'git' }>>) =>
    t.admin.call('createTrigger', {
      params: { pipelineId: pipeline.id },
      body: {
        kind: 'git',
        provider: 'github',
        events: ['push', 'pull_request'],
        secret: SECRET,
        ...body,
      },
    });
  return { pipeline, gitTrigger };
}

export async function buildIds(database: Database): Promise<string[]> {
  const rows = await database.db.selectFrom('builds').select('id').orderBy('id').execute();
  return rows.map((r) => r.id);
}

/** The error a typed-client call failed with: code and HTTP status. */
export async function failure(
  call: Promise<unknown>,
): Promise<{ code: string; status: unknown; message: string }> {
  const err = await call.then(
    () => assert.fail('expected the call to fail'),
    (e: unknown) => e,
  );
  assert.ok(isSluiceError(err), String(err));
  return { code: err.code, status: err.details?.status, message: err.message };
}
