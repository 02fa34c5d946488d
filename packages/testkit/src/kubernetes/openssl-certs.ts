/**
 * Throwaway certificates for test clusters and test pods, made with the `openssl` CLI (P-256
 * keys, valid for a few days): a CA, and leaf certificates it signs with the subject
 * alternative names and key usages TLS servers and clients check.
 * @module
 */
import { join } from 'node:path';
import { aptInstall } from '../apt-install.js';
import { findExecutable, runCommand, SYSTEM_BIN_DIRS, tailLines } from '../run-command.js';
import { KUBE_UNAVAILABLE, stepFailed } from './kube-errors.js';

export interface CertFiles {
  cert: string;
  key: string;
}

export interface IssueCertOptions {
  ca: CertFiles;
  commonName: string;
  /** Becomes O=, which Kubernetes reads as the client's groups. */
  organization?: string;
  /** e.g. ['DNS:localhost', 'IP:127.0.0.1']. */
  sans?: readonly string[];
  usage: 'server' | 'client' | 'both';
  days?: number;
}

const KEY_ARGS = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A self-signed CA as `<dir>/<name>.crt` and `<dir>/<name>.key`. */
export async function createCa(dir: string, name: string, commonName: string): Promise<CertFiles> {
  const files = filesFor(dir, name);
  await openssl(newCertArgs(files, `/CN=${commonName}`, 7), `create the ${name} CA`);
  return files;
}

/** A leaf certificate signed by `options.ca`, as `<dir>/<name>.crt` and `.key`. */
export async function issueCert(
  dir: string,
  name: string,
  options: IssueCertOptions,
): Promise<CertFiles> {
  const files = filesFor(dir, name);
  const subject = `${options.organization === undefined ? '' : `/O=${options.organization}`}/CN=${options.commonName}`;
  const args = newCertArgs(files, subject, options.days ?? 7);
  args.push('-CA', options.ca.cert, '-CAkey', options.ca.key);
  args.push('-addext', 'basicConstraints=critical,CA:FALSE');
  args.push('-addext', 'keyUsage=critical,digitalSignature,keyEncipherment');
  args.push('-addext', `extendedKeyUsage=${extendedUsage(options.usage)}`);
  if (options.sans !== undefined && options.sans.length > 0) {
    args.push('-addext', `subjectAltName=${options.sans.join(',')}`);
  }
  await openssl(args, `issue the ${name} certificate`);
  return files;
}

/** A P-256 key pair as `<dir>/<name>.key` and `<dir>/<name>.pub` (service-account signing). */
export async function createKeyPair(
  dir: string,
  name: string,
): Promise<{ key: string; pub: string }> {
  const key = join(dir, `${name}.key`);
  const pub = join(dir, `${name}.pub`);
  await openssl(
    ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key],
    `create the ${name} key`,
  );
  await openssl(['pkey', '-in', key, '-pubout', '-out', pub], `write the ${name} public key`);
  return { key, pub };
}

/** `openssl req -x509` with a new P-256 key: self-signed unless `-CA` is added. */
function newCertArgs(files: CertFiles, subject: string, days: number): string[] {
  const out = ['-keyout', files.key, '-out', files.cert];
  return ['req', '-x509', ...KEY_ARGS, ...out, '-subj', subject, '-days', String(days)];
}

function extendedUsage(usage: IssueCertOptions['usage']): string {
  switch (usage) {
    case 'server':
      return 'serverAuth';
    case 'client':
      return 'clientAuth';
    case 'both':
      return 'serverAuth,clientAuth';
  }
}

function filesFor(dir: string, name: string): CertFiles {
  return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
}

let opensslPath: string | undefined;

async function openssl(args: readonly string[], step: string): Promise<void> {
  opensslPath ??= await findOpenssl();
  const result = await runCommand(opensslPath, args);
  if (result.code !== 0) {
    throw stepFailed(KUBE_UNAVAILABLE, 'Making test certificates', `openssl: ${step}`, {
      output: result.spawnError?.message ?? tailLines(result.stderr, 10),
      hint: 'apt-get install -y openssl',
    });
  }
}

async function findOpenssl(): Promise<string> {
  const found = findExecutable('openssl', SYSTEM_BIN_DIRS);
  if (found !== undefined) return found;
  const result = await aptInstall(['openssl']);
  const installed = findExecutable('openssl', SYSTEM_BIN_DIRS);
  if (result.ok && installed !== undefined) return installed;
  throw stepFailed(KUBE_UNAVAILABLE, 'Making test certificates', 'apt-get install -y openssl', {
    output: result.ok ? 'openssl still missing' : result.output,
    hint: 'apt-get install -y openssl',
  });
}
