/**
 * A private git server over SSH for tests: Debian's OpenSSH server (`sshd`, installed when
 * missing) on a free port of all addresses, with a host key and one client key made for it, and
 * the client key restricted to `git-shell` (no terminal, no forwarding, only git's own
 * commands). Step containers reach it at the host's address on the Docker bridge (`dockerHostAddress`).
 * Its log says which logins it accepted and refused, so a test can check what a client sent.
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { UnavailableError } from '@sluice/errors';
import { findOrInstall } from './apt-install.js';
import { childEnv } from './config.js';
import { runCommand } from './run-command.js';
import { makeTempDir } from './temp-dir.js';
import { waitFor } from './wait-for.js';

export const GIT_SSH_UNAVAILABLE = 'SLUICE_TEST_GIT_SSH_UNAVAILABLE';

export interface StartGitSshServerOptions {
  /** The directory holding the bare repositories: `<root>/owner/name.git`. */
  root: string;
}

export interface GitSshServer {
  port: number;
  /** `ssh://root@HOST:PORT<root>/PATH`: the repository `PATH` under the root, through `host`. */
  urlVia(host: string, path: string): string;
  /** The private key (OpenSSH format) the server accepts; any other key is refused. */
  clientKey: string;
  /** sshd's log so far: `Accepted publickey for root …`, `Connection closed by …`. */
  log(): string;
  close(): Promise<void>;
}

/** The path of Debian's `sshd`, installing `openssh-server` when it is missing. */
export async function ensureSshd(log?: (line: string) => void): Promise<string> {
  return (await programs(log)).sshd;
}

async function programs(
  log?: (line: string) => void,
): Promise<{ sshd: string; keygen: string; gitShell: string }> {
  const sshd = await findOrInstall('sshd', 'openssh-server', { log });
  const keygen = await findOrInstall('ssh-keygen', 'openssh-client', { log });
  const gitShell = await findOrInstall('git-shell', 'git', { log });
  if (sshd.path === undefined || keygen.path === undefined || gitShell.path === undefined) {
    const failed = sshd.failed ?? keygen.failed ?? gitShell.failed;
    throw new UnavailableError(GIT_SSH_UNAVAILABLE, 'OpenSSH or git is not installed', {
      hint: `Run: apt-get install -y openssh-server openssh-client git${failed ? ` (${failed} failed)` : ''}`,
    });
  }
  return { sshd: sshd.path, keygen: keygen.path, gitShell: gitShell.path };
}

export async function startGitSshServer(options: StartGitSshServerOptions): Promise<GitSshServer> {
  const { sshd, keygen, gitShell } = await programs();
  const dir = await makeTempDir('sluice-git-ssh-');
  const hostKey = join(dir.path, 'host_ed25519');
  const clientKey = join(dir.path, 'client_ed25519');
  for (const [file, comment] of [
    [hostKey, 'sluice-test-host'],
    [clientKey, 'sluice-test-client'],
  ] as const) {
    const made = await runCommand(keygen, [
      '-q',
      '-t',
      'ed25519',
      '-N',
      '',
      '-C',
      comment,
      '-f',
      file,
    ]);
    if (made.code !== 0)
      throw new UnavailableError(GIT_SSH_UNAVAILABLE, `ssh-keygen failed: ${made.stderr.trim()}`, {
        hint: 'Run: apt-get install --reinstall -y openssh-client',
      });
  }
  const publicKey = (await readFile(`${clientKey}.pub`, 'utf8')).trim();
  const authorizedKeys = join(dir.path, 'authorized_keys');
  await writeFile(
    authorizedKeys,
    `restrict,command="${gitShell} -c \\"$SSH_ORIGINAL_COMMAND\\"" ${publicKey}\n`,
    { mode: 0o600 },
  );
  const port = await freePort();
  const config = join(dir.path, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 0.0.0.0',
      `HostKey ${hostKey}`,
      `PidFile ${join(dir.path, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorizedKeys}`,
      // The temporary directory is not root's home: sshd's ownership checks do not apply.
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );
  // sshd refuses to start without its privilege separation directory.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const child = spawn(sshd, ['-D', '-e', '-f', config], {
    env: childEnv({}),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = `Server listening on 0.0.0.0 port ${port}`;
  await waitFor(
    () => ({ exited: child.exitCode !== null, log }),
    (state) => state.exited || state.log.includes(listening),
    { timeoutMs: 10_000, what: `sshd listening on port ${port}` },
  );
  if (!log.includes(listening))
    throw new UnavailableError(GIT_SSH_UNAVAILABLE, `sshd did not start: ${log.trim()}`, {
      hint: 'Run: apt-get install --reinstall -y openssh-server',
    });
  return {
    port,
    urlVia: (host, path) => `ssh://root@${host}:${port}${join(options.root, path)}`,
    clientKey: await readFile(clientKey, 'utf8'),
    log: () => log,
    close: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await dir.cleanup();
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
