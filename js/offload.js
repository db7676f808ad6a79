// A page's conversion run in a Worker (js/worker.js): the page's thread only hands the
// worker's output pieces (transferred ArrayBuffers) to the sink and tells progress,
// so a conversion of any size never holds the thread that paints. The worker reads
// and casts in an nxrig instance of its own; nothing needs cross-origin isolation. An
// OPFS folder the worker writes itself, from its wasm memory (sync access handles).
import { inOpfs } from './sinks.js';
import { crossing } from './relay.js';

/** What a Worker needs to load nxrig as the page did: `undefined` (the package's
 * `.wasm`, found as the page found it), a URL's text or a `WebAssembly.Module`; `null`
 * where the page gave what cannot cross (a `Response`). Set by `init`. */
let wasmForWorkers = null;

/** Notes what `init` was given (`input`, or `{ module_or_path }`), and returns what
 * `init` should load: bytes compiled here once into a `WebAssembly.Module`, which both
 * the page and its workers then instantiate. */
export async function wasmGiven(input) {
  const plain = input !== null && typeof input === 'object' && Object.getPrototypeOf(input) === Object.prototype;
  let given = plain ? input.module_or_path : input;
  if (given instanceof ArrayBuffer || ArrayBuffer.isView(given)) given = await WebAssembly.compile(given);
  wasmForWorkers = workable(given);
  return given === undefined ? input : { module_or_path: given };
}

/** `initSync`'s part of `wasmGiven`. */
export function wasmGivenSync(input) {
  const plain = input !== null && typeof input === 'object' && Object.getPrototypeOf(input) === Object.prototype;
  let given = plain ? input.module : input;
  if (given instanceof ArrayBuffer || ArrayBuffer.isView(given)) given = new WebAssembly.Module(given);
  wasmForWorkers = workable(given);
  return given === undefined ? input : { module: given };
}

function workable(given) {
  if (given === undefined || given instanceof WebAssembly.Module) return given === undefined ? { default: true } : { module: given };
  if (typeof given === 'string' || given instanceof URL) return { url: new URL(String(given), globalThis.location?.href).href };
  if (typeof Request === 'function' && given instanceof Request) return { url: given.url };
  return null;
}

/** What a worker opens `source` (opened with `options`) from: `source` itself where it
 * crosses by `postMessage` (a `File` or `Blob`, a URL as its full text, a
 * `FileSystemFileHandle` or `FileSystemDirectoryHandle`, a list of `File`s), with the
 * options; `null` for a source object, bytes (a copy), or options that cannot cross. */
export function originOf(source, options) {
  let o = null;
  if (typeof Blob !== 'undefined' && source instanceof Blob) o = source;
  else if (typeof source === 'string' || source instanceof URL) {
    try {
      o = new URL(String(source), globalThis.location?.href).href;
    } catch {
      return null;
    }
  } else if ((source?.kind === 'file' || source?.kind === 'directory') && typeof FileSystemHandle === 'function' && source instanceof FileSystemHandle) o = source;
  else if (typeof source?.[Symbol.iterator] === 'function' && typeof source !== 'string' && !(source instanceof Map) && !ArrayBuffer.isView(source)) {
    const all = Array.from(source);
    if (all.length === 0 || !all.every((f) => f instanceof File)) return null;
    // A folder chosen whole lists its subfolders' files too; a File's
    // webkitRelativePath does not cross: the model's files (at its top) are sent.
    o = all.filter((f) => (f.webkitRelativePath ?? '').split('/').length <= 2);
  }
  if (o === null) return null;
  try {
    structuredClone(options ?? {});
  } catch {
    return null;
  }
  return { source: o, options: options ?? {} };
}

/** Why a conversion of `checkpoint` on `device` cannot run in a Worker here, or `null`
 * where it can. */
