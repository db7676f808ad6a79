// openCheckpoint and convertCheckpoint: the npm package's way to checkpoints of any
// size. Sources and sinks are made here from what the caller gives (js/sources.js,
// js/sinks.js); the headers, the plan and the conversion are nxrig's, in wasm
// (src/web/checkpoint.rs and convert_into.rs over src/convert), so the bytes are `nxrig convert`'s.
import {
  Checkpoint,
  Device,
  convertCheckpointInto,
  indexShards,
  openCheckpointFile,
  openCheckpointGgufSplit,
  openCheckpointSharded,
} from '../pkg/nxrig.js';
import { blobSource, bytesSource, isSource, urlSource, urlText } from './sources.js';
import { directorySink, isStream, pipelined, streamSink, streamsSink } from './sinks.js';
import { described, optionError } from './described.js';
import { convertInWorker, originOf, whyNotInWorker } from './offload.js';

const INDEX = /\.index\.json$/;
/** A split GGUF file's name: `PREFIX-00001-of-00003.gguf`. */
export const GGUF_SPLIT = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/;
const base = (n) => String(n).split(/[\\/]/).pop();

/** The mark on an nxrig error thrown as a `TypeError` (src/web/mod.rs
 * `js_type_error`: the Rust side makes only `Error`s). */
const TYPE_MARK = 'nxrig:TypeError: ';

/** `e` as a `TypeError` naming the function `fn` called, where nxrig marked it one (an
 * argument or option of the wrong type or value); else `undefined`. */
export function typeError(e, fn) {
  if (!(e instanceof Error) || !e.message.startsWith(TYPE_MARK)) return undefined;
  return new TypeError(`${fn ?? 'nxrig'}: ${e.message.slice(TYPE_MARK.length)}`);
}

/** An Error of the function `fn` called, with `e`'s message (an nxrig error's names
 * the file and the tensor; a TypeError where nxrig marked it one). AbortErrors pass as
 * they are. */
export function named(fn, e) {
  if (e?.name === 'AbortError') return e;
  const t = typeError(e, fn);
  if (t) return t;
  const m = e?.message ?? String(e);
  if (m.startsWith(`${fn}: `)) return e;
  if (e instanceof Error && m.startsWith('nxrig: ') && !m.startsWith('nxrig: internal error')) {
    e.message = `${fn}: ${m.slice('nxrig: '.length)}`;
    return e;
  }
  return new Error(`${fn}: ${m}`, { cause: e });
}

/** A model's configuration files: a folder with one is opened as a model's folder. */
const CONFIGS = ['config.json', 'hf_quant_config.json'];
const WEIGHTS = /\.(safetensors|npy|gguf)$/;
/** The largest configuration nxrig reads (`config.json` is a few KB). */
const MAX_CONFIG = 16 << 20;

/** `ck` made a model's folder where `files` (a `Map` of file name to `Blob` or
 * source object) holds a `config.json` or `hf_quant_config.json`: those two read, every
 * other file but the weights and indexes copied as it is into a converted folder. */
export async function asFolder(ck, files, ctx) {
  if (!CONFIGS.some((n) => files.has(n))) return ck;
  const text = async (name) => {
    const f = files.get(name);
    if (f === undefined) return undefined;
    if (f.size > MAX_CONFIG) throw new Error(`${name}: ${f.size} bytes, more than nxrig reads of a configuration (${MAX_CONFIG})`);
    return f instanceof Blob ? f.text() : new TextDecoder().decode(await f.read(0, f.size));
  };
  const others = [];
  for (const [name, f] of files) {
    if (CONFIGS.includes(name) || INDEX.test(name) || WEIGHTS.test(name) || /^\.nxrig-.*\.tmp$/.test(name)) continue;
    others.push(f instanceof Blob ? blobSource(f, name, ctx) : { name, size: f.size, read: (a, b) => f.read(a, b) });
  }
  ck.setFolder(await text('config.json'), await text('hf_quant_config.json'), others);
  return ck;
}

