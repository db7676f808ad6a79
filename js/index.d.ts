// nxrig's types, written by hand (wasm-bindgen's own, in pkg/, cannot say which
// TypedArray each dtype reads as). Checked with `tsc --strict` against the README's
// snippets by the test command (www/e2e.mjs).

declare global {
  // As @types/node declares them: present from lib "esnext.disposable" on, and
  // harmless before, so `using a = ...` works where the user's lib has it and the
  // types check where it has not.
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/**
 * A float16 read: a `Float16Array` of values where the engine has one (Chromium 135,
 * Firefox 129, Safari 18.2, Node 24 on), else a `Uint16Array` of IEEE half bits.
 */
export type Float16Data = Uint16Array | Float16ArrayLike;

/** The `Float16Array` of engines that have one (its type is in TypeScript's newest lib). */
export interface Float16ArrayLike extends ArrayLike<number> {
  readonly BYTES_PER_ELEMENT: number;
  readonly buffer: ArrayBufferLike;
  readonly byteOffset: number;
  readonly byteLength: number;
  [index: number]: number;
}

/** Raw little-endian bytes of any dtype (int4 and uint4 two a byte). */
export type RawBytes = Uint8Array | Uint8ClampedArray | DataView | ArrayBuffer;

// BEGIN the dtype table: written by tests/dtype_table.rs from src/dtype/table.rs.

/** The 35 dtypes, by name. */
export type DType =
  | 'float16' | 'bfloat16' | 'float8_e4m3fn' | 'float8_e5m2' | 'float32' | 'float64'
  | 'int4' | 'uint4' | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32'
  | 'int64' | 'uint64' | 'complex64' | 'complex128' | 'bool' | 'float8_e4m3'
  | 'float8_e3m4' | 'float8_e4m3fnuz' | 'float8_e5m2fnuz' | 'float8_e4m3b11fnuz'
  | 'float8_e8m0fnu' | 'float8_e5m3fnu' | 'float4_e2m1fn' | 'float6_e2m3fn'
  | 'float6_e3m2fn' | 'int2' | 'uint2' | 'int1' | 'uint1' | 'complex32' | 'bcomplex32';

/** The TypedArray each dtype reads as (`toTypedArray`) and is made from (`fromTypedArray`). */
export interface DataTypeMap {
  float16: Float16Data;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  bfloat16: Uint16Array;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  float8_e4m3fn: Uint8Array;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  float8_e5m2: Uint8Array;
  float32: Float32Array;
  float64: Float64Array;
  /** One element a byte, -8 to 7. */
  int4: Int8Array;
  /**
   * One element a byte, 0 to 15 (as `toTypedArray` gives it). `fromTypedArray` takes
   * a `Uint8Array` as raw bytes, two elements a byte: make uint4 from one-a-byte
   * values with `fromTypedArray(values, 'uint8').cast('uint4')`.
   */
  uint4: Uint8Array;
  int8: Int8Array;
  uint8: Uint8Array;
  int16: Int16Array;
  uint16: Uint16Array;
  int32: Int32Array;
  uint32: Uint32Array;
  int64: BigInt64Array;
  uint64: BigUint64Array;
  /** Real and imaginary parts interleaved. */
  complex64: Float32Array;
  /** Real and imaginary parts interleaved. */
  complex128: Float64Array;
  /** One element a byte, 0 or 1. */
  bool: Uint8Array;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  float8_e4m3: Uint8Array;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  float8_e3m4: Uint8Array;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  float8_e4m3fnuz: Uint8Array;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  float8_e5m2fnuz: Uint8Array;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  float8_e4m3b11fnuz: Uint8Array;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  float8_e8m0fnu: Uint8Array;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  float8_e5m3fnu: Uint8Array;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  float4_e2m1fn: Uint8Array;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  float6_e2m3fn: Uint8Array;
  /** Raw bits: `toTypedArray({ as: 'float32' })` gives the exact values. */
  float6_e3m2fn: Uint8Array;
  int2: Uint8Array;
  uint2: Uint8Array;
  int1: Uint8Array;
  uint1: Uint8Array;
  /** Real and imaginary parts interleaved. */
  complex32: Float16Data;
  /** Real and imaginary parts interleaved. */
  bcomplex32: Uint16Array;
}

/** What one element of each dtype is in `toArray()`. */
export interface ValueMap {
  float16: number;
  bfloat16: number;
  float8_e4m3fn: number;
  float8_e5m2: number;
  float32: number;
  float64: number;
  int4: number;
  uint4: number;
  int8: number;
  uint8: number;
  int16: number;
  uint16: number;
  int32: number;
  uint32: number;
  int64: bigint;
  uint64: bigint;
  complex64: [re: number, im: number];
  complex128: [re: number, im: number];
  bool: boolean;
  float8_e4m3: number;
  float8_e3m4: number;
  float8_e4m3fnuz: number;
  float8_e5m2fnuz: number;
  float8_e4m3b11fnuz: number;
  float8_e8m0fnu: number;
  float8_e5m3fnu: number;
  float4_e2m1fn: number;
  float6_e2m3fn: number;
  float6_e3m2fn: number;
  int2: number;
  uint2: number;
  int1: number;
  uint1: number;
  complex32: [re: number, im: number];
  bcomplex32: [re: number, im: number];
}

// END the dtype table

/** Nested arrays of `T`, one level an axis (a rank-0 array is its one `T`). */
export type Nested<T> = T | Nested<T>[];

/** `[start, stop, step]` of one axis, NumPy's rules; `null` or absent for the defaults. */
/** A block-scaled checkpoint's scheme (the command line's `--scheme` names): DeepSeek's FP8 blocks (`'fp8-block'`), per-tensor or per-channel float8 (`'fp8'`), gpt-oss' MXFP4 experts (`'mxfp4'`), ModelOpt's NVFP4 (`'nvfp4'`), compressed-tensors' (`'nvfp4-pack-quantized'`, `'mxfp4-pack-quantized'`, `'pack-quantized'`), GPTQ with zero points stored minus one (`'gptq'`) or as they are (`'gptq-v2'`), AWQ (`'awq'`). */
export type SchemeName = 'fp8-block' | 'fp8' | 'mxfp4' | 'nvfp4' | 'nvfp4-pack-quantized' | 'mxfp4-pack-quantized' | 'pack-quantized' | 'gptq' | 'gptq-v2' | 'awq';

export type SliceSpec = readonly [start?: number | null, stop?: number | null, step?: number | null];

/** What `Device#memory()` tells. */
export interface MemoryUse {
  /** Bytes of the device's allocations alive (not `cachedBytes`). */
  bytes: number;
  /** Allocations alive. */
  allocations: number;
  /** Arrays made from JavaScript and not disposed. */
  arrays: number;
}

/**
 * WebGPU's `GPUDevice` where the program's types have it, else `object`. TypeScript 6
 * and later have WebGPU's types in the DOM's lib; on TypeScript 5, add them with
 * `npm install -D @webgpu/types` and `"types": ["@webgpu/types"]` in tsconfig.json.
 */
export type GPUDeviceHandle = typeof globalThis extends { GPUDevice: { prototype: infer T } } ? T : object;
/** As `GPUDeviceHandle`, for `GPUBuffer` (without WebGPU's types, what nxrig's buffers and onnxruntime-web's have in common). */
export type GPUBufferHandle = typeof globalThis extends { GPUBuffer: { prototype: infer T } } ? T
  : { readonly size: number; readonly usage: number; readonly mapState: 'unmapped' | 'pending' | 'mapped' };
/** As `GPUDeviceHandle`, for `GPUAdapter`. */
export type GPUAdapterHandle = typeof globalThis extends { GPUAdapter: { prototype: infer T } } ? T : object;
/** A `GPUDevice` given to nxrig: without WebGPU's types, anything (as onnxruntime-web's `env.webgpu.device` is then `unknown`), checked when called. */
export type GPUDeviceInput = typeof globalThis extends { GPUDevice: { prototype: infer T } } ? T : unknown;
/** A `GPUBuffer` given to nxrig: without WebGPU's types, anything with a `size`, checked when called. */
export type GPUBufferInput = typeof globalThis extends { GPUBuffer: { prototype: infer T } } ? T : { readonly size: number };

/** `Device.gpu`'s options. */
export interface GpuOptions {
  /** Run on this `GPUDevice` (another library's: `await ort.env.webgpu.device`, TF.js's `tf.backend().device`) instead of opening one; nxrig reads its limits and features from it, and `destroy()` leaves it to its owner. */
  device?: GPUDeviceInput;
  /** Every type through 32-bit integer arithmetic even where the adapter has `shader-f16`. */
  emulate?: boolean;
  /** The adapter to ask for, where the platform has several. Not with `device`. */
  powerPreference?: 'high-performance' | 'low-power';
}

/** A device arrays live on: `Device.host()` (wasm memory) or `await Device.gpu()` (WebGPU). */
export class Device {
  private constructor();
  /** The host: wasm linear memory; work runs at once, on the calling thread. */
  static host(): Device;
  /**
   * A new WebGPU device (`navigator.gpu`'s first adapter), or, given `{ device }`, nxrig
   * on another library's `GPUDevice`. Options are checked: an unknown one or a wrong
   * type rejects naming it (a bare boolean is `{ emulate }`). Rejects at once where
   * there is no WebGPU ("this environment has no WebGPU (navigator.gpu)").
   */
  static gpu(options?: GpuOptions | boolean): Promise<Device>;
  /** The device's `GPUDevice`, for another library to share (`new tf.WebGPUBackend(gpu.gpuDevice)`; for onnxruntime-web see `gpuAdapter`). Throws on the host. */
  readonly gpuDevice: GPUDeviceHandle;
  /** A stand-in `GPUAdapter` whose `requestDevice()` gives `gpuDevice`: for a library that makes its device from an adapter (`ort.env.webgpu.adapter = gpu.gpuAdapter` in onnxruntime-web's default entry). Throws on the host. */
  readonly gpuAdapter: GPUAdapterHandle;
  /** `"host"`, or the adapter's name and backend. */
  readonly name: string;
  readonly isGpu: boolean;
  /** The native WGSL types the kernels use (`f32,f16,...`); empty on the host. */
  readonly native: string;
  /** Bytes of freed memory the device keeps for reuse: GPU buffers, or on the host freed allocations of 1 MiB and more (up to 256 MiB). */
  readonly cachedBytes: number;
  /** True once the device is lost: every operation on its memory then fails. */
  readonly lost: boolean;
  /** Bytes and allocations of the device's memory alive, and arrays not disposed. */
  memory(): MemoryUse;
  /** Gives the freed memory kept for reuse back: to the browser on a GPU, to the wasm allocator on the host. */
  emptyCache(): void;
  /** Destroys a GPU device, as a driver reset would (the host: marks it lost). */
  destroy(): void;
  /** Gives the handle up (the device lives on while its arrays do). Idempotent. */
  free(): void;
  /** `free()`. */
  dispose(): void;
  [Symbol.dispose](): void;
  /** `Device(name)`. */
  toString(): string;
}

/** An n-dimensional array of one of nxrig's dtypes on a device. */
export class NxArray<D extends DType = DType> {
  private constructor();
  /**
   * An array over the elements of `data`: a TypedArray of the dtype's kind (see
   * `DataTypeMap`; a `Float64Array` is refused as float32), or raw little-endian
   * bytes of any dtype as a `Uint8Array`, `DataView` or `ArrayBuffer` (int4 and uint4
   * two a byte, low nibble first). `shape` defaults to one axis of every element;
   * its entries must be non-negative integers.
   */
  static fromTypedArray<T extends DType>(
    data: DataTypeMap[T] | RawBytes,
    dtype: T,
    shape?: readonly number[],
  ): NxArray<T>;
  /** A fresh C-contiguous array of zeros on `device`. */
  static zeros<T extends DType>(device: Device, dtype: T, shape: readonly number[]): NxArray<T>;
  /**
   * A new array on a WebGPU device holding the bytes of another library's `GPUBuffer`
   * from `byteOffset` (a multiple of 4): one copy on the GPU, never through the host.
   * `device` is the nxrig `Device` on the buffer's `GPUDevice` (by default the last one
   * `Device.gpu` opened). The buffer stays the caller's. Rejects for a buffer without
   * `COPY_SRC` usage, too small, destroyed or of another `GPUDevice`.
   */
  static fromGpuBuffer<T extends DType>(
    buffer: GPUBufferInput,
    dtype: T,
    shape: readonly number[],
    options?: { byteOffset?: number; device?: Device },
  ): Promise<NxArray<T>>;
  /**
   * The `GPUBuffer` holding the elements (a WebGPU array whose elements are one
   * contiguous range of one buffer; else it throws: `copy()` first), from
   * `gpuByteOffset`, `byteLength` bytes: for `ort.Tensor.fromGpuBuffer` or `tf.tensor({
   * buffer })`. No copy: the memory is exported, never donated or reused by nxrig
   * again; nxrig never destroys it (dispose the array, and the buffer goes once its
   * other holders let go).
   */
  readonly gpuBuffer: GPUBufferHandle;
  /** The byte of `gpuBuffer` where the elements start. */
  readonly gpuByteOffset: number;

  readonly dtype: D;
  /** An extent an axis. */
  readonly shape: number[];
  /** In elements (negative for flipped axes, 0 for broadcast ones). */
  readonly strides: number[];
  /** The first element's position in the buffer, in elements. */
  readonly offset: number;
  /** The number of elements. */
  readonly length: number;
  /** Bytes the elements take in C-contiguous form. */
  readonly byteLength: number;
  readonly isFloat: boolean;
  readonly device: Device;
  /** True once `dispose()` (or `free()`) was called. */
  readonly isDisposed: boolean;

  /** A view with `shape` where one exists, else a copy. */
  reshape(shape: readonly number[]): NxArray<D>;
  /** The axes in the order `axes` gives (a view). */
  permute(axes: readonly number[]): NxArray<D>;
  /** Broadcast to `shape` (a view: unit axes at stride 0). */
  expand(shape: readonly number[]): NxArray<D>;
  /** `axes` reversed (a view). */
  flip(axes: readonly number[]): NxArray<D>;
  /** NumPy's slicing, one spec an axis from the first (a view). */
  slice(slices: readonly SliceSpec[]): NxArray<D>;
  /** The same bytes read as `dtype` (a view: narrower adds a trailing axis). */
  bitcast<T extends DType>(dtype: T): NxArray<T>;
  /**
   * A fresh array of `dtype` on the same device, each element rounded once. A value
   * past a float dtype's largest finite becomes its infinity (else its NaN), as
   * ml_dtypes casts; `{ saturate: true }` makes it (and an infinity) the largest
   * finite of its sign.
   */
  cast<T extends DType>(dtype: T, options?: CastOptions): NxArray<T>;
  /** A fresh C-contiguous copy, bit for bit. */
  copy(): NxArray<D>;
  /** The array on `device`, bit for bit. */
  toDevice(device: Device): Promise<NxArray<D>>;
  /**
   * The elements in C order in a new TypedArray (see `DataTypeMap`); with `{ as }`,
   * cast into that dtype first (`{ as: 'float32' }` gives bfloat16 and the float8s
   * as exact values).
   */
  toTypedArray(): Promise<DataTypeMap[D]>;
  toTypedArray<T extends DType>(options: { as: T }): Promise<DataTypeMap[T]>;
  /**
   * Nested arrays of the shape (see `ValueMap`), as TensorFlow.js's `array()`. Name the
   * nesting where you know the rank: `await m.toArray<number[][]>()`.
   */
  toArray<R = Nested<ValueMap[D]>>(): Promise<R>;
  /**
   * A `Uint8Array` over the array's bytes in wasm memory (no copy): C-contiguous host
   * arrays at offset 0 only. Detached when wasm memory grows (any allocation may do
   * it): take a new view then.
   */
  view(): Uint8Array;
  /** `NxArray(float32 [2, 3] on host: 1, 2, 3, 4, 5, 6)`. */
  toString(): string;
  /** Gives the memory back once no view uses it. Idempotent; later use throws "the array was disposed". */
  dispose(): void;
  /** `dispose()`. */
  free(): void;
  [Symbol.dispose](): void;
}

/**
 * An array of a dtype known only when the program runs (a checkpoint's tensor): the
 * union of `NxArray<D>` over the dtypes, so that a check of its dtype narrows it
 * (`if (t.dtype === 'bfloat16')`, or `isDType(t, 'bfloat16')`, makes `t` an
 * `NxArray<'bfloat16'>`).
 */
export type AnyNxArray = { [D in DType]: NxArray<D> }[DType];

/**
 * Whether `array` is of `dtype`: a type guard, so that TypeScript then takes it as an
 * `NxArray` of that dtype. False for anything that is not an `NxArray`.
 */
export function isDType<D extends DType>(array: unknown, dtype: D): array is NxArray<D>;

/** The tensors of a `.safetensors` file. */
export class TensorFile {
  /** An empty file, for tensors of your own (`set`), written with `toBytes()`. */
  constructor();
  readonly names: string[];
  readonly length: number;
  /** The `__metadata__` as JSON text (`"{}"` when none). */
  readonly metadata: string;
  /** The tensor named `name` (a view of the file's bytes). */
  get(name: string): AnyNxArray;
  /** Puts `array` (on the host) under `name`: in place of that tensor, or after the others. */
  set(name: string, array: NxArray): void;
  /** The file's bytes, as `nxrig convert` writes them. */
  toBytes(): Uint8Array;
  /** Idempotent. */
  free(): void;
  /** `free()`. */
  dispose(): void;
  [Symbol.dispose](): void;
  /** `TensorFile(N tensors)`. */
  toString(): string;
}

/** Reads `.safetensors` bytes (copied once into wasm memory). */
export function loadSafetensors(bytes: ArrayBufferView | ArrayBuffer): TensorFile;
/** A tensor of a checkpoint, from its header. */
export interface TensorInfo {
  readonly name: string;
  readonly dtype: DType;
  /** Whether its dtype is a float (not complex): the tensors a conversion casts when its option `tensors` is absent. */
  readonly isFloat: boolean;
  readonly shape: number[];
  /** Its bytes in the file. */
  readonly byteLength: number;
  /** The file that holds it: a shard's name, or the one file's. */
  readonly shard: string;
  /** A GGUF file's block-quantized tensor: its ggml type (`"Q4_K"`, `"Q8_0"`, ...); its `dtype` is then float32, what it dequantizes to. */
  readonly ggmlType?: string;
}

/**
 * Where a checkpoint's bytes come from, a range at a time (your own: a custom
 * transport, a cache). `read` resolves to exactly `end - start` bytes.
 */
export interface CheckpointSource {
  readonly name: string;
  readonly size: number;
  read(start: number, end: number): Promise<Uint8Array>;
}

/** The DOM's `FileSystemFileHandle`, `FileSystemDirectoryHandle` and `FileList` where
 * its types are loaded (lib "DOM"); without them (a Node project on `@types/node`),
 * `never`. The types here need the DOM's lib or `@types/node` (18 or later): both
 * have `Blob`, `File`, `URL`, `AbortSignal` and `WritableStream`. */
type DomFileHandle = typeof globalThis extends { FileSystemFileHandle: { prototype: infer T } } ? T : never;
type DomDirectoryHandle = typeof globalThis extends { FileSystemDirectoryHandle: { prototype: infer T } } ? T : never;
type DomFileList = typeof globalThis extends { FileList: { prototype: infer T } } ? T : never;

/** What `openCheckpoint` opens. */
export type CheckpointInput =
  | Blob
  | File
  | string
  | URL
  | ArrayBuffer
  | ArrayBufferView
  | DomFileHandle
  | DomDirectoryHandle
  | Iterable<File>
  | DomFileList
  | CheckpointSource
  | {
      index: { name?: string; text: string };
      shards: Record<string, CheckpointSource> | Map<string, CheckpointSource> | ((name: string) => CheckpointSource | undefined);
    }
  /** A GGUF file split in several (`PREFIX-00001-of-00003.gguf`, ...): the splits in order. */
  | { ggufSplits: CheckpointSource[] };

/** A checkpoint opened from its headers (no tensor's bytes read): one file, or a sharded checkpoint. */
export class Checkpoint {
  private constructor();
  /** Every tensor: the shards in order of name, each shard's tensors in the order of their bytes in the file. */
  readonly tensors: TensorInfo[];
  /** A file's `__metadata__`, or a sharded checkpoint's index `metadata`. */
  readonly metadata: Record<string, unknown>;
  /** The files: one, or the shards in order of name. */
  readonly files: string[];
  /** Whether it is a sharded checkpoint (an index and its shards). */
  readonly sharded: boolean;
  /** Whether it is a model's folder (opened with its `config.json` or `hf_quant_config.json`): it converts into a folder, its other files copied. */
  readonly folder: boolean;
  /** The block-scaled scheme its folder's configuration names, or `null` (not a model's folder, or one whose configuration names no scheme nxrig knows). */
  readonly scheme: SchemeName | null;
  /** The bytes of every tensor. */
  readonly byteLength: number;
  /** One tensor on `device` (the host when absent), reading only its bytes, a piece at a time. Narrow its dtype with `t.dtype === '...'` or `isDType`. */
  load(name: string, device?: Device): Promise<AnyNxArray>;
  /** Elements `start..start + count` (C order) of a tensor, one axis, reading only their bytes. */
  loadRange(name: string, start: number, count: number, device?: Device): Promise<AnyNxArray>;
  /** Gives the handle up (idempotent). */
  free(): void;
  dispose(): void;
  [Symbol.dispose](): void;
  /** `Checkpoint(N files, M tensors)`. */
  toString(): string;
}

/** Options of `openCheckpoint`. */
export interface OpenCheckpointOptions {
  /**
   * What `fetch` gets for a URL source (headers, credentials). Its `cache` is
   * `'no-store'` unless given: a browser answers a Range request from a whole answer it
   * cached, whose ranges are of its compressed bytes where the server compressed it.
   */
  requestInit?: RequestInit;
  /**
   * The dtype of a `.npy` file's void elements (`|V1`, `<V2`: NumPy saves ml_dtypes'
   * arrays, bfloat16, the float8s, int4, so), as `'bfloat16'` or `'float4_e2m1fn'`;
   * refused for a `.safetensors` file, a sharded checkpoint, or a `.npy` file of a
   * NumPy dtype.
   */
  npyDtype?: DType;
}

/**
 * A Node `FileHandle` (`await open(path)` of `node:fs/promises`), as `openCheckpoint`
 * reads one in Node (typed by what nxrig calls, so the types check without Node's).
 */
export interface NodeFileHandle {
  readonly fd: number;
  stat(): Promise<{ size: number }>;
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/**
 * Opens a checkpoint of any size: reads its headers only (`.safetensors`, `.npy`,
 * GGUF; a split GGUF file's splits given as a list of Files, or in Node the path of
 * any of them, open as one checkpoint that converts into a folder of shards and an
 * index). In Node also a path (a file, an index, or a folder) or a `FileHandle` (from
 * `nxrig`'s Node entry).
 * Rejects with a TypeError naming openCheckpoint for anything else.
 */
export function openCheckpoint(source: CheckpointInput | NodeFileHandle, options?: OpenCheckpointOptions): Promise<Checkpoint>;

/** Where a conversion is, after each piece. */
export interface ConvertProgress {
  readonly bytesDone: number;
  readonly bytesTotal: number;
  readonly tensor: string;
}

/** Options of `NxArray.cast`. */
export interface CastOptions {
  /** A value past the target's largest finite, and an infinity, become that largest finite of their sign (a NaN stays a NaN): OCP's "satfinite". */
  saturate?: boolean;
}

/** Options of `convertCheckpoint`. */
export interface ConvertOptions {
  /** The dtype the picked tensors are cast into. */
  to: DType;
  /** A glob (`*`, `?`, `[...]`) of the tensors to cast, whatever their dtype; every float when absent. One that matches no tensor is refused. */
  tensors?: string;
  /** Saturating casts: a value past the largest finite of `to`, and an infinity, become that largest finite of their sign, not an infinity or a NaN. */
  saturate?: boolean;
  /** Where to cast: the host when absent. */
  device?: Device;
  /** Called after each piece. What it throws stops the conversion (the output aborted): the promise rejects with an Error whose `cause` it is. */
  onProgress?: (progress: ConvertProgress) => void;
  /** Stops the conversion: the promise rejects with its reason, every stream is aborted. */
  signal?: AbortSignal;
  /** The single output file's name, for its format (by extension) and errors. */
  fileName?: string;
  /** A model folder's block-scaled scheme, over what its configuration says, or `'none'`: every tensor cast as it is. */
  scheme?: SchemeName | 'none';
  /** Which nibble of a float4 pair holds the even element: `'low-first'` (every published layout nxrig knows; the default) or `'high-first'`. */
  nibbles?: 'low-first' | 'high-first';
  /** A glob of the block-scaled weights left packed, with their scales. */
  keepQuantized?: string;
  /**
   * On a page, the conversion runs in a Worker of its own (the page's thread only hands
   * the output's pieces to the sink), where it can: on the host, from a checkpoint
   * opened from a `File`, `Blob`, URL, file system handle or list of `File`s. `false`
   * converts on the calling thread; `true` refuses a conversion that cannot run in one.
   * In Node, a conversion of a checkpoint opened from a path into a path runs in a
   * worker thread of its own (`node:worker_threads`: the thread opens the checkpoint
   * again, converts and writes; the caller's event loop stays free), unless `false`
   * or a `device` is given. In a Worker the conversion runs where it is called.
   */
  worker?: boolean;
  /**
   * On a page, how many Workers share a conversion on the host (1 to 8; 1 when
   * absent): each its own nxrig instance and wasm memory (30 to 50 MiB each), the
   * pieces dealt among them in turn and written in order, the report the one a single
   * Worker gives. No cross-origin isolation is needed. Worth it where cores are idle:
   * on a 2-core machine two Workers converted float32 into bfloat16 at 1.2 times one's
   * rate, bfloat16 into float16 at 1.35 times. An OPFS folder is written by one Worker.
   * In Node, a conversion from a path into a path shared among that many worker
   * threads, the caller's thread writing their output in order.
   */
  workers?: number;
}

/** What a conversion wrote. */
export interface ConvertReport {
  readonly files: number;
  readonly tensors: number;
  readonly converted: number;
  /** The block-scaled weights dequantized: a block-scaled checkpoint's, and a GGUF file's block-quantized tensors. */
  readonly dequantized: number;
  /** Those dequantized wholly on `device` (a WebGPU device gathers each band's values from tables the host rounds; a band whose values may overflow is dequantized on the host, which counts them). */
  readonly dequantizedOnDevice: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** The tensors some of whose values overflowed their new dtype, or became an infinity or a NaN there. */
  readonly overflows: readonly ConvertOverflow[];
}

/** A tensor some of whose values a conversion took past its new dtype's range. */
export interface ConvertOverflow {
  readonly tensor: string;
  /** Its new dtype. */
  readonly dtype: DType;
  /** Finite values past the new dtype's largest finite: an infinity or a NaN by default, the largest finite saturating. */
  readonly overflowed: number;
  /** Values that became an infinity. */
  readonly infinities: number;
  /** Values that became a NaN (an overflow or an infinity where the dtype has no infinity; a negative value where it is unsigned). */
  readonly nans: number;
}

/** A sink of your own: files written in order, then committed together, or aborted. */
export interface CheckpointSink {
  /** Where given, told every file's bytes together before the first is opened: it may refuse (reject) an output that will not fit, before a byte is written. */
  reserve?(bytes: number): Promise<void>;
  open(name: string): Promise<void>;
  write(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** Where `convertCheckpoint` writes. */
export type CheckpointOutput =
  | WritableStream<Uint8Array>
  | DomDirectoryHandle
  | ((name: string) => WritableStream<Uint8Array> | Promise<WritableStream<Uint8Array>>)
  | CheckpointSink;

/**
 * Converts `checkpoint` as `nxrig convert` does, byte for byte, a piece at a time
 * (memory bounded by a piece, whatever the file). A sharded checkpoint or a model's
 * folder needs a folder handle or a function from file name to stream (a model's
 * folder's block-scaled weights are dequantized, its config.json rewritten). In Node
 * also a path (a string, or a `file:` URL as a string or a `URL`).
 * Rejects with a TypeError naming convertCheckpoint for options of the wrong type or
 * unknown ones, an Error for every other refusal; an abort, an error or a throwing
 * `onProgress` aborts every stream (a `createWritable()` stream leaves its file as it
 * was).
 */
export function convertCheckpoint(checkpoint: Checkpoint, sink: CheckpointOutput | string | URL, options: ConvertOptions): Promise<ConvertReport>;

// Elementwise operations, each into a fresh array on `x`'s device, NumPy's
// broadcasting, one dtype, the same bits on the host and WebGPU: floats rounded once
// (a NaN operand gives that NaN quieted, `x`'s first), integers wrap. The operands
// share `x`'s dtype in the types too (`add(bf16, f32)` does not compile; narrow an
// `AnyNxArray` first); a dtype an operation does not take throws naming the function. With `{ out }` after the arrays, the result is
// stored into `out` (of the result's dtype and shape, any layout, an operand itself
// too) and `out` is returned.
/** An operation's options: the array its result is stored into. */
export interface OutOption<D extends DType> {
  out?: NxArray<D>;
}
/** `x + y` (bool: or). */
export function add<D extends DType>(x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<NoInfer<D>>): NxArray<D>;
// BEGIN the operations' types: written by tests/operations_table.rs from src/dtype/operations/rows.rs.
/** `x - y`. Not bool. */
export function sub<D extends DType>(x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<NoInfer<D>>): NxArray<D>;
/** `x * y` (bool: and). */
export function mul<D extends DType>(x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<NoInfer<D>>): NxArray<D>;
/** `x / y`: floats rounded once; integers floor-divide as NumPy's `//` (`x / 0` is 0). Not bool or complex. */
export function div<D extends DType>(x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<NoInfer<D>>): NxArray<D>;
/** The greater of `x` and `y` (a NaN first; `+0` over `-0`). Not complex. */
export function maximum<D extends DType>(x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<NoInfer<D>>): NxArray<D>;
/** The lesser of `x` and `y` (a NaN first; `-0` under `+0`). Not complex. */
export function minimum<D extends DType>(x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<NoInfer<D>>): NxArray<D>;
/** `-x` (floats: the sign flipped; integers wrap). Not bool. */
export function neg<D extends DType>(x: NxArray<D>, options?: OutOption<NoInfer<D>>): NxArray<D>;
/** `|x|` (floats: the sign cleared; integers wrap). Not complex. */
export function abs<D extends DType>(x: NxArray<D>, options?: OutOption<NoInfer<D>>): NxArray<D>;
/** `x == y` into bool (a NaN equals nothing; `-0 == +0`). */
export function eq<D extends DType>(x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<'bool'>): NxArray<'bool'>;
/** `x != y` into bool. */
export function ne<D extends DType>(x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<'bool'>): NxArray<'bool'>;
/** `x < y` into bool (false where either is a NaN). Not complex. */
export function lt<D extends DType>(x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<'bool'>): NxArray<'bool'>;
/** `x <= y` into bool. Not complex. */
export function le<D extends DType>(x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<'bool'>): NxArray<'bool'>;
/** `x > y` into bool. Not complex. */
export function gt<D extends DType>(x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<'bool'>): NxArray<'bool'>;
/** `x >= y` into bool. Not complex. */
export function ge<D extends DType>(x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<'bool'>): NxArray<'bool'>;
// END the operations' types
/** NumPy's `where`: `x` where `cond` is true, else `y`, broadcast, bit for bit. */
export function where<D extends DType>(cond: NxArray<'bool'>, x: NxArray<D>, y: NoInfer<NxArray<D>>, options?: OutOption<NoInfer<D>>): NxArray<D>;

/** An operand of a kernel: a dtype or a type variable (starting with a capital letter), then its name (`'T x'`, `'float32 y'`). */
export type OperandDecl = `${string} ${string}`;

/** A kernel's compute type and the TypedArray its `js` body works on. */
export interface ComputeMap {
  float32: Float32Array;
  int32: Int32Array;
  uint32: Uint32Array;
}

/** The array an operand declared `'dtype name'` is (typed where the dtype is fixed). */
type ArrayOf<S> = S extends `${infer D extends DType} ${string}` ? NxArray<D> : NxArray;
type ArraysOf<T extends readonly string[]> = { -readonly [K in keyof T]: ArrayOf<T[K]> };
/** The type (a dtype or a type variable) an operand is declared with. */
type TypeOf<S> = S extends `${infer V} ${string}` ? V : never;
/** The array given for the first input of `I` (arrays `A`) declared with type variable `V`. */
type BoundBy<I, A, V> = I extends readonly [infer H, ...infer IR]
  ? A extends readonly [infer AH, ...infer AR]
    ? TypeOf<H> extends V ? (AH extends NxArray<infer D> ? NxArray<D> : NxArray) : BoundBy<IR, AR, V>
    : NxArray
  : NxArray;
/** The outputs `O` of a call with arrays `A` for inputs `I`: a dtype named, or the dtype of the input binding its type variable. */
type OutputsOf<O extends readonly string[], I, A> = {
  -readonly [K in keyof O]: O[K] extends `${infer D extends DType} ${string}` ? NxArray<D> : BoundBy<I, A, TypeOf<O[K]>>;
};

/** `elementwise`'s declaration. */
export interface ElementwiseOptions<
  I extends readonly OperandDecl[],
  O extends readonly OperandDecl[],
  C extends keyof ComputeMap,
> {
  /** The kernel's name: its calls' errors say it. */
  name: string;
  /** The inputs, in call order. */
  inputs: I;
  /** The outputs, in the order they resolve to; a type variable an input binds. */
  outputs: O;
  /** What the bodies compute in: `'float32'` (the default), `'int32'` or `'uint32'`. */
  compute?: C;
  /**
   * The body on WebGPU: WGSL statements setting every output (a `var` of the compute
   * type) from the inputs (`let`s of it), e.g. `'z = x * y + 1.0;'`.
   */
  wgsl?: string;
  /**
   * The body on the host device: one chunk of each operand at a time, of one length,
   * synchronous (a body returning a Promise is refused when called).
   */
  js?: (inputs: ComputeMap[C][], outputs: ComputeMap[C][]) => void;
  /**
   * Inputs (by name) whose memory an output of their dtype and shape takes where
   * nothing else holds it: written in place, the input then dead ("donated to kernel").
   */
  donate?: readonly string[];
}

/** A kernel: call it with its inputs (and `{ out }` to write into arrays given). */
export interface ElementwiseKernel<I extends readonly OperandDecl[], O extends readonly OperandDecl[]> {
  <A extends ArraysOf<I>>(...inputs: A): Promise<OutputsOf<O, I, A>>;
  <Out extends NxArray | NxArray[]>(...args: [...ArraysOf<I>, { out: Out }]): Promise<Out extends NxArray[] ? Out : [Out]>;
}

/**
 * A kernel of your own, declared once: each input decoded into the compute type
 * exactly, each output rounded once into its dtype, every layout walked (strides,
 * broadcast, flips, int4 at odd offsets). Errors: an option unknown or of the wrong
 * type; a call's Promise rejects with the compiler's error of the WGSL body (at its
 * line), the device's, or what the `js` body threw.
 */
export function elementwise<
  const I extends readonly OperandDecl[],
  const O extends readonly OperandDecl[],
  C extends keyof ComputeMap = 'float32',
>(options: ElementwiseOptions<I, O, C>): ElementwiseKernel<I, O>;
/** `rawKernel`'s declaration. */
export interface RawKernelOptions<
  I extends readonly OperandDecl[],
  O extends readonly OperandDecl[],
  C extends keyof ComputeMap,
> {
  /** The kernel's name: its calls' errors say it. */
  name: string;
  /** The inputs, in call order: the module calls `load_<name>(i)` and `numel_<name>()`. */
  inputs: I;
  /** The outputs, in `out`'s order: the module calls `store_<name>(i, v)`. */
  outputs: O;
  /** What loads give and stores take: `'float32'` (the default), `'int32'` or `'uint32'`. */
  compute?: C;
  /**
   * A whole WGSL module with its own `@compute @workgroup_size(...) fn main`. Element
   * `i` of an operand is in C order of its shape; an index at or past its `numel`
   * loads 0 and stores nothing. nxrig makes the bindings: declare none.
   */
  wgsl: string;
}

/** A raw kernel's call: the arrays written in place, and the workgroups (x, y, z). */
export interface RawKernelCall<O extends readonly OperandDecl[]> {
  out: ArraysOf<O> | (O extends readonly [OperandDecl] ? ArrayOf<O[0]> : never);
  workgroups: number | readonly [number] | readonly [number, number] | readonly [number, number, number];
}

/** A raw kernel: call it with its inputs, then `{ out, workgroups }`; resolves to `out`. */
export interface RawKernel<I extends readonly OperandDecl[], O extends readonly OperandDecl[]> {
  (...args: [...ArraysOf<I>, RawKernelCall<O>]): Promise<ArraysOf<O>>;
}

/**
 * A raw kernel of your own, on WebGPU: your whole WGSL module, over nxrig's
 * `load_<name>(i)`, `store_<name>(i, v)` and `numel_<name>()` for each operand (each
 * dtype decoded exactly and rounded once, every layout walked, sub-word stores that
 * never touch a neighbour), run on the workgroups a call gives. Errors: an option
 * unknown or of the wrong type; a call's Promise rejects with the compiler's error of
 * the module (at its line), or the device's.
 */
export function rawKernel<
  const I extends readonly OperandDecl[],
  const O extends readonly OperandDecl[],
  C extends keyof ComputeMap = 'float32',
>(options: RawKernelOptions<I, O, C>): RawKernel<I, O>;
/** The dtypes' names, in the order of their codes. */
export function dtypes(): DType[];
/** nxrig's version. */
export function version(): string;
/** The message of the last Rust panic, if one happened (then reload). */
export function lastPanic(): string | undefined;

/**
 * Where `init` finds the WebAssembly: a URL (a string or a `URL`), a `Response` (or
 * its promise), the `.wasm` bytes, or a compiled `WebAssembly.Module`. (Typed loosely
 * so that the types check without the DOM's or Node's lib.)
 */
export type InitInput = string | ArrayBuffer | ArrayBufferView | object;

/** What `init` resolves to: nxrig's WebAssembly instance, of which one thing is yours to read. */
export interface InitOutput {
  /** nxrig's wasm memory: `memory.buffer.byteLength` is how far it has grown (it never shrinks). */
  readonly memory: { readonly buffer: ArrayBufferLike };
}

/**
 * Loads nxrig's WebAssembly; call (and await) it once before anything else (again:
 * nothing more happens). With no argument: the package's `.wasm` (in Node too).
 */
export function init(input?: { module_or_path: InitInput }): Promise<InitOutput>;
/** `init` at once, from the `.wasm` bytes or a compiled module (Node: none needed). */
export function initSync(input?: { module: ArrayBuffer | ArrayBufferView | object }): InitOutput;
export default init;
