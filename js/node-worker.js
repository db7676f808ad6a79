// The worker thread Node's convertCheckpoint runs a conversion from a path into a
// path in (js/node.js starts it, node:worker_threads): nxrig's own instance, in memory
// of its own, opens the checkpoint again from its path, converts it and writes the
// output there (temporaries renamed once all are whole, as on the main thread), so the
// caller's event loop stays free. Progress goes to the caller; its abort comes as a
// message. Where several threads share a conversion (`workers`), each converts its
// share and hands its sink steps to the caller, which writes them in order
// (js/offload.js' protocol, as a page's Workers do: js/worker.js).
import { parentPort, workerData } from 'node:worker_threads';
import { init, openCheckpoint, convertCheckpoint } from './node.js';
import { sharesInThisThread } from './checkpoint.js';
import { crossing, relayedSink } from './relay.js';

const stop = new AbortController();
/** The caller's sink seen from here: each step a message it answers. */
const { sink, reply } = relayedSink((m, transfer) => parentPort.postMessage(m, transfer));

parentPort.on('message', (m) => {
  if (m?.kind === 'abort') stop.abort(new DOMException('The conversion was aborted', 'AbortError'));
  else if (m?.kind === 'reply') reply(m);
  else if (m?.kind === 'convert') convert(m);
});

/** Converts as `m` says: `m.share` [index, count] a share into the caller's sink, else
 * the whole into the path `m.sink`. */
async function convert(m) {
  try {
    // The caller's compiled module where it sent one, else the package's file.
    const wasm = await init(m.wasm);
    const ck = await openCheckpoint(m.origin, m.openOptions);
    const onProgress = m.progress ? (p) => parentPort.postMessage({ kind: 'progress', ...p }) : undefined;
    let report;
    if (m.share) {
      sharesInThisThread();
      report = await convertCheckpoint(ck, sink, { ...m.options, worker: false, __nxShare: m.share, signal: stop.signal, onProgress });
    } else {
      report = await convertCheckpoint(ck, m.sink, { ...m.options, worker: false, signal: stop.signal, onProgress });
    }
    ck.dispose();
    parentPort.postMessage({ kind: 'done', report, wasmBytes: wasm.memory.buffer.byteLength, wrote: m.share ? 'the caller' : 'this thread' });
  } catch (e) {
    parentPort.postMessage({ kind: 'failed', error: crossing(e) });
  }
}

// The one thread of an unshared conversion is told what to do at its start.
if (workerData?.sink !== undefined) convert({ kind: 'convert', origin: workerData.source, openOptions: workerData.openOptions, sink: workerData.sink, options: workerData.options, progress: workerData.progress });
