// The Worker a page's convertCheckpoint runs in (js/offload.js starts it): nxrig's own
// instance, in memory of its own, opens the checkpoint again from what the page opened
// it from (a File, a URL, a handle: they cross by postMessage), reads and casts it, and
// hands each output piece to the page as a transferred ArrayBuffer; the page's sink
// writes it (an OPFS folder this worker writes itself, from wasm memory, through sync
// access handles). Progress goes to the page; the page's abort comes as a message.
import { init, openCheckpoint, convertCheckpoint } from './index.js';
import { syncDirectorySink } from './sinks.js';

/** The page's replies to this worker's calls of its sink, by call number. */
const replies = new Map();
let calls = 0;
/** The conversion's steps so far, this worker's and those another worker does: the
 * page puts the steps of several workers in this order. */
let steps = 0;

/** Calls the page's sink: `op` with `args`, resolving with its reply. */
function call(op, args = [], transfer = []) {
  const id = ++calls;
  const step = ++steps;
  return new Promise((resolve, reject) => {
    replies.set(id, { resolve, reject });
    self.postMessage({ kind: 'sink', id, step, op, args }, transfer);
  });
}

/** The page's sink seen from here: each step a call it answers. */
const sink = {
  reserve: (bytes) => call('reserve', [bytes]),
  open: (name) => call('open', [name]),
  write(bytes) {
    // The conversion's bytes are its own: their buffer moves to the page, no copy.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const b = own ? bytes : bytes.slice();
    return call('write', [b], [b.buffer]);
  },
  close: () => call('close'),
  commit: () => call('commit'),
  abort: () => call('abort'),
  // A step of the conversion another worker does.
  skip() {
    steps++;
  },
};

const stop = new AbortController();

self.onmessage = async ({ data }) => {
  if (data.kind === 'reply') {
    const r = replies.get(data.id);
    replies.delete(data.id);
    if (data.error) r?.reject(Object.assign(new Error(data.error.message), { name: data.error.name }));
    else r?.resolve();
  } else if (data.kind === 'abort') {
    stop.abort(new DOMException('The conversion was aborted', 'AbortError'));
  } else if (data.kind === 'convert') {
    try {
      const wasm = await init(data.wasm);
      const ck = await openCheckpoint(data.origin, data.openOptions);
      // An OPFS folder is written here, from wasm memory, through sync access
      // handles; any other sink is the page's.
      const sync = data.sinkDir && typeof FileSystemFileHandle?.prototype?.createSyncAccessHandle === 'function';
      const out = sync ? syncDirectorySink(data.sinkDir, data.folder, sink.reserve) : sink;
      const report = await convertCheckpoint(ck, out, {
        ...data.options,
        worker: false,
        __nxShare: data.share,
        signal: stop.signal,
        onProgress: data.progress ? (p) => self.postMessage({ kind: 'progress', ...p }) : undefined,
      });
      ck.dispose();
      // Its wasm memory at the end: its peak (wasm memory never shrinks).
      self.postMessage({ kind: 'done', report, wasmBytes: wasm.memory.buffer.byteLength, wrote: sync ? 'sync access handles' : 'the page' });
    } catch (e) {
      self.postMessage({ kind: 'failed', error: { name: e?.name ?? 'Error', message: e?.message ?? String(e) } });
    }
  }
};
