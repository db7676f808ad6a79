// The Worker a page's convertCheckpoint runs in (js/offload.js starts it): nxrig's own
// instance, in memory of its own, opens the checkpoint again from what the page opened
// it from (a File, a URL, a handle: they cross by postMessage), reads and casts it, and
// hands each output piece to the page as a transferred ArrayBuffer; the page's sink
// writes it (an OPFS folder this worker writes itself, from wasm memory, through sync
// access handles). Progress goes to the page; the page's abort comes as a message.
import { init, openCheckpoint, convertCheckpoint } from './index.js';
import { syncDirectorySink } from './sinks.js';
import { crossing, relayedSink } from './relay.js';

/** The page's sink seen from here: each step a message it answers. */
const { sink, reply } = relayedSink((m, transfer) => self.postMessage(m, transfer));

const stop = new AbortController();

self.onmessage = async ({ data }) => {
  if (data.kind === 'reply') reply(data);
  else if (data.kind === 'abort') {
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
      self.postMessage({ kind: 'failed', error: crossing(e) });
    }
  }
};