/** The files of a list (a `FileList`, an array of `File`s): the index among them. */
async function fromFiles(files, ctx) {
  // A folder chosen whole (`webkitdirectory`) lists its subfolders' files too: the
  // model's are those at its top.
  const all = Array.from(files);
  const odd = all.find((f) => !(f instanceof Blob));
  if (odd !== undefined) throw optionError('openCheckpoint', `a list of Files holds ${described(odd)}`);
  if (all.length === 0) throw new Error('no files given');
  const list = all.filter((f) => (f.webkitRelativePath ?? '').split('/').length <= 2);
  const byName = new Map(list.map((f) => [base(f.name), f]));
  return asFolder(await fromList(list, byName, ctx), byName, ctx);
}

/** The checkpoint among `list`, `byName` its files by name. */
async function fromList(list, byName, ctx) {
  const index = list.filter((f) => INDEX.test(f.name));
  if (index.length > 1) throw new Error(`several indexes among the files (${index.map((f) => f.name).join(', ')}): give one checkpoint's files`);
  if (index.length === 0) {
    const weights = list.filter((f) => WEIGHTS.test(f.name));
    if (weights.length > 1 && weights.every((f) => GGUF_SPLIT.test(base(f.name)))) {
      // A GGUF file's splits, opened as one checkpoint in the order of their names.
      const splits = weights.sort((a, b) => (base(a.name) < base(b.name) ? -1 : 1));
      return openCheckpointGgufSplit(splits.map((f) => blobSource(f, base(f.name), ctx)));
    }
    if (weights.length !== 1) throw new Error(`${list.length} files and no *.index.json among them: give one file, or a sharded checkpoint's index with its shards`);
    return openCheckpointFile(blobSource(weights[0], weights[0].name, ctx), ctx.npyDtype);
  }
  unsharded(ctx);
  const text = await index[0].text();
  return openCheckpointSharded(index[0].name, text, (name) => {
    const f = byName.get(name);
    return f && blobSource(f, name, ctx);
  });
}

/** A `FileSystemDirectoryHandle`: its index and shards, or its one weights file. */
async function fromDirectory(dir, ctx) {
  const files = new Map();
  for await (const [name, h] of dir.entries()) if (h.kind === 'file') files.set(name, await h.getFile());
  const names = [...files.keys()].sort();
  const index = names.filter((n) => INDEX.test(n));
  const weights = names.filter((n) => WEIGHTS.test(n));
  if (index.length > 1 || (index.length === 0 && weights.length !== 1)) {
    throw new Error(`the folder ${dir.name} holds ${index.length} indexes and ${weights.length} weights files: nxrig opens a folder of one checkpoint`);
  }
  return asFolder(await fromList([...files.values()], files, ctx), files, ctx);
}

/** `{ index: { name, text }, shards }`: an index's text and its shards as source
 * objects (`shards` an object or `Map` by name, or a function of the name). */
async function fromParts({ index, shards }, ctx) {
  unsharded(ctx);
  if (typeof index?.text !== 'string') throw optionError('openCheckpoint', `index must be { name, text }, got: ${described(index)}`);
  const of = typeof shards === 'function' ? shards
    : shards instanceof Map ? (n) => shards.get(n) : (n) => (Object.hasOwn(shards, n) ? shards[n] : undefined);
  return openCheckpointSharded(index.name ?? 'model.safetensors.index.json', index.text, (name) => {
    const s = of(name);
    if (s !== undefined && !isSource(s)) throw optionError('openCheckpoint', `shard ${name} is not a source object { name, size, read }, got: ${described(s)}`);
    return s;
  });
}

/** `{ ggufSplits }`: a split GGUF file's splits as source objects, in order. */
async function fromSplits(splits) {
  for (const s of splits) if (!isSource(s)) throw optionError('openCheckpoint', `ggufSplits must hold source objects { name, size, read }, got: ${described(s)}`);
  return openCheckpointGgufSplit(splits);
}

