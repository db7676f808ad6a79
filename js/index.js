// nxrig's npm entry for browsers, bundlers and workers (Node: ./node.js). It is
// wasm-bindgen's module (../pkg/nxrig.js) with the field's conventions on top:
//  - a clear error when nxrig is used before `await init()`;
//  - `dispose()` (and `free()`, which is it) idempotent, `isDisposed`, and "the array
//    was disposed" on later use, as TensorFlow.js and onnxruntime-web behave;
//  - a Rust panic (a WebAssembly trap, `RuntimeError: unreachable`) turned into an
//    `Error` carrying the panic's message (every GPU device is then marked lost);
//  - `console.log(array)` in Node shows `toString()`.
// The types are in index.d.ts (written by hand: wasm-bindgen's own cannot say which
// TypedArray each dtype reads as).
import wbgInit, {
  initSync as wbgInitSync,
  Checkpoint,
  Device,
  NxArray,
  TensorFile,
  add as wbgAdd,
  // BEGIN the operations' imports: written by tests/operations_table.rs from src/dtype/operations/rows.rs.
  sub as wbgSub,
  mul as wbgMul,
  div as wbgDiv,
  maximum as wbgMaximum,
  minimum as wbgMinimum,
  neg as wbgNeg,
  abs as wbgAbs,
  eq as wbgEq,
  ne as wbgNe,
  lt as wbgLt,
  le as wbgLe,
  gt as wbgGt,
  ge as wbgGe,
  // END the operations' imports
  where as wbgWhere,
  operationInto as wbgOperationInto,
  Operands,
  dtypes as wbgDtypes,
  lastPanic as wbgLastPanic,
  loadSafetensors as wbgLoadSafetensors,
  version as wbgVersion,
} from '../pkg/nxrig.js';
import { convertCheckpoint as convertRaw, openCheckpoint as openRaw, typeError } from './checkpoint.js';
import { adapterOf, adoptDevice, fromGpuBuffer as fromGpuBufferRaw, gpuOptions } from './interop.js';
import { declare } from './elementwise.js';
import { described } from './described.js';
import { declareRaw } from './raw.js';
import { wasmGiven, wasmGivenSync } from './offload.js';

let ready = false;

/** The message of the last Rust panic, if any (after one, reload the page). */
export function lastPanic() {
  if (!ready) return undefined;
  try {
    return wbgLastPanic();
  } catch {
    return 'nxrig: internal error (a panic), and nxrig cannot say more';
  }
}

// A WebAssembly trap as an Error with the panic's message; an error of nxrig's
// (`nxrig: ...`) as one naming the function called (`NxArray.cast: ...`); others as
// they are.
function translated(e, name) {
  if (typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError) {
    return new Error(lastPanic() ?? `nxrig: internal error: ${e.message}`, { cause: e });
  }
  return called(e, name);
}

/** `e` naming the function `name` where it says `nxrig: `, as nxrig's errors do; an
 * argument that wasm-bindgen found freed ("null pointer passed to rust") said in
 * nxrig's words. */
function called(e, name) {
  const t = typeError(e, name);
  if (t) return t;
  if (name && e instanceof Error && e.message.startsWith('nxrig: ') && !e.message.startsWith('nxrig: internal error')) {
    e.message = `${name}: ${e.message.slice('nxrig: '.length)}`;
  } else if (name && e instanceof Error && /null pointer passed to rust/.test(e.message)) {
    e.message = `${name}: an argument was disposed (a Device, NxArray, TensorFile or Checkpoint used after its dispose())`;
  }
  return e;
}

// `f` guarded: before init a clear error, traps translated (promises too); for a
// method (`of` names its class), a handle freed or never made (`new Device()`) says so
// instead of wasm-bindgen's "null pointer passed to rust".
function guarded(f, name, of) {
  return function (...args) {
    if (!ready) {
      throw new Error(`${name}: call \`await init()\` first (nxrig's WebAssembly is not loaded yet)`);
    }
    if (of && !this?.__wbg_ptr) {
      throw new Error(`${name}: this ${of} was disposed (or made with \`new\`, which makes none: use ${MADE_BY[of]})`);
    }
    let r;
    try {
      r = f.apply(this, args);
    } catch (e) {
      throw translated(e, name);
    }
    return r instanceof Promise ? r.catch((e) => { throw translated(e, name); }) : r;
  };
}

// The remedy for a handle of class `of` that was disposed, or never made.
const MADE_BY = {
  Device: 'Device.host() or Device.gpu()',
  NxArray: 'NxArray.fromTypedArray or NxArray.zeros',
  TensorFile: 'loadSafetensors or new TensorFile()',
  Checkpoint: 'openCheckpoint',
};

