/**
 * Why a connection to the Docker engine failed, in Sluice's words. A build's engine talks to its
 * dind over mutual TLS, and each way that can go wrong needs a different fix: the daemon's
 * certificate is not from the build's CA, does not name the host dialled, the daemon refuses
 * the engine's certificate, or one side speaks TLS and the other does not. Anything else at the
 * socket level means the engine cannot be reached at all.
 * @module
 */
import { AuthenticationError, InputError, UnavailableError } from '@sluice/errors';
import type { SluiceError, SluiceErrorOptions } from '@sluice/errors';
import type { DockerEndpoint } from './docker-endpoint.js';

/** OpenSSL's verdicts on a server certificate that does not chain to the CA we trust. */
const UNTRUSTED_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
  'INVALID_PURPOSE',
]);
/** A certificate from the right CA that is outside its validity window. */
const EXPIRED_CODES = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);
/**
 * TLS alerts a server sends about the client's certificate: Go's TLS stack (dockerd) sends
 * `bad_certificate` for a missing or unknown one under TLS 1.2, `certificate_required` or
 * `unknown_ca` under TLS 1.3.
 */
const REJECTED_ALERT =
  /^ERR_SSL_(?:SSLV3|TLSV1|TLSV13)_ALERT_(?:BAD_CERTIFICATE|CERTIFICATE_[A-Z_]+|UNKNOWN_CA|UNSUPPORTED_CERTIFICATE|ACCESS_DENIED)$/;
/** What Go's HTTP server answers (with status 400) to plain HTTP on a TLS port. */
const PLAIN_HTTP_ON_TLS_PORT = 'Client sent an HTTP request to an HTTPS server';
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'EACCES',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ECONNRESET',
  'EPIPE',
]);

/** What is known about one failed call, for the translators below. */
interface Failure {
  endpoint: DockerEndpoint;
  action: string;
  err: unknown;
  code: string;
  reason: string;
}

/**
 * The Sluice error for a failure to connect to (or agree TLS with) the engine, or undefined
 * when `err` is the engine's answer to a request that did reach it.
 */
export function connectionFailure(
  endpoint: DockerEndpoint,
  action: string,
  err: unknown,
): SluiceError | undefined {
  const failure = { endpoint, action, err, code: codeOf(err), reason: messageOf(err) };
  for (const translate of [untrusted, hostMismatch, rejected, tlsRequired, unreachable]) {
    const translated = translate(failure);
    if (translated !== undefined) return translated;
  }
  return undefined;
}

function untrusted(f: Failure): SluiceError | undefined {
  if (!UNTRUSTED_CODES.has(f.code) && !EXPIRED_CODES.has(f.code)) return undefined;
  const problem = UNTRUSTED_CODES.has(f.code)
    ? "is not signed by the build's CA (ca.pem)"
    : "is outside its validity period (check both machines' clocks)";
  return new AuthenticationError(
    'SLUICE_DOCKER_TLS_UNTRUSTED',
    `The Docker engine at ${f.endpoint.host} presented a server certificate that ${problem}, so this client refused to ${f.action}: ${f.reason}`,
    options(
      f,
      "Give the engine the ca.pem of the CA that issued the daemon's certificate (DOCKER_CERT_PATH), or reissue the daemon's certificate from the build's CA",
    ),
  );
}

function hostMismatch(f: Failure): SluiceError | undefined {
  if (f.code !== 'ERR_TLS_CERT_ALTNAME_INVALID') return undefined;
  return new AuthenticationError(
    'SLUICE_DOCKER_TLS_HOST_MISMATCH',
    `The Docker engine at ${f.endpoint.host} presented a server certificate that does not name the host this client dialled, so it refused to ${f.action}: ${f.reason}`,
    options(
      f,
      'Dial the daemon by a name or address its certificate lists (DOCKER_HOST), or reissue the certificate with this one among its subject alternative names',
    ),
  );
}

function rejected(f: Failure): SluiceError | undefined {
  if (!REJECTED_ALERT.test(f.code)) return undefined;
  const sent =
    f.endpoint.tls?.cert === undefined
      ? 'no client certificate was sent'
      : 'the client certificate sent (cert.pem) was not accepted';
  return new AuthenticationError(
    'SLUICE_DOCKER_TLS_REJECTED',
    `The Docker daemon at ${f.endpoint.host} refused this client's certificate, so it could not ${f.action}: ${sent} (${f.code})`,
    options(
      f,
      'Give the engine the client certificate and key issued for this build by the CA the daemon trusts (cert.pem and key.pem in DOCKER_CERT_PATH)',
    ),
  );
}

function tlsRequired(f: Failure): SluiceError | undefined {
  if (!f.reason.includes(PLAIN_HTTP_ON_TLS_PORT)) return undefined;
  return new InputError(
    'SLUICE_DOCKER_TLS_REQUIRED',
    `The Docker engine at ${f.endpoint.host} requires TLS, but this client connected without it to ${f.action}`,
    options(
      f,
      'Set DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH to the directory holding ca.pem, cert.pem and key.pem',
    ),
  );
}

function unreachable(f: Failure): SluiceError | undefined {
  if (!SOCKET_CODES.has(f.code)) return undefined;
  return new UnavailableError(
    'SLUICE_DOCKER_UNAVAILABLE',
    `Cannot reach the Docker engine at ${f.endpoint.host} to ${f.action}: ${f.reason}`,
    options(
      f,
      'Start the Docker engine (dockerd), or point --docker-host / DOCKER_HOST at a running one',
    ),
  );
}

function options(f: Failure, hint: string): SluiceErrorOptions {
  return { cause: f.err, details: { host: f.endpoint.host, reason: f.reason }, hint };
}

function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
}

/**
 * An error's message for people: without dockerode's `(HTTP code 400) unexpected - ` prefix, and
 * OpenSSL's reason without its `80CC…:error:0A000412:SSL routines:` prefix and source path.
 */
export function messageOf(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  return raw
    .replace(/^\(HTTP code \d+\) [\w ]+ - /, '')
    .replace(/^[0-9A-F]+:error:[0-9A-F]+:SSL routines:\w+:([^:]+):.*$/s, '$1')
    .trim();
}
