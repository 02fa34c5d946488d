// The baseline of bench/log-readers: the least a server can do to give a build's chunks to its
// readers. A bare node:http server, no database, no Sluice: `GET …/log/stream` is answered with
// SSE headers and a keep-alive and kept; `POST /chunk?seq=N` (the chunk's lines as JSON) is made
// into the same event the control plane sends, encoded once and written to every stream at
// once (no backpressure: what it cannot send piles up in its memory); `POST /end` ends them.
// What the readers get from it, on the same machine and at the same time, is what the machine
// can carry; Sluice's figures are read against it. Prints its port on stdout.
import { createServer } from 'node:http';

const streams = new Set();

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(': keep-alive\n\n');
    streams.add(res);
    res.on('close', () => streams.delete(res));
    return;
  }
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', () => {
    const url = new URL(req.url, 'http://bare');
    if (url.pathname === '/chunk') {
      const seq = Number(url.searchParams.get('seq'));
      const lines = Buffer.concat(parts).toString('utf8');
      const event = Buffer.from(
        `id: ${seq}\nevent: log\ndata: {"seq":${seq},"lines":${lines}}\n\n`,
      );
      for (const stream of streams) stream.write(event);
    } else if (url.pathname === '/end') {
      for (const stream of streams)
        stream.end('event: end\ndata: {"status":"success","reason":null}\n\n');
    }
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