// Every method and getter of `cls` (and its statics) guarded, labelled `className.key`.
// The class's name is given, not read from `cls.name`: a minifier renames classes.
function guardClass(cls, className) {
  for (const target of [cls.prototype, cls]) {
    for (const key of Object.getOwnPropertyNames(target)) {
      if (key.startsWith('__') || key === 'constructor') continue;
      // A class's own `name`, `length` and `prototype` are the function's, not nxrig's.
      if (target === cls && ['prototype', 'length', 'name'].includes(key)) continue;
      const d = Object.getOwnPropertyDescriptor(target, key);
      const label = `${className}.${key}`;
      // free() of a handle already freed is a no-op (freeOnce), not an error.
      const of = target === cls || key === 'free' || key === 'dispose' ? undefined : className;
      if (typeof d.value === 'function') {
        Object.defineProperty(target, key, { ...d, value: guarded(d.value, label, of) });
      } else if (d.get) {
        Object.defineProperty(target, key, { ...d, get: guarded(d.get, label, of) });
      }
    }
  }
}

// free() and [Symbol.dispose]() of a class whose handle wasm-bindgen frees: once.
function freeOnce(cls) {
  const free = cls.prototype.free;
  cls.prototype.free = function () {
    if (this.__wbg_ptr) free.call(this);
  };
  cls.prototype.dispose = cls.prototype.free;
}

// Device.gpu's options checked here; a GPUDevice of another library taken as nxrig's
// (js/interop.js). The last WebGPU device opened is NxArray.fromGpuBuffer's default.
let lastGpu;
const rawGpu = Device.gpu;
Device.gpu = async function gpu(options) {
  const o = gpuOptions(options);
  const open = () => rawGpu.call(Device, o.emulate ?? false, o.powerPreference, o.device !== undefined);
  const d = o.device ? await adoptDevice(o.device, open) : await open();
  lastGpu = new WeakRef(d);
  return d;
};
Object.defineProperty(Device.prototype, 'gpuAdapter', {
  configurable: true,
  get() {
    return adapterOf(this.gpuDevice);
  },
});
NxArray.fromGpuBuffer = function fromGpuBuffer(buffer, dtype, shape, options) {
  const device = options?.device ?? lastGpu?.deref();
  if (options?.device !== undefined && !(options.device instanceof Device)) {
    return Promise.reject(new TypeError(`NxArray.fromGpuBuffer: options.device must be a Device, got: ${described(options.device)}`));
  }
  return fromGpuBufferRaw(NxArray, buffer, dtype, shape, options, device);
};

freeOnce(Device);
freeOnce(TensorFile);
freeOnce(Checkpoint);
guardClass(Device, 'Device');
guardClass(NxArray, 'NxArray');
guardClass(TensorFile, 'TensorFile');
guardClass(Checkpoint, 'Checkpoint');
// The device is the host when absent (a handle passed by value to wasm-bindgen would
// be taken from the caller, so Rust takes it by reference, and the default is here).
for (const key of ['load', 'loadRange']) {
  const raw = Checkpoint.prototype[key];
  Checkpoint.prototype[key] = function (...args) {
    const at = key === 'load' ? 1 : 3;
    if (args[at] === undefined) args[at] = Device.host();
    else if (!(args[at] instanceof Device)) {
      return Promise.reject(new TypeError(`Checkpoint.${key}: the device must be a Device, got: ${described(args[at])}`));
    }
    return raw.apply(this, args);
  };
}
Object.defineProperty(Checkpoint.prototype, 'metadata', {
  get() {
    return JSON.parse(this.metadataJson);
  },
});
// An array's free() is its dispose(): the elements go at once; the small handle goes
// with the JavaScript object (wasm-bindgen's FinalizationRegistry), so that a later use
// can say the array was disposed.
NxArray.prototype.free = NxArray.prototype.dispose;
for (const cls of [Device, NxArray, TensorFile, Checkpoint]) {
  if (typeof Symbol.dispose === 'symbol') cls.prototype[Symbol.dispose] = cls.prototype.free;
}
const inspect = Symbol.for('nodejs.util.inspect.custom');
NxArray.prototype[inspect] = function () {
  return this.toString();
};
Device.prototype.toString = function () {
  return this.__wbg_ptr ? `Device(${this.name})` : 'Device(disposed)';
};
Device.prototype[inspect] = Device.prototype.toString;
TensorFile.prototype.toString = function () {
  return this.__wbg_ptr ? `TensorFile(${this.length} tensors)` : 'TensorFile(disposed)';
};
TensorFile.prototype[inspect] = TensorFile.prototype.toString;
Checkpoint.prototype.toString = function () {
  return this.__wbg_ptr ? `Checkpoint(${this.files.length} file${this.files.length === 1 ? '' : 's'}, ${this.tensors.length} tensors)` : 'Checkpoint(disposed)';
};
Checkpoint.prototype[inspect] = Checkpoint.prototype.toString;