export function whyNotInWorker(checkpoint, device) {
  if (typeof Worker !== 'function' || typeof document === 'undefined') return 'this is no page with Workers (in a Worker it runs where it is called; in Node a conversion from a path into a path runs in a worker thread)';
  if (device?.isGpu) return 'the device is a GPU (a GPUDevice does not cross to a Worker)';
  if (wasmForWorkers === null) return 'init() was given a Response (give it the .wasm\'s URL, its bytes or a WebAssembly.Module)';
  if (!checkpoint.__nxCtx?.origin) return 'the checkpoint was opened from bytes or a source object (a Worker opens a File, a Blob, a URL, a file system handle or a list of Files)';
  return null;
}

/**
 * Runs a conversion of `checkpoint` into `sink` (a sink object on this page) in new
 * Workers, with `options` (cloneable: to, tensors, saturate, fileName, scheme,
 * nibbles, keepQuantized), `onProgress` told here, `signal` aborting it. On the host,
 * into a sink of this page, `workers` Workers share it (each its own wasm instance and
 * memory, the pieces dealt in turn: `convert::Share`); their sink steps are put in
 * the order of the conversion's steps (each worker counts the steps another does), so
 * the sink sees what one worker would write. An OPFS folder is written by one worker,
 * from its wasm memory. Resolves to the report (the workers' overflow tallies added
 * up); rejects with the first worker's error, `signal`'s reason, or what
 * `onProgress` threw (as `ctx.failed`). Every worker is ended either way.
 */
export async function convertInWorker(checkpoint, sink, options, onProgress, signal, ctx, given, { workers = 1, host = true } = {}) {
  // An OPFS folder the worker writes itself, through sync access handles.
  const sinkDir = given?.kind === 'directory' && (await inOpfs(given)) ? given : undefined;
  const count = sinkDir || !host ? 1 : workers;
  const { source, options: openOptions } = checkpoint.__nxCtx.origin;
  const spawn = () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'nxrig convertCheckpoint' });
  const folder = !!(checkpoint.sharded || checkpoint.folder);
  return inWorkers({ spawn, source, openOptions, folder, sink, options, onProgress, signal, ctx, sinkDir, count });
}

/**
 * Runs a conversion shared by `count` workers that `spawn()` starts (each a Worker, or
 * an object with a Worker's `postMessage`, `terminate`, `onmessage` and `onerror`:
 * Node's worker threads, js/node.js), each opening `source` with `openOptions` and
 * converting its share with `options`; their sink steps go to `sink` here, in the
 * conversion's order. `sinkDir`: an OPFS folder the one worker writes itself. As
 * `convertInWorker` says.
 */
