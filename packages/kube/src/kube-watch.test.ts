import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { KubeClient } from './kube-client.js';
import { KubeResources } from './kube-resources.js';
import { watchChanges } from './kube-watch.js';
import type { WatchEvent } from './kube-watch.js';

// A 410 cannot be provoked on the test cluster (its watch cache grows while events are fresh),
// so an HTTP server on a real port answers as the API server does once a version is too old.
const requests: string[] = [];
let answer: (url: URL, res: ServerResponse) => void = () => undefined;
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  requests.push(req.url ?? '');
  answer(new URL(req.url ?? '', 'http://x'), res);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
after(() => server.close());
const port = (server.address() as AddressInfo).port;
const resources = new KubeResources(
  KubeClient.create({
    source: { type: 'token', host: `http://127.0.0.1:${port}`, token: 't' },
    env: {},
  }),
);

const event = (type: string, name: string, rv: string) =>
  JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv } } }) + '\n';
const gone = JSON.stringify({
  type: 'ERROR',
  object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' },
});

test('a watch streams its events line by line, whatever the chunks, and ends with the last version', async () => {
  answer = (_url, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const text = event('ADDED', 'a', '5') + event('BOOKMARK', '', '7') + event('DELETED', 'a', '9');
    // Split mid-line: a line is an event only once it is whole.
    res.write(text.slice(0, 30));
    setTimeout(() => res.end(text.slice(30)), 20);
  };
  const seen: string[] = [];
  const end = await resources.watch(
    { kind: 'ConfigMap', namespace: 'ci', labelSelector: 'a=b', timeoutSeconds: 5 },
    (e) => seen.push(`${e.type} ${e.object.metadata.name}`),
  );
  assert.deepEqual(seen, ['ADDED a', 'BOOKMARK ', 'DELETED a']);
  assert.deepEqual(end, { kind: 'ended', resourceVersion: '9' });
  const url = new URL(requests.at(-1) ?? '', 'http://x');
  assert.equal(url.pathname, '/api/v1/namespaces/ci/configmaps');
  assert.equal(url.searchParams.get('watch'), '1');
  assert.equal(url.searchParams.get('labelSelector'), 'a=b');
  assert.equal(url.searchParams.get('allowWatchBookmarks'), 'true');
});

test('a version too old, in the stream (an ERROR event) or as the answer (HTTP 410), is expired', async () => {
  answer = (_url, res) => {
    res.writeHead(200);
    res.write(gone + '\n');
    // The server keeps the answer open: the watch stops reading on its own.
  };
  assert.deepEqual(
    await resources.watch({ kind: 'PersistentVolume', resourceVersion: '3' }, () => {
      assert.fail('no event from an expired watch');
    }),
    { kind: 'expired' },
  );
  answer = (_url, res) => {
    res.writeHead(410, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', code: 410, reason: 'Gone' }));
  };
  assert.deepEqual(await resources.watch({ kind: 'PersistentVolume' }, () => undefined), {
    kind: 'expired',
  });
});

test('watchChanges resumes from the last version, and after a 410 starts again from now, telling of the gap', async () => {
  requests.length = 0;
  answer = (url, res) => {
    const rv = url.searchParams.get('resourceVersion');
    res.writeHead(200);
    if (rv === null) res.end(event('ADDED', 'first', '10'));
    else if (rv === '10') res.end(gone + '\n');
    else res.end();
  };
  const controller = new AbortController();
  const seen: Array<string | undefined> = [];
  const watching = watchChanges(
    resources.watch.bind(resources),
    { kind: 'PersistentVolume', labelSelector: 'x=y' },
    (e: WatchEvent | undefined) => {
      seen.push(e?.object.metadata.name);
      if (seen.length >= 3) controller.abort();
    },
    { signal: controller.signal },
  );
  await watching;
  assert.deepEqual(seen, ['first', undefined, 'first'], 'the re-list sends what exists again');
  const versions = requests.map((r) => new URL(r, 'http://x').searchParams.get('resourceVersion'));
  assert.deepEqual(versions.slice(0, 3), [null, '10', null]);
});