/** Files a model's folder commonly holds beside its weights and configuration,
 * copied into a converted folder where the server has them (an HTTP server lists no
 * folder). */
const MODEL_FILES = ['generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'tokenizer.model', 'vocab.json', 'merges.txt', 'added_tokens.json', 'chat_template.jinja', 'chat_template.json', 'preprocessor_config.json'];

/** A model's folder at the URL `u` (ending in `/`): its `config.json` (which must be
 * there), `hf_quant_config.json`, `model.safetensors.index.json` and its shards or
 * else `model.safetensors`, and the common files of `MODEL_FILES` that are there. */
async function fromFolderUrl(u, init, ctx) {
  unsharded(ctx);
  const at = (n) => new URL(n, u);
  const files = new Map();
  for (const n of [...CONFIGS, ...MODEL_FILES]) {
    const s = await urlSource(at(n), init, ctx, { missing: true });
    if (s !== undefined) files.set(n, { ...s, name: n });
  }
  if (!files.has('config.json')) throw new Error(`${at('config.json')}: the server has no such file (a model's folder URL ends in / and holds its config.json)`);
  const index = await urlSource(at('model.safetensors.index.json'), init, ctx, { missing: true });
  let ck;
  if (index !== undefined) {
    const text = await urlText(index.name, init, ctx);
    const shards = new Map();
    for (const n of indexShards('model.safetensors.index.json', text)) shards.set(n, await urlSource(at(n), init, ctx));
    ck = await openCheckpointSharded('model.safetensors.index.json', text, (name) => shards.get(name));
  } else {
    const one = await urlSource(at('model.safetensors'), init, ctx, { missing: true });
    if (one === undefined) throw new Error(`${u}: the server has neither model.safetensors.index.json nor model.safetensors`);
    ck = await openCheckpointFile({ ...one, name: 'model.safetensors' });
  }
  return asFolder(ck, files, ctx);
}

/** A URL: a model's folder (ending in `/`, or its `config.json`), an index
 * (`*.json`, its shards beside it) or one file. */
async function fromUrl(url, init, ctx) {
  const u = new URL(String(url), globalThis.location?.href);
  if (u.pathname.endsWith('/')) return fromFolderUrl(u, init, ctx);
  if (/\/config\.json$/.test(u.pathname)) return fromFolderUrl(new URL('./', u), init, ctx);
  if (u.pathname.endsWith('.json')) {
    unsharded(ctx);
    const text = await urlText(u, init, ctx);
    const shards = new Map();
    for (const n of indexShards(u.href, text)) shards.set(n, await urlSource(new URL(n, u), init, ctx));
    return openCheckpointSharded(u.href, text, (name) => shards.get(name));
  }
  return openCheckpointFile(await urlSource(u, init, ctx), ctx.npyDtype);
}

/** Throws where `options.npyDtype` was given for a sharded checkpoint (its shards are
 * .safetensors files, whose headers name every dtype). */
function unsharded(ctx) {
  if (ctx.npyDtype !== undefined) throw optionError('openCheckpoint', `options.npyDtype (${ctx.npyDtype}) names the dtype of a .npy file's void elements; a sharded checkpoint's shards are .safetensors files, whose headers name every dtype`);
}

/**
 * Opens a checkpoint: reads its headers only (every tensor's name, dtype, shape,
 * bytes and shard, and the metadata), never a tensor's bytes. `source`: a `File` or
 * `Blob`, a URL (string or `URL`; read with HTTP Range requests), a
 * `FileSystemFileHandle`, bytes (`ArrayBuffer`, `Uint8Array`), a source object
 * `{ name, size, read(start, end) }`; for a sharded checkpoint, the files of a folder
 * or list (a `FileList` or array of `File`s holding the `*.index.json`), a
 * `FileSystemDirectoryHandle`, the index's URL (shards beside it), or
 * `{ index: { name, text }, shards }` with a source object for each shard. A folder
 * (its files, a `FileSystemDirectoryHandle`, or a URL ending in `/` or naming its
 * `config.json`) that holds a `config.json` or `hf_quant_config.json` is a model's
 * folder: its configuration is read (a block-scaled scheme, `ck.scheme`) and its other
 * files are copied by a conversion.
 * `options.requestInit`: what `fetch` gets for a URL (headers, credentials; its
 * `cache` `'no-store'` unless given).
 * `options.npyDtype`: the dtype (a name, as `'bfloat16'` or `'float4_e2m1fn'`) of a
 * `.npy` file's void elements (`|V1`, `<V2`: NumPy saves ml_dtypes' arrays so);
 * refused for any other file.
 */
export async function openCheckpoint(source, options = {}) {
  const ctx = { signal: undefined, npyDtype: undefined };
  let ck;
  try {
    if (options === null || typeof options !== 'object') throw optionError('openCheckpoint', `options must be an object such as { requestInit }, got: ${described(options)}`);
    for (const k of Object.keys(options)) if (k !== 'requestInit' && k !== 'npyDtype') throw optionError('openCheckpoint', `unknown option ${JSON.stringify(k)} (it takes requestInit and npyDtype)`);
    if (options.npyDtype !== undefined && typeof options.npyDtype !== 'string') throw optionError('openCheckpoint', `options.npyDtype must be a dtype's name such as 'bfloat16', got: ${described(options.npyDtype)}`);
    ctx.npyDtype = options.npyDtype;
    if (source?.index && source?.shards && !(source instanceof Blob)) ck = await fromParts(source, ctx);
    else if (Array.isArray(source?.ggufSplits)) ck = await fromSplits(source.ggufSplits);
    else if (isSource(source)) ck = await openCheckpointFile(source, ctx.npyDtype);
    else if (typeof Blob !== 'undefined' && source instanceof Blob) {
      if (INDEX.test(source.name ?? '')) throw new Error(`${source.name} is an index: give it with its shards (the folder's files, a FileSystemDirectoryHandle, or its URL)`);
      ck = await openCheckpointFile(blobSource(source, source.name, ctx), ctx.npyDtype);
    } else if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
      ck = await openCheckpointFile(bytesSource(source), ctx.npyDtype);
    } else if (typeof source === 'string' || source instanceof URL) {
      ck = await fromUrl(source, options.requestInit, ctx);
    } else if (source?.kind === 'file' && typeof source.getFile === 'function') {
      const f = await source.getFile();
      ck = await openCheckpointFile(blobSource(f, f.name, ctx), ctx.npyDtype);
    } else if (source?.kind === 'directory' && typeof source.entries === 'function') {
      ck = await fromDirectory(source, ctx);
    } else if (source && typeof source[Symbol.iterator] === 'function' && !(source instanceof Map)) {
      ck = await fromFiles(source, ctx);
    } else {
      throw optionError('openCheckpoint', `expected a File, a Blob, a URL, a FileSystemFileHandle or FileSystemDirectoryHandle, bytes, a list of Files or a source object { name, size, read }, got: ${described(source)}`);
    }
  } catch (e) {
    throw named('openCheckpoint', e);
  }
  ctx.origin = originOf(source, options);
  Object.defineProperty(ck, '__nxCtx', { value: ctx });
  return ck;
}