export function inWorkers({ spawn, source, openOptions, folder, sink, options, onProgress, signal, ctx, sinkDir, count }) {
  const all = Array.from({ length: count }, spawn);
  let queue = Promise.resolve();
  // The sink's steps by their number in the conversion, until their turn.
  const waiting = new Map();
  let next = 1;
  let aborted = false;
  // A step of the sink failed: the steps after it are refused (the worker told of the
  // failure fails with it; the others with STOPPED, which is not the cause).
  let broken = false;
  const abortSink = () => {
    if (!aborted) {
      aborted = true;
      queue = queue.then(() => sink.abort()).catch(() => {});
    }
    return queue;
  };
  const reports = new Array(count);
  const wasmBytes = new Array(count).fill(0);
  const done = new Array(count).fill(0);
  let finished = 0;
  const onAbort = () => all.forEach((w) => w.postMessage({ kind: 'abort' }));
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (e) => {
      // A worker stopped because another failed: that one's error follows.
      if (settled || e.message.includes(STOPPED)) return;
      settled = true;
      onAbort();
      // The sink is aborted where a step reached it: a refusal before the first (an
      // option, the plan) leaves it as it was, as on the calling thread.
      (next > 1 ? abortSink() : queue).then(() => reject(e), () => reject(e));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    all.forEach((worker, k) => {
      const reply = (id, e) => worker.postMessage({ kind: 'reply', id, ...(e === undefined ? {} : { error: crossing(e) }) });
      worker.onmessage = ({ data }) => {
        if (data.kind === 'sink') {
          if (data.op === 'abort') {
            // The worker failed: its error follows; nothing more is written.
            abortSink().finally(() => reply(data.id));
            return;
          }
          waiting.set(data.step, { data, reply });
          // The steps whose turn has come, in order, each answered when done.
          while (waiting.has(next)) {
            const { data: d, reply: r } = waiting.get(next);
            waiting.delete(next++);
            queue = queue.then(async () => {
              try {
                if (aborted || broken) throw new Error(STOPPED);
                // `reserve` is a sink's where it can tell whether the output fits.
                if (d.op !== 'reserve' || typeof sink.reserve === 'function') await sink[d.op](...d.args);
                r(d.id);
              } catch (e) {
                broken = true;
                r(d.id, e);
              }
            });
          }
        } else if (data.kind === 'progress') {
          // Nothing told after an abort, a failure or the end.
          if (ctx.failed !== undefined || settled || aborted || signal?.aborted) return;
          done[k] = data.bytesDone;
          try {
            onProgress?.({ bytesDone: done.reduce((a, b) => a + b, 0), bytesTotal: data.bytesTotal, tensor: data.tensor });
          } catch (e) {
            ctx.failed = e;
            onAbort();
          }
        } else if (data.kind === 'done') {
          reports[k] = data.report;
          wasmBytes[k] = data.wasmBytes;
          if (++finished < count) return;
          const report = merged(reports);
          // The workers' wasm memory at the end, together: not the report's own.
          Object.defineProperty(report, '__nxWasmBytes', { value: wasmBytes.reduce((a, b) => a + b, 0) });
          Object.defineProperty(report, '__nxWrote', { value: data.wrote });
          Object.defineProperty(report, '__nxWorkers', { value: count });
          queue.then(() => {
            settled = true;
            resolve(report);
          });
        } else if (data.kind === 'failed') {
          const E = data.error.name === 'TypeError' ? TypeError : Error;
          fail(data.error.name === 'AbortError' ? new DOMException(data.error.message, 'AbortError') : new E(data.error.message.replace(/^openCheckpoint: /, 'convertCheckpoint: ')));
        }
      };
      worker.onerror = (e) => {
        e.preventDefault?.();
        fail(new Error(`convertCheckpoint: the conversion's Worker failed: ${e.message ?? 'it could not be started'} (convertCheckpoint(ck, sink, { worker: false }) converts on this thread)`));
      };
      worker.postMessage({
        kind: 'convert',
        wasm: !wasmForWorkers || wasmForWorkers.default ? undefined : { module_or_path: wasmForWorkers.module ?? wasmForWorkers.url },
        origin: source,
        openOptions,
        sinkDir,
        folder,
        options,
        share: count > 1 ? [k, count] : undefined,
        progress: onProgress !== undefined,
      });
    });
  }).finally(() => {
    signal?.removeEventListener('abort', onAbort);
    for (const w of all) w.terminate();
  });
}

/** What a step refused after another worker's failure says (never the cause). */
const STOPPED = 'nxrig: stopped: another Worker of this conversion failed';

/** The report of a conversion the workers shared: the first's, each tensor's overflow
 * tallies added up over the workers, in the order written (each worker's overflows
 * carry their tensor's place in the output, `__nxAt`, dropped here);
 * `dequantizedOnDevice` 0 (workers convert on the host). */
function merged(reports) {
  if (reports.length === 1) return reports[0];
  const by = new Map();
  for (const r of reports) {
    for (const o of r.overflows) {
      const t = by.get(o.tensor);
      if (!t) by.set(o.tensor, { ...o });
      else for (const k of ['overflowed', 'infinities', 'nans']) t[k] += o[k];
    }
  }
  const overflows = [...by.values()].sort((a, b) => a.__nxAt - b.__nxAt).map(({ __nxAt, ...o }) => o);
  return { ...reports[0], dequantizedOnDevice: 0, overflows };
}
