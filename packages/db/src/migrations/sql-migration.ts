/**
 * A migration as data: a name and its SQL statements, run in order in one transaction. Kept in
 * code rather than read from disk so a bundled server carries its migrations, and hashable so
 * test templates can be cached per schema.
 * @module
 */

export interface SqlMigration {
  /** Sorts in apply order: `NNN_snake_case`. Never rename one that has shipped. */
  name: string;
  statements: readonly string[];
}