const OPTIONS = ['to', 'tensors', 'saturate', 'device', 'onProgress', 'signal', 'fileName', 'scheme', 'nibbles', 'keepQuantized', 'worker', 'workers'];

/** The most Workers one conversion takes. */
export const MAX_WORKERS = 8;

/** The sink for what the caller gave. */
function sinkOf(sink, ck, ctx) {
  if (isStream(sink)) {
    if (ck.sharded || ck.folder) throw new Error(`${ck.folder ? "a model's folder" : 'a sharded checkpoint'} converts into several files: give a FileSystemDirectoryHandle or a function from file name to WritableStream, not one stream`);
    return streamSink(sink, ctx);
  }
  if (sink?.kind === 'directory' && typeof sink.getFileHandle === 'function') return directorySink(sink, ctx, !!(ck.sharded || ck.folder));
  if (typeof sink === 'function') return streamsSink(sink, ctx);
  if (sink && ['open', 'write', 'close', 'commit', 'abort'].every((k) => typeof sink[k] === 'function')) return sink;
  throw optionError('convertCheckpoint', `the sink must be a WritableStream, a FileSystemDirectoryHandle, a function from file name to WritableStream, or a sink object { open, write, close, commit, abort }, got: ${described(sink)}`);
}

/** Whether this thread converts a share of a conversion (a Node worker thread of
 * js/node-worker.js says so: it has no `WorkerGlobalScope`). */