// Elementwise operations (src/web/ops.rs): errors name the function called. After
// the arrays, `{ out }` stores the result into an array given (in place too) and
// returns it.
function operation(f, name, arity) {
  const arrays = (args) => {
    if (args.length !== arity) {
      throw new TypeError(`${name}: expected ${arity} array${arity > 1 ? 's' : ''}, then optionally { out }; got ${args.length} argument${args.length === 1 ? '' : 's'}`);
    }
    args.forEach((a, k) => {
      if (!(a instanceof NxArray)) throw new TypeError(`${name}: argument ${k + 1} must be an NxArray, got: ${described(a)}`);
      if (!a.__wbg_ptr) throw new Error(`${name}: argument ${k + 1} was disposed (or made with \`new\`, which makes none)`);
    });
  };
  return guarded((...args) => {
    if (args.length !== arity + 1) {
      arrays(args);
      return f(...args);
    }
    const options = args.pop();
    if (options === null || typeof options !== 'object' || options instanceof NxArray || Array.isArray(options)) {
      throw new TypeError(`${name}: expected ${arity} arrays, then an options object { out }`);
    }
    for (const k of Object.keys(options)) {
      if (k !== 'out') throw new TypeError(`${name}: unknown option '${k}' (expected out)`);
    }
    const { out } = options;
    arrays(args);
    if (out === undefined) return f(...args);
    if (!(out instanceof NxArray)) throw new TypeError(`${name}: options.out must be an NxArray, got: ${described(out)}`);
    const operands = new Operands();
    for (const a of args) operands.push(a);
    wbgOperationInto(name, out, operands);
    return out;
  }, name);
}
export const add = operation(wbgAdd, 'add', 2);
// BEGIN the operations' exports: written by tests/operations_table.rs from src/dtype/operations/rows.rs.
export const sub = operation(wbgSub, 'sub', 2);
export const mul = operation(wbgMul, 'mul', 2);
export const div = operation(wbgDiv, 'div', 2);
export const maximum = operation(wbgMaximum, 'maximum', 2);
export const minimum = operation(wbgMinimum, 'minimum', 2);
export const neg = operation(wbgNeg, 'neg', 1);
export const abs = operation(wbgAbs, 'abs', 1);
export const eq = operation(wbgEq, 'eq', 2);
export const ne = operation(wbgNe, 'ne', 2);
export const lt = operation(wbgLt, 'lt', 2);
export const le = operation(wbgLe, 'le', 2);
export const gt = operation(wbgGt, 'gt', 2);
export const ge = operation(wbgGe, 'ge', 2);
// END the operations' exports
export const where = operation(wbgWhere, 'where', 3);
/** A kernel of your own (see js/elementwise.js): its calls' errors name the kernel. */
export const elementwise = guarded((options) => {
  const run = declare(options);
  return guarded(run, run.name);
}, 'elementwise');
/** A raw kernel of your own (see js/raw.js): a whole WGSL module over nxrig's loads and stores. */
export const rawKernel = guarded((options) => {
  const run = declareRaw(options);
  return guarded(run, run.name);
}, 'rawKernel');
export const dtypes = guarded(wbgDtypes, 'dtypes');
export const loadSafetensors = guarded(wbgLoadSafetensors, 'loadSafetensors');
export const version = guarded(wbgVersion, 'version');
export const openCheckpoint = guarded(openRaw, 'openCheckpoint');
export const convertCheckpoint = guarded(convertRaw, 'convertCheckpoint');
export { Checkpoint, Device, NxArray, TensorFile };

/** Whether `array` is an NxArray of `dtype` (TypeScript: a type guard that narrows it). */
export function isDType(array, dtype) {
  return array instanceof NxArray && !!array.__wbg_ptr && array.dtype === dtype;
}

/**
 * Loads nxrig's WebAssembly. In a browser or a bundler (Vite, webpack) with no
 * argument: the `.wasm` next to the module. Else `{ module_or_path }`: a URL, a
 * `Response`, the bytes, or a compiled `WebAssembly.Module`. Resolves once nxrig is
 * ready, to its instance's exports (`memory` among them).
 */
export async function init(input) {
  const out = await wbgInit(await wasmGiven(input));
  ready = true;
  return out;
}

/** `init` from the bytes or a compiled module, at once: `initSync({ module })`. */
export function initSync(input) {
  const out = wbgInitSync(wasmGivenSync(input));
  ready = true;
  return out;
}

export default init;
