/**
 * Migration 007: each build's cache record — the volume its Docker daemon got from the runtime's
 * volume provisioner and whether it was warm (`BuildCache` of the protocol), as the agent
 * reports it; null until then and for runtimes without persistent volumes.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const buildCacheMigration: SqlMigration = {
  name: '007_build_cache',
  statements: ['alter table builds add column cache jsonb'],
};
