// A page's conversion run in a Worker (js/worker.js): the page's thread only hands the
// worker's output pieces (transferred ArrayBuffers) to the sink and tells progress,
// so a conversion of any size never holds the thread that paints. The worker reads
// and casts in an nxrig instance of its own; nothing needs cross-origin isolation. An
// OPFS folder the worker writes itself, from its wasm memory (sync access handles).
import { inOpfs } from './sinks.js';

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
 * Runs a conversion of `checkpoint` into `sink` (a sink object on this page) in a
 * new Worker, with `options` (cloneable: to, tensors, saturate, fileName, scheme,
 * nibbles, keepQuantized), `onProgress` told here, `signal` aborting it. Resolves to
 * the worker's report; rejects with its error, `signal`'s reason, or what
 * `onProgress` threw (as `ctx.failed`). The worker is ended either way.
 */
export async function convertInWorker(checkpoint, sink, options, onProgress, signal, ctx, given) {
  // An OPFS folder the worker writes itself, through sync access handles.
  const sinkDir = given?.kind === 'directory' && (await inOpfs(given)) ? given : undefined;
  return inWorker(checkpoint, sink, options, onProgress, signal, ctx, sinkDir);
}

function inWorker(checkpoint, sink, options, onProgress, signal, ctx, sinkDir) {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'nxrig convertCheckpoint' });
  const { source, options: openOptions } = checkpoint.__nxCtx.origin;
  let queue = Promise.resolve();
  const onAbort = () => worker.postMessage({ kind: 'abort' });
  return new Promise((resolve, reject) => {
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.onmessage = ({ data }) => {
      if (data.kind === 'sink') {
        // The sink's steps in the order they came, each answered when done.
        queue = queue.then(async () => {
          try {
            // `reserve` is a sink's where it can tell whether the output fits.
            if (data.op !== 'reserve' || typeof sink.reserve === 'function') await sink[data.op](...data.args);
            worker.postMessage({ kind: 'reply', id: data.id });
          } catch (e) {
            worker.postMessage({ kind: 'reply', id: data.id, error: { name: e?.name ?? 'Error', message: e?.message ?? String(e) } });
          }
        });
      } else if (data.kind === 'progress') {
        if (ctx.failed !== undefined) return;
        try {
          onProgress?.({ bytesDone: data.bytesDone, bytesTotal: data.bytesTotal, tensor: data.tensor });
        } catch (e) {
          ctx.failed = e;
          onAbort();
        }
      } else if (data.kind === 'done') {
        // The worker's wasm memory, for the test's bound: not the report's own.
        Object.defineProperty(data.report, '__nxWasmBytes', { value: data.wasmBytes });
        Object.defineProperty(data.report, '__nxWrote', { value: data.wrote });
        queue.then(() => resolve(data.report));
      } else if (data.kind === 'failed') {
        const E = data.error.name === 'TypeError' ? TypeError : Error;
        const e = data.error.name === 'AbortError' ? new DOMException(data.error.message, 'AbortError') : new E(data.error.message.replace(/^openCheckpoint: /, 'convertCheckpoint: '));
        queue.then(() => reject(e));
      }
    };
    worker.onerror = (e) => {
      e.preventDefault?.();
      queue.then(() => sink.abort()).finally(() => reject(new Error(`convertCheckpoint: the conversion's Worker failed: ${e.message ?? 'it could not be started'} (convertCheckpoint(ck, sink, { worker: false }) converts on this thread)`)));
    };
    worker.postMessage({
      kind: 'convert',
      wasm: wasmForWorkers.default ? undefined : { module_or_path: wasmForWorkers.module ?? wasmForWorkers.url },
      origin: source,
      openOptions,
      sinkDir,
      folder: !!(checkpoint.sharded || checkpoint.folder),
      options,
      progress: onProgress !== undefined,
    });
  }).finally(() => {
    signal?.removeEventListener('abort', onAbort);
    worker.terminate();
  });
}
