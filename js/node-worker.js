// The worker thread Node's convertCheckpoint runs a conversion from a path into a
// path in (js/node.js starts it, node:worker_threads): nxrig's own instance, in memory
// of its own, opens the checkpoint again from its path, converts it and writes the
// output there (temporaries renamed once all are whole, as on the main thread), so the
// caller's event loop stays free. Progress goes to the caller; its abort comes as a
// message.
import { parentPort, workerData } from 'node:worker_threads';
import { init, openCheckpoint, convertCheckpoint } from './node.js';

const stop = new AbortController();
parentPort.on('message', (m) => {
  if (m?.kind === 'abort') stop.abort(new DOMException('The conversion was aborted', 'AbortError'));
});

try {
  const wasm = await init();
  const ck = await openCheckpoint(workerData.source, workerData.openOptions);
  const report = await convertCheckpoint(ck, workerData.sink, {
    ...workerData.options,
    worker: false,
    signal: stop.signal,
    onProgress: workerData.progress ? (p) => parentPort.postMessage({ kind: 'progress', ...p }) : undefined,
  });
  ck.dispose();
  parentPort.postMessage({ kind: 'done', report, wasmBytes: wasm.memory.buffer.byteLength });
} catch (e) {
  parentPort.postMessage({ kind: 'failed', error: { name: e?.name ?? 'Error', message: e?.message ?? String(e) } });
}
