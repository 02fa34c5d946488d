import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BUILD_CONTROL_KINDS,
  BUILD_STATUSES,
  TASK_STATUSES,
  TOKEN_KINDS,
  TRIGGER_KINDS,
} from '../schema.js';
import { controlPlaneMigration } from './001-control-plane.js';
import { MIGRATIONS, migrationFingerprint } from './migrate.js';

test('migrations are named NNN_snake_case, unique and in order', () => {
  const names = MIGRATIONS.map((m) => m.name);
  for (const name of names) assert.match(name, /^\d{3}_[a-z0-9_]+$/);
  assert.deepEqual([...names].sort(), names);
  assert.equal(new Set(names).size, names.length);
});

test('the fingerprint is stable and changes with the SQL', () => {
  assert.equal(migrationFingerprint(), migrationFingerprint(MIGRATIONS));
  const changed = [{ ...controlPlaneMigration, statements: ['select 1'] }];
  assert.notEqual(migrationFingerprint(changed), migrationFingerprint());
});

test('the check constraints of 001 allow exactly the values the Schema types name', () => {
  const sql = controlPlaneMigration.statements.join('\n').replace(/\s+/g, ' ');
  const checks: [string, readonly string[]][] = [
    ['kind', TOKEN_KINDS],
    ['kind', TRIGGER_KINDS],
    ['status', BUILD_STATUSES],
    ['kind', BUILD_CONTROL_KINDS],
    ['status', TASK_STATUSES],
  ];
  for (const [column, values] of checks) {
    const list = values.map((v) => `'${v}'`).join(', ');
    assert.ok(sql.includes(`check (${column} in (${list}))`), `${column} in (${list})`);
  }
});

test('every migration keeps timestamps as timestamptz and uses no PostgreSQL 16+ syntax', () => {
  const sql = MIGRATIONS.flatMap((m) => m.statements).join('\n');
  assert.doesNotMatch(sql, /\btimestamp\b(?!tz)/);
  assert.doesNotMatch(sql, /\bjson\b(?!b)/);
  // Features newer than PostgreSQL 15 (PGlite is 18, production may be 15).
  assert.doesNotMatch(sql, /\b(any_value|json_table|json_array|system_user|virtual)\b/i);
});
