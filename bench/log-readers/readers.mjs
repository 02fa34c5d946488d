// The readers of bench/log-readers, in a process of their own so that reading a thousand streams
// does not slow the engine the bench plays in the parent. Started with the server's URL, a token
// and a build id (argv); told `connect` (a count, and the Last-Event-ID to start after) and
// `stats` over IPC.
//
// Each reader is a raw socket speaking HTTP/1.1 to `GET /api/v1/builds/:id/log/stream`, reading
// as fast as it can, counting bytes and finding the last `id:` it read with Buffer searches
// (no decoding: a thousand readers get half a gigabyte a second). A `behind` event makes it
// open the stream again after its last id, as the CLI and the web UI do; `end` ends it. The
// first SAMPLED readers also note when each chunk id arrived (Date.now()), for the delivery
// latency the parent computes against when each chunk was stored.
import { connect } from 'node:net';

const [url, token, buildId] = process.argv.slice(2);
const { hostname, port } = new URL(url);
const SAMPLED = 20;
const ID = Buffer.from('\nid: ');
const KEEP_ALIVE = Buffer.from(': keep-alive');
const BEHIND = Buffer.from('event: behind');
const END = Buffer.from('event: end');

const readers = [];

class Reader {
  constructor(index, lastId) {
    this.index = index;
    this.lastId = lastId;
    this.bytes = 0;
    this.live = false;
    this.ended = false;
    this.behind = 0;
    this.arrivals = index < SAMPLED ? new Map() : undefined;
    this.open();
  }

  open() {
    this.tail = Buffer.alloc(0);
    this.sawBehind = false;
    const socket = connect({ host: hostname, port: Number(port) });
    socket.setNoDelay(true);
    socket.on('connect', () =>
      socket.write(
        `GET /api/v1/builds/${buildId}/log/stream HTTP/1.1\r\nHost: ${hostname}\r\n` +
          `Authorization: Bearer ${token}\r\nLast-Event-ID: ${this.lastId}\r\n\r\n`,
      ),
    );
    socket.on('data', (data) => this.read(data));
    socket.on('error', () => {});
    socket.on('close', () => {
      if (this.ended) return;
      if (this.sawBehind) this.behind++;
      // A stream told to resume, or dropped: open it again after the last id read.
      setTimeout(() => this.open(), this.sawBehind ? 0 : 200);
    });
    this.socket = socket;
  }

  read(data) {
    this.bytes += data.length;
    // The tail of the last read joined to the head of this one: a marker split between reads.
    const edge = Buffer.concat([this.tail, data.subarray(0, 64)]);
    const now = Date.now();
    if (this.arrivals !== undefined) {
      for (const text of [edge, data])
        for (let at = text.indexOf(ID); at >= 0; at = text.indexOf(ID, at + 1)) {
          const id = parseId(text, at + ID.length);
          if (id !== undefined && !this.arrivals.has(id)) this.arrivals.set(id, now);
        }
    }
    for (const text of [data, edge]) {
      const at = text.lastIndexOf(ID);
      const id = at < 0 ? undefined : parseId(text, at + ID.length);
      if (id !== undefined && id > this.lastId) this.lastId = id;
    }
    if (!this.live && (data.includes(KEEP_ALIVE) || edge.includes(KEEP_ALIVE))) this.live = true;
    if (data.includes(BEHIND) || edge.includes(BEHIND)) this.sawBehind = true;
    if (data.includes(END) || edge.includes(END)) {
      this.ended = true;
      this.socket.destroy();
    }
    this.tail = Buffer.from(data.subarray(Math.max(0, data.length - 64)));
  }
}

/** The number at `at` if a newline follows it (the whole id arrived), else undefined. */
function parseId(text, at) {
  let id = 0;
  let i = at;
  for (; i < text.length && text[i] >= 48 && text[i] <= 57; i++) id = id * 10 + text[i] - 48;
  return i > at && i < text.length && text[i] === 10 ? id : undefined;
}

process.on('message', async (message) => {
  if (message.type === 'connect') {
    // In batches: the server's accept queue holds 511.
    for (let i = 0; i < message.count; i++) {
      readers.push(new Reader(readers.length, message.lastEventId));
      if (i % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    process.send({ type: 'connected' });
  } else if (message.type === 'stats') {
    const ids = readers.map((r) => r.lastId);
    process.send({
      type: 'stats',
      readers: readers.length,
      live: readers.filter((r) => r.live).length,
      ended: readers.filter((r) => r.ended).length,
      behind: readers.reduce((n, r) => n + r.behind, 0),
      bytes: readers.reduce((n, r) => n + r.bytes, 0),
      minLastId: Math.min(...ids),
      maxLastId: Math.max(...ids),
      arrivals: message.arrivals
        ? readers.filter((r) => r.arrivals).map((r) => [...r.arrivals])
        : undefined,
    });
  } else if (message.type === 'close') {
    for (const reader of readers) {
      reader.ended = true;
      reader.socket.destroy();
    }
    process.exit(0);
  }
});
