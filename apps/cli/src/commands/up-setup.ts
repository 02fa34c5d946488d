/**
 * What `sluice up` keeps in its data directory and makes on its control plane, each only once:
 * the admin token (`admin-token`, mode 0600, the server's bootstrap token), the runtime
 * environment `local` extending `system/default/local` as the account default, and the agent
 * `local` whose token is `agent-token`. A second start on the same directory finds them all.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { InputError, isSluiceError } from '@sluice/errors';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import { writeToken } from '@sluice/server/main';

/** The runtime environment and the agent `sluice up` serves it with. */
export const LOCAL_RUNTIME = 'local';

export interface UpFiles {
  dir: string;
  adminToken: string;
  agentToken: string;
  /** The local runtime's engine pid files and logs. */
  agentState: string;
}

/** `--data-dir`, else `$SLUICE_HOME`, else `~/.sluice`; created private to its owner. */
export function upFiles(dataDir: string | undefined, env: NodeJS.ProcessEnv): UpFiles {
  const dir = resolve(dataDir ?? (env.SLUICE_HOME || join(homedir(), '.sluice')));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return {
    dir,
    adminToken: join(dir, 'admin-token'),
    agentToken: join(dir, 'agent-token'),
    agentState: join(dir, 'agent'),
  };
}

export function readToken(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const token = readFileSync(file, 'utf8').trim();
  return token === '' ? undefined : token;
}

/** The admin token of this data directory, made (like the server's own) on the first start. */
export function adminToken(files: UpFiles): string {
  const saved = readToken(files.adminToken);
  if (saved !== undefined) return saved;
  const token = `slu_u_${randomBytes(30).toString('base64url')}`;
  writeToken(files.adminToken, token);
  return token;
}

/** When the admin already existed, the saved token must be its token. */
export async function checkAdminToken(admin: SluiceClient, files: UpFiles): Promise<void> {
  try {
    await admin.call('me');
  } catch (err) {
    if (!isSluiceError(err) || err.category !== 'authentication') throw err;
    throw new InputError(
      'SLUICE_UP_ADMIN_TOKEN_INVALID',
      `The admin token in ${files.adminToken} is not valid for the database in ${files.dir}`,
      {
        cause: err,
        hint: 'The directory was set up by another command (sluice server?): put its admin token in that file, or use another --data-dir',
      },
    );
  }
}

/** Creates `local` (extends system/default/local) as the default; an existing one is left alone. */
export async function ensureLocalRuntime(admin: SluiceClient): Promise<'created' | 'kept'> {
  try {
    await admin.call('getRuntimeEnvironment', { params: { name: LOCAL_RUNTIME } });
    return 'kept';
  } catch (err) {
    if (!isSluiceError(err) || err.category !== 'not-found') throw err;
  }
  const spec = {
    version: 1,
    metadata: { name: LOCAL_RUNTIME },
    extends: ['system/default/local'],
  };
  const description = "This machine's Docker engine (sluice up)";
  await admin.call('createRuntimeEnvironment', {
    body: { name: LOCAL_RUNTIME, description, spec },
  });
  await admin.call('setDefaultRuntimeEnvironment', { params: { name: LOCAL_RUNTIME } });
  return 'created';
}

/**
 * The token of the agent `local`: the saved one while it still works, else a new agent (the
 * old one, whose token is lost, is deleted).
 */
export async function ensureLocalAgent(
  admin: SluiceClient,
  serverUrl: string,
  files: UpFiles,
): Promise<string> {
  const { items } = await admin.call('listAgents');
  const existing = items.find((a) => a.name === LOCAL_RUNTIME);
  const saved = readToken(files.agentToken);
  if (existing !== undefined && saved !== undefined && (await agentTokenWorks(serverUrl, saved)))
    return saved;
  if (existing !== undefined) await admin.call('deleteAgent', { params: { agentId: existing.id } });
  const { token } = await admin.call('createAgent', {
    body: { name: LOCAL_RUNTIME, runtimes: [LOCAL_RUNTIME] },
  });
  writeToken(files.agentToken, token);
  return token;
}

async function agentTokenWorks(serverUrl: string, token: string): Promise<boolean> {
  try {
    await createClient({ baseUrl: serverUrl, token }).call('agentRuntimes');
    return true;
  } catch (err) {
    return !(isSluiceError(err) && err.category === 'authentication');
  }
}
