// A `sluice server` for a benchmark: its own process on PGlite in `dataDir`, on a free port,
// with `token` as its admin's; `stop()` ends it with SIGTERM and waits.
import { spawn } from 'node:child_process';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';

export async function startSluiceServer({ bin, dataDir, token }) {
  const child = spawn(process.execPath, [bin, 'server', '--port', '0', '--data-dir', dataDir], {
    env: {
      ...process.env,
      SLUICE_BOOTSTRAP_TOKEN: token,
      SLUICE_SECRET_KEY: exportSecretKey(generateSecretKey()),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]);
      });
      child.on('exit', (code) => reject(new Error(`sluice server exited with ${code}: ${out}`)));
    });
    return { url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
