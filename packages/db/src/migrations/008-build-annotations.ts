/**
 * Migration 008: what the post-step operations of a build's steps set — the build's own
 * annotations and its images' (image metadata, by image: there is no image store). Written by
 * the engine's `annotations` events (`BuildAnnotations` of the protocol).
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const buildAnnotationsMigration: SqlMigration = {
  name: '008_build_annotations',
  statements: [
    "alter table builds add column annotations jsonb not null default '{}'::jsonb",
    "alter table builds add column image_annotations jsonb not null default '{}'::jsonb",
  ],
};
