import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { connect, createServer as createTlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { useTestDatabases } from '@sluice/db/testing';
import { isSluiceError } from '@sluice/errors';
import type { TlsBundle } from '@sluice/protocol';
import type { z } from 'zod';
import {
  startTestServer,
  agentClient,
  seedPipeline,
  ONE_KIND,
} from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

/** A TLS server with the dind certificate that requires a client certificate; resolves with the client's CN. */
async function handshake(
  server: z.output<typeof TlsBundle>,
  client: z.output<typeof TlsBundle>,
): Promise<string> {
  const tlsServer = createTlsServer(
    {
      key: server.keyPem,
      cert: server.certPem,
      ca: server.caPem,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (socket) => {
      socket.end(String(socket.getPeerCertificate().subject?.CN));
    },
  );
  await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
  try {
    const port = (tlsServer.address() as AddressInfo).port;
    return await new Promise<string>((resolve, reject) => {
      const socket = connect(
        {
          host: '127.0.0.1',
          port,
          servername: client.serverName,
          key: client.keyPem,
          cert: client.certPem,
          ca: client.caPem,
        },
        () => undefined,
      );
      let data = '';
      socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
  } finally {
    tlsServer.close();
  }
}

databases.test(
  'the internal CA issues a dind certificate per runtime and a client certificate per build that authenticate each other',
  async (database) => {
    let t = await startTestServer(database);
    const secretKey = t.server.services.ctx.config.secretKey;
    try {
      const pipeline = await seedPipeline(t);
      const agent = await agentClient(t, 'a1');
      const dind = await agent.call('dindCertificate', { params: { name: 'local' } });
      const ca = new X509Certificate(dind.caPem);
      const serverCert = new X509Certificate(dind.certPem);
      assert.ok(serverCert.verify(ca.publicKey), 'the dind certificate is signed by the CA');
      assert.equal(serverCert.checkHost(dind.serverName), dind.serverName);
      await assert.rejects(
        agent.call('dindCertificate', { params: { name: 'other' } }),
        (err: unknown) => isSluiceError(err) && err.code === 'SLUICE_AGENT_RUNTIME_FORBIDDEN',
      );

      const build = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      const task = (await agent.call('pollTasks', { query: { wait: 0 } })).tasks[0]!;
      const engineBuild = await t.client(String(task.spec.engineToken)).call('engineBuild');
      assert.equal(new X509Certificate(engineBuild.tls.certPem).verify(ca.publicKey), true);
      assert.equal(await handshake(dind, engineBuild.tls), `build:${build.id}`);

      const rows = await database.db.selectFrom('pki').selectAll().execute();
      assert.ok(
        rows.every((r) => !r.key_encrypted.includes('PRIVATE KEY')),
        'a private key is stored in clear',
      );
      // A restart on the same database and key keeps the same CA and dind certificate.
      await t.close();
      t = await startTestServer(database, { secretKey, bootstrapToken: undefined });
      const { id: accountId } = await database.db
        .selectFrom('accounts')
        .select('id')
        .executeTakeFirstOrThrow();
      const again = await t.server.services.certificates.dindServerCertificate(accountId, 'local');
      assert.equal(again.caPem, dind.caPem);
      assert.equal(again.certPem, dind.certPem);
    } finally {
      await t.close();
    }
  },
);
