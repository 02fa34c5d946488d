import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DbLogger } from './database.js';
import { openDatabase } from './open-database.js';
import { writePgliteDataDir } from './testing/pglite-template.js';

function capture(): { logger: DbLogger; warnings: string[] } {
  const warnings: string[] = [];
  const logger: DbLogger = {
    warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`),
    info: () => undefined,
    debug: () => undefined,
  };
  return { logger, warnings };
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

test(
  'an existing open embedded database directory is tightened, and an open data directory is warned about',
  { timeout: 120_000 },
  async () => {
    const root = mkdtempSync(join(tmpdir(), 'sluice-private-dir-'));
    try {
      const dataDir = join(root, 'new', 'data');
      mkdirSync(join(dataDir, 'pgdata'), { recursive: true });
      await writePgliteDataDir(dataDir);
      // What an older Sluice left: both directories 0755.
      chmodSync(dataDir, 0o755);
      chmodSync(join(dataDir, 'pgdata'), 0o755);
      const { logger, warnings } = capture();
      const database = await openDatabase({ dataDir, logger });
      await database.close();
      assert.equal(modeOf(join(dataDir, 'pgdata')), 0o700, 'pgdata tightened');
      assert.equal(modeOf(dataDir), 0o755, 'a data directory it did not make is left alone');
      assert.ok(
        warnings.some((w) => w.startsWith('database directory was open to other users')),
        warnings.join('\n'),
      );
      assert.ok(
        warnings.some((w) => w.includes('data directory is open to other users')),
        warnings.join('\n'),
      );
      // A directory it makes is 0700 from the start: server-admin-token.e2e's first start.
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);