let threadShares = false;

/** Lets `convertCheckpoint` on this thread take `__nxShare` (js/node-worker.js). */
export function sharesInThisThread() {
  threadShares = true;
}

/**
 * Converts `checkpoint` (from openCheckpoint) into `sink`, as `nxrig convert` does,
 * byte for byte: `options.to` the dtype, `tensors` a glob of the tensors to cast
 * (every float when absent), `saturate` (a value past the largest finite of `to`,
 * and an infinity, become that largest finite of their sign, not an infinity or a
 * NaN), `device` where to cast (the host when absent),
 * `onProgress({ bytesDone, bytesTotal, tensor })` after each piece (what it throws
 * stops the conversion: the promise rejects with an Error whose cause it is),
 * `signal` an `AbortSignal` (the promise then rejects with its reason, an
 * `AbortError`, and every stream is aborted). A model's folder (opened with its
 * `config.json`) converts into a folder: its block-scaled weights dequantized (the
 * scheme its configuration names; `scheme` names one, or `'none'`; `nibbles`
 * `'high-first'` for a float4 layout with the even element in the high nibble;
 * `keepQuantized` a glob of weights left packed), `config.json` rewritten, its other
 * files copied. On a page it runs in a Worker where it can (`worker`), or shared
 * among `workers` Workers (1 when absent), the output written in order either way.
 * Memory stays bounded by a piece (16 MiB in, its cast out, a few in flight). Option errors are TypeErrors, every other refusal an Error, each
 * naming convertCheckpoint.
 */
