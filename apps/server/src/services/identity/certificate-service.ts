/**
 * The control plane's internal CA, so an engine and its dind authenticate each other over
 * mutual TLS: one CA per server (its key encrypted at rest), a dind server certificate per
 * runtime (kept, renewed when it nears expiry), and short-lived certificates per build: the
 * engine's client certificate and, on Kubernetes, its dind's server certificate. Server
 * certificates name `DIND_SERVER_NAME`, which an engine that connects by IP checks, since a
 * pod's IP is not known when the certificate is made; a build's also names its dind's DNS name.
 * @module
 */
import {
  createCertificateAuthority,
  decryptSecret,
  describeCertificate,
  encryptSecret,
  issueClientCertificate,
  issueServerCertificate,
} from '@sluice/pki';
import type { CertificateAndKey } from '@sluice/pki';
import type { ServerContext } from '../server-context.js';

export const DIND_SERVER_NAME = 'dind.sluice.internal';

export interface TlsBundle {
  caPem: string;
  certPem: string;
  keyPem: string;
  serverName: string;
}

const CA_ID = 'ca';
const RENEW_BEFORE_MS = 30 * 86_400_000;
/** A build's certificates outlive its longest allowed age (24 h) with a margin. */
const BUILD_VALIDITY_DAYS = 2;

export class CertificateService {
  readonly #ctx: ServerContext;
  #ca: Promise<CertificateAndKey> | undefined;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  /** The CA, created on first use and stored with its key encrypted. */
  ca(): Promise<CertificateAndKey> {
    this.#ca ??= this.#loadOrCreate(CA_ID, 'ca', () =>
      createCertificateAuthority({ commonName: 'Sluice internal CA', validityDays: 3650 }),
    ).catch((err: unknown) => {
      this.#ca = undefined;
      throw err;
    });
    return this.#ca;
  }

  async dindServerCertificate(accountId: string, runtime: string): Promise<TlsBundle> {
    const ca = await this.ca();
    const id = `dind:${accountId}:${runtime}`;
    const cert = await this.#loadOrCreate(id, 'dind-server', () =>
      issueServerCertificate(ca, {
        commonName: DIND_SERVER_NAME,
        dnsNames: [DIND_SERVER_NAME, 'localhost'],
        ipAddresses: ['127.0.0.1'],
        validityDays: 365,
      }),
    );
    return { caPem: ca.certPem, ...cert, serverName: DIND_SERVER_NAME };
  }

  async buildClientCertificate(buildId: string): Promise<TlsBundle> {
    const ca = await this.ca();
    const cert = await issueClientCertificate(ca, {
      commonName: `build:${buildId}`,
      organization: 'sluice-engine',
      validityDays: BUILD_VALIDITY_DAYS,
    });
    return { caPem: ca.certPem, ...cert, serverName: DIND_SERVER_NAME };
  }

  /** The server certificate of one build's dind pod, for its DNS name and `DIND_SERVER_NAME`. */
  async buildDindServerCertificate(options: {
    buildId: string;
    hostName: string;
  }): Promise<TlsBundle> {
    const ca = await this.ca();
    const cert = await issueServerCertificate(ca, {
      commonName: DIND_SERVER_NAME,
      organization: `build:${options.buildId}`,
      dnsNames: [options.hostName, DIND_SERVER_NAME],
      validityDays: BUILD_VALIDITY_DAYS,
    });
    return { caPem: ca.certPem, ...cert, serverName: DIND_SERVER_NAME };
  }

  async #loadOrCreate(
    id: string,
    kind: string,
    make: () => Promise<CertificateAndKey>,
  ): Promise<CertificateAndKey> {
    const db = this.#ctx.database.db;
    const row = await db.selectFrom('pki').selectAll().where('id', '=', id).executeTakeFirst();
    if (
      row !== undefined &&
      describeCertificate(row.cert_pem).notAfter.getTime() - this.#ctx.clock() > RENEW_BEFORE_MS
    ) {
      return {
        certPem: row.cert_pem,
        keyPem: decryptSecret(row.key_encrypted, this.#ctx.secretKey, {
          associatedData: `pki/${id}`,
        }),
      };
    }
    const made = await make();
    const stored = {
      cert_pem: made.certPem,
      key_encrypted: encryptSecret(made.keyPem, this.#ctx.secretKey, {
        associatedData: `pki/${id}`,
      }),
    };
    // Two processes may race to create it: the first insert wins and both read the winner.
    await db
      .insertInto('pki')
      .values({ id, kind, ...stored })
      .onConflict((oc) =>
        row === undefined ? oc.column('id').doNothing() : oc.column('id').doUpdateSet(stored),
      )
      .execute();
    const winner = await db
      .selectFrom('pki')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return {
      certPem: winner.cert_pem,
      keyPem: decryptSecret(winner.key_encrypted, this.#ctx.secretKey, {
        associatedData: `pki/${id}`,
      }),
    };
  }
}
