// The checkpoint tests' server, on 127.0.0.1: the demo page (www/) at /, the test's
// checkpoints at /data/... with HTTP Range (206, Content-Range, an ETag; `?norange`
// answers 200 with the whole file, as a server that ignores Range does; /spa/... serves
// the same files and answers a missing one with an HTML page (200), as a development
// server's single-page-app fallback does; `?changing` moves
// the ETag after the headers were read, as a file replaced while it is read;
// `?rangetoend` answers a Range with the bytes from its start to the file's end, as
// Vite's server answers `bytes=0-0`, and counts the bytes it read for them in
// `rangeToEndBytes`; `?cacheable` lets the browser cache a whole answer, gzipped, as
// `vite preview` does), and a
// WebSocket at /upload/NAME, where a page's WritableStream sends its chunks in order,
// then `close` or `abort` (an aborted upload is removed). A WebSocket, not POSTs:
// Chromium uploads a POST body at about 20 MB/s here, a WebSocket at about 70.
import { createReadStream, createWriteStream, readFileSync, statSync, unlinkSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { WebSocketServer } from 'ws';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json' };

/** Serves `www` and `data`, uploads into `uploads`; resolves to { url, close, uploads: Map name -> state }. */
export function checkpointServer({ www, data, uploads }) {
  const state = new Map();
  const requests = new Map();
  const counted = { rangeToEndBytes: 0 };
  const server = createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const path = decodeURIComponent(u.pathname);
    const spa = path.startsWith('/spa/');
    const [dir, rel] = path.startsWith('/data/') ? [data, path.slice(6)] : spa ? [data, path.slice(5)] : [www, path.slice(1) || 'index.html'];
    const file = join(dir, normalize(rel).replace(/^(\.\.[/\\])+/, ''));
    let s;
    try {
      s = statSync(file);
      if (!s.isFile()) throw new Error('not a file');
    } catch {
      if (spa) {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>an app</title>');
        return;
      }
      res.writeHead(404).end();
      return;
    }
    // `?changing`: a file replaced after its headers were read (its ETag moves from
    // the fourth request on: the size, the probe and the header read the same file).
    const seen = (requests.get(req.url) ?? 0) + 1;
    requests.set(req.url, seen);
    const etag = u.searchParams.has('changing') && seen > 3 ? `"${s.size}-changed-${seen}"` : `"${s.size}-${s.mtimeMs}"`;
    const cacheable = u.searchParams.has('cacheable');
    const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', ETag: etag, 'Cache-Control': cacheable ? 'max-age=3600' : 'no-store' };
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (cacheable && !range && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      const body = gzipSync(readFileSync(file));
      res.writeHead(200, { ...headers, 'Content-Encoding': 'gzip', 'Content-Length': body.length, 'Accept-Ranges': 'bytes' }).end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    if (!range || u.searchParams.has('norange')) {
      res.writeHead(200, { ...headers, 'Content-Length': s.size });
      if (req.method === 'HEAD') return res.end();
      createReadStream(file).pipe(res);
      return;
    }
    const start = Number(range[1]);
    const end = range[2] === '' || u.searchParams.has('rangetoend') ? s.size - 1 : Math.min(Number(range[2]), s.size - 1);
    if (start >= s.size || end < start) {
      res.writeHead(416, { ...headers, 'Content-Range': `bytes */${s.size}` }).end();
      return;
    }
    res.writeHead(206, { ...headers, 'Content-Length': end - start + 1, 'Content-Range': `bytes ${start}-${end}/${s.size}` });
    const body = createReadStream(file, { start, end });
    if (u.searchParams.has('rangetoend')) body.on('data', (c) => { counted.rangeToEndBytes += c.length; });
    // A client that stops reading (its body cancelled) ends the file's read.
    res.on('close', () => body.destroy());
    body.pipe(res);
  });

  const wss = new WebSocketServer({ server, maxPayload: 1 << 30 });
  wss.on('connection', (ws, req) => {
    const name = decodeURIComponent(new URL(req.url, 'http://x').pathname.replace(/^\/upload\//, ''));
    const file = join(uploads, name.replace(/[\\/]/g, '_'));
    const st = { file, out: createWriteStream(file), bytes: 0, done: false, aborted: false };
    state.set(name, st);
    ws.on('message', (m, binary) => {
      if (binary) {
        st.bytes += m.length;
        st.out.write(m);
      } else if (String(m) === 'close') {
        st.out.end(() => { st.done = true; ws.send('ok'); });
      } else {
        st.aborted = true;
        st.out.end(() => { try { unlinkSync(file); } catch { /* gone */ } ws.send('ok'); });
      }
    });
  });

  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, uploads: state, counted, close: () => new Promise((r) => { for (const c of wss.clients) c.terminate(); wss.close(); server.closeAllConnections?.(); server.close(r); }) });
    });
  });
}