export async function convertCheckpoint(checkpoint, sink, options) {
  const fn = 'convertCheckpoint';
  if (!(checkpoint instanceof Checkpoint)) throw optionError(fn, `the first argument must be a Checkpoint from openCheckpoint, got: ${described(checkpoint)}`);
  if (!checkpoint.__wbg_ptr) throw new Error(`${fn}: the checkpoint was disposed: open it again with openCheckpoint`);
  if (options === undefined) throw optionError(fn, "options are required: at least { to }, the dtype to convert into (convertCheckpoint(checkpoint, sink, { to: 'bfloat16' }))");
  if (options === null || typeof options !== 'object') throw optionError(fn, `options must be an object with at least { to }, got: ${described(options)}`);
  // `__nxShare`: a Worker's (or Node worker thread's) share of a conversion several
  // share (js/offload.js).
  const shared = threadShares || (typeof WorkerGlobalScope === 'function' && globalThis instanceof WorkerGlobalScope);
  for (const k of Object.keys(options)) if (!OPTIONS.includes(k) && !(shared && k === '__nxShare')) throw optionError(fn, `unknown option ${JSON.stringify(k)} (it takes ${OPTIONS.join(', ')})`);
  const { to, tensors, saturate, device, onProgress, signal, fileName, scheme, nibbles, keepQuantized, worker, workers, __nxShare: share } = options;
  if (typeof to !== 'string') throw optionError(fn, `options.to must be a dtype's name, got: ${described(to)}`);
  if (tensors !== undefined && typeof tensors !== 'string') throw optionError(fn, `options.tensors must be a glob string, got: ${described(tensors)}`);
  if (saturate !== undefined && typeof saturate !== 'boolean') throw optionError(fn, `options.saturate must be a boolean, got: ${described(saturate)}`);
  if (device !== undefined && !(device instanceof Device)) throw optionError(fn, `options.device must be a Device, got: ${described(device)}`);
  if (device !== undefined && !device.__wbg_ptr) throw new Error(`${fn}: options.device was disposed`);
  if (onProgress !== undefined && typeof onProgress !== 'function') throw optionError(fn, `options.onProgress must be a function, got: ${described(onProgress)}`);
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw optionError(fn, `options.signal must be an AbortSignal, got: ${described(signal)}`);
  if (fileName !== undefined && typeof fileName !== 'string') throw optionError(fn, `options.fileName must be a string, got: ${described(fileName)}`);
  if (scheme !== undefined && typeof scheme !== 'string') throw optionError(fn, `options.scheme must be a scheme's name such as 'fp8-block', or 'none', got: ${described(scheme)}`);
  if (nibbles !== undefined && nibbles !== 'low-first' && nibbles !== 'high-first') throw optionError(fn, `options.nibbles must be 'low-first' or 'high-first', got: ${described(nibbles)}`);
  if (keepQuantized !== undefined && typeof keepQuantized !== 'string') throw optionError(fn, `options.keepQuantized must be a glob string, got: ${described(keepQuantized)}`);
  if (worker !== undefined && typeof worker !== 'boolean') throw optionError(fn, `options.worker must be a boolean, got: ${described(worker)}`);
  if (workers !== undefined && !(Number.isInteger(workers) && workers >= 1 && workers <= MAX_WORKERS)) throw optionError(fn, `options.workers must be a whole number from 1 to ${MAX_WORKERS}, got: ${described(workers)}`);
  const notHere = worker === false ? 'worker: false' : whyNotInWorker(checkpoint, device);
  if (worker === true && notHere) throw optionError(fn, `options.worker is true, but the conversion cannot run in a Worker: ${notHere}`);
  if (workers > 1 && worker === false) throw optionError(fn, `options.workers is ${workers}, but worker: false converts on this thread: give one of them`);
  if (signal?.aborted) {
    // Aborted before it began: the caller's stream is aborted as a later abort would.
    if (isStream(sink) && !sink.locked) await sink.abort(signal.reason).catch(() => {});
    signal.throwIfAborted();
  }
  const ctx = checkpoint.__nxCtx ?? { signal: undefined };
  ctx.signal = signal;
  ctx.failed = undefined;
  try {
    const own = sinkOf(sink, checkpoint, ctx);
    if (!notHere) {
      const cloned = { to, tensors, saturate, fileName, scheme, nibbles, keepQuantized };
      return await convertInWorker(checkpoint, own, cloned, onProgress, signal, ctx, sink, { workers: workers ?? 1, host: device === undefined || !device.isGpu });
    }
    const s = pipelined(own, ctx);
    // What onProgress throws stops the conversion (the next read, or the commit, fails
    // with it, and every file is aborted); the promise rejects with it as its cause.
    const progress = onProgress && ((bytesDone, bytesTotal, tensor) => {
      if (ctx.failed) return;
      try {
        onProgress({ bytesDone, bytesTotal, tensor });
      } catch (e) {
        ctx.failed = e;
      }
    });
    const name = fileName ?? (checkpoint.sharded || checkpoint.folder ? 'the output folder' : 'output.safetensors');
    return await convertCheckpointInto(checkpoint, s, to, tensors, device ?? Device.host(), name, progress, saturate === true, scheme, nibbles, keepQuantized, share);
  } catch (e) {
    if (signal?.aborted) throw signal.reason ?? new DOMException('The conversion was aborted', 'AbortError');
    if (ctx.failed !== undefined) {
      const m = ctx.failed instanceof Error ? ctx.failed.message : String(ctx.failed);
      throw new Error(`${fn}: options.onProgress threw: ${m} (the conversion stopped and its output was aborted)`, { cause: ctx.failed });
    }
    throw named(fn, e);
  } finally {
    ctx.signal = undefined;
    ctx.failed = undefined;
  }
}


