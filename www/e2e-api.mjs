// The JavaScript API's conventions, checked in the demo page: arguments
// validated as onnxruntime-web does, TypedArrays of the dtype's kind, Float16Array,
// exact values `as` float32, nested arrays, dispose as TensorFlow.js does, text, the
// memory figure; then arrays of 600 MiB on the host and on WebGPU in a page of their
// own. Each expected value comes from the test (literals, JavaScript's own float
// conversions), never from nxrig.
import assert from 'node:assert/strict';
import { step } from './e2e-step.mjs';


export async function conventions(page) {
  step('the API as the field expects it: shapes, TypedArray kinds, reads, dispose, text, memory');
  const r = await page.evaluate(async () => {
    const { NxArray, Device } = window.nxrig;
    const host = Device.host();
    const out = {};
    const message = (f) => {
      try {
        f();
        return 'accepted';
      } catch (e) {
        return e instanceof Error ? e.message : `not an Error: ${e}`;
      }
    };
    // Shapes: every bad entry named, nothing coerced.
    out.shapes = [[2 ** 40], [2 ** 32 + 4], [1.5], [NaN], ['4'], 4, [-1], [2, -3]].map(
      (s) => message(() => NxArray.zeros(host, 'float32', s)));
    out.axes = message(() => NxArray.zeros(host, 'float32', [2, 2]).permute([0, 1.5]));
    out.slice = message(() => NxArray.zeros(host, 'float32', [4]).slice([[0, '2']]));
    // TypedArray kinds.
    out.kinds = [
      message(() => NxArray.fromTypedArray(new Float64Array(4), 'float32')),
      message(() => NxArray.fromTypedArray(new Int32Array(4), 'uint32')),
      message(() => NxArray.fromTypedArray(new Float32Array(3), 'complex64')),
      message(() => NxArray.fromTypedArray([1, 2], 'float32')),
    ];
    out.raw = await NxArray.fromTypedArray(new Uint8Array(new Float32Array([1.5, -2]).buffer), 'float32').toArray();
    out.complex = await NxArray.fromTypedArray(new Float32Array([1, 2, 3, 4]), 'complex64').toArray();
    out.int4 = [
      Array.from(await NxArray.fromTypedArray(new Int8Array([-8, 7, 0, -1, 3]), 'int4').toTypedArray()),
      message(() => NxArray.fromTypedArray(new Int8Array([8]), 'int4')),
    ];
    // float16 as Float16Array where the engine has it; exact values as float32.
    const h = NxArray.fromTypedArray(new Float32Array([1.5, -2.25, 65520, 1e-8, 0.1]), 'float32').cast('float16');
    const ht = await h.toTypedArray();
    out.hasF16 = typeof Float16Array === 'function';
    out.f16 = [ht.constructor.name, Array.from(ht)];
    const b = NxArray.fromTypedArray(new Float32Array([0.1, 3.140625, -1e38]), 'float32').cast('bfloat16');
    out.bf16 = [(await b.toTypedArray()).constructor.name, Array.from(await b.toTypedArray({ as: 'float32' }))];
    out.e4m3 = Array.from(await b.cast('float8_e4m3fn').toTypedArray({ as: 'float64' }));
    // float4_e2m1fn: packed bytes in (low nibble first), its bits one a byte out, its
    // values as float32; float32 cast into it on the host and on WebGPU.
    const fp4 = NxArray.fromTypedArray(new Uint8Array([0x72, 0x0f]), 'float4_e2m1fn');
    const f32 = NxArray.fromTypedArray(new Float32Array([7, NaN, -100, 0.25, 5, -0.75]), 'float32');
    out.fp4 = [
      fp4.shape, Array.from(await fp4.toTypedArray()), Array.from(await fp4.toTypedArray({ as: 'float32' })),
      Array.from(await f32.cast('float4_e2m1fn').toTypedArray()),
      Array.from(await (await f32.toDevice(await Device.gpu())).cast('float4_e2m1fn').toTypedArray()),
    ];
    // float6_e2m3fn: one a byte in memory, its bits out as they are; float32 cast into it.
    const fp6 = NxArray.fromTypedArray(new Uint8Array([0x1f, 0x3f, 0x01]), 'float6_e2m3fn');
    const f6src = NxArray.fromTypedArray(new Float32Array([8, NaN, -100, 0.0625, 0.1875, 3.3]), 'float32');
    out.fp6 = [
      fp6.shape, Array.from(await fp6.toTypedArray({ as: 'float32' })),
      Array.from(await f6src.cast('float6_e2m3fn').toTypedArray()),
      Array.from(await (await f6src.toDevice(await Device.gpu())).cast('float6_e2m3fn').toTypedArray()),
    ];
    // complex32 and bcomplex32: complex64 cast into them on the host and on WebGPU, [re,
    // im] pairs out, their parts' bits interleaved, mul as complex64's rounded once.
    const c64 = NxArray.fromTypedArray(new Float32Array([1.5, -2, 70000, 0.1]), 'complex64');
    const c32 = c64.cast('complex32');
    const bc32 = (await c64.toDevice(await Device.gpu())).cast('bcomplex32');
    out.c32 = [
      await c32.toArray(), (await c32.toTypedArray()).length, await window.nxrig.mul(c32, c32).toArray(),
      await bc32.toArray(), Array.from(await bc32.toTypedArray()), await window.nxrig.mul(bc32, bc32).toArray(),
    ];
    out.asBad = await b.toTypedArray({ as: 'float33' }).then(() => 'accepted', (e) => e.message);
    // Nested arrays.
    const m = NxArray.fromTypedArray(new Int32Array([1, -2, 3, 4, 5, 6]), 'int32', [2, 3]);
    out.nested = await m.toArray();
    out.nestedT = await m.permute([1, 0]).toArray();
    out.big = (await m.cast('int64').toArray()).flat().map((x) => typeof x + ':' + x);
    out.bool = await m.cast('bool').reshape([6]).slice([[0, 6, 2]]).toArray();
    out.scalar = await m.reshape([6]).slice([[1, 2]]).reshape([]).toArray();
    const gpu = await Device.gpu();
    out.gpuNested = await (await m.toDevice(gpu)).flip([0]).toArray();
    // Dispose as TF.js and onnxruntime do.
    const d = NxArray.zeros(host, 'float32', [3]);
    const before = host.memory();
    d.dispose();
    d.dispose();
    d.free();
    out.dispose = [d.isDisposed, message(() => d.shape), message(() => d.cast('float16')), String(d)];
    out.memory = [before.arrays - host.memory().arrays, typeof before.bytes];
    {
      const e = NxArray.zeros(host, 'float32', [3]);
      if (typeof Symbol.dispose === 'symbol') e[Symbol.dispose]();
      else e.dispose();
      out.symbolDispose = e.isDisposed;
    }
    // Text.
    out.text = [
      String(m),
      String(NxArray.fromTypedArray(new Float32Array([NaN, -Infinity, 0.5]), 'float32')),
      String(NxArray.zeros(host, 'uint8', [100])),
      String(await m.toDevice(gpu)).startsWith(`NxArray(int32 [2, 3] on ${gpu.name}`),
    ];
    // Misuse a user tried: clear Errors, never a trap.
    out.misuse = [
      message(() => NxArray.zeros(host, 5, [1])),
      message(() => NxArray.zeros(host, 'f32', [1])),
      message(() => m.cast({})),
      message(() => NxArray.fromTypedArray(new Uint8Array(3), 'float32')),
      message(() => NxArray.zeros(host, 'float32', [2 ** 53])),
      message(() => NxArray.zeros(host, 'float32', [2 ** 30 - 1])),
      message(() => m.slice([[0, 1, 1, 3]])),
    ];
    out.asString = await m.toTypedArray('float16').then(() => 'accepted', (e) => e.message);
    const gone = await Device.gpu();
    gone.free();
    gone.free();
    out.deviceGone = [message(() => gone.name), String(gone)];
    out.made = message(() => new NxArray().shape);
    out.f32text = String(NxArray.fromTypedArray(new Float32Array([0.1, 1e30, 1e-10, -0]), 'float32'));
    // A file of one's own: an empty TensorFile, a new tensor set, written, read back.
    {
      const { TensorFile, loadSafetensors } = window.nxrig;
      const f = new TensorFile();
      f.set('b', NxArray.fromTypedArray(new Float32Array([1.5, -2]), 'float32'));
      f.set('a', NxArray.fromTypedArray(new Int8Array([7]), 'int8'));
      const back = loadSafetensors(f.toBytes());
      out.fresh = [f.length, back.names, await back.get('b').toArray(), await back.get('a').toArray()];
    }
    out.lastPanic = window.nxrig.lastPanic() ?? null;
    return out;
  });
  assert.deepEqual(r.misuse, [
    'NxArray.zeros: a dtype is a string (one of float16, bfloat16, float8_e4m3fn, float8_e5m2, float32, float64, int4, uint4, int8, uint8, int16, uint16, int32, uint32, int64, uint64, complex64, complex128, bool, float8_e4m3, float8_e3m4, float8_e4m3fnuz, float8_e5m2fnuz, float8_e4m3b11fnuz, float8_e8m0fnu, float8_e5m3fnu, float4_e2m1fn, float6_e2m3fn, float6_e3m2fn, int2, uint2, int1, uint1, complex32, bcomplex32), got: 5',
    'NxArray.zeros: unknown dtype "f32" (the names are exact: float16, bfloat16, float8_e4m3fn, float8_e5m2, float32, float64, int4, uint4, int8, uint8, int16, uint16, int32, uint32, int64, uint64, complex64, complex128, bool, float8_e4m3, float8_e3m4, float8_e4m3fnuz, float8_e5m2fnuz, float8_e4m3b11fnuz, float8_e8m0fnu, float8_e5m3fnu, float4_e2m1fn, float6_e2m3fn, float6_e3m2fn, int2, uint2, int1, uint1, complex32, bcomplex32): did you mean "float32"?',
    'NxArray.cast: a dtype is a string (one of float16, bfloat16, float8_e4m3fn, float8_e5m2, float32, float64, int4, uint4, int8, uint8, int16, uint16, int32, uint32, int64, uint64, complex64, complex128, bool, float8_e4m3, float8_e3m4, float8_e4m3fnuz, float8_e5m2fnuz, float8_e4m3b11fnuz, float8_e8m0fnu, float8_e5m3fnu, float4_e2m1fn, float6_e2m3fn, float6_e3m2fn, int2, uint2, int1, uint1, complex32, bcomplex32), got: object',
    'NxArray.fromTypedArray: 3 bytes are not a whole number of float32 elements (32 bits each): give the shape',
    'NxArray.zeros: shape[0] is 9007199254740992, above 2^53 - 1 (not a safe integer)',
    'NxArray.zeros: host cannot hold 4294967292 bytes in one array: one allocation holds at most 2147483583 bytes on this platform; read such a tensor a piece at a time, or place it on a GPU',
    'NxArray.slice: a slice is [start, stop, step] (each an integer or null), got: an array',
  ]);
  assert.equal(r.asString, 'NxArray.toTypedArray: the options are an object such as { as: \'float32\' }, got: "float16"');
  assert.match(r.deviceGone[0], /^Device.name: this Device was disposed/);
  assert.equal(r.deviceGone[1], 'Device(disposed)');
  assert.match(r.made, /^NxArray.shape: this NxArray was disposed \(or made with `new`/);
  assert.deepEqual(r.fresh, [2, ['b', 'a'], [1.5, -2], [7]], 'an empty TensorFile takes new tensors, after the others');
  assert.equal(r.f32text, 'NxArray(float32 [4] on host: 0.1, 1e30, 1e-10, -0)');
  assert.deepEqual(r.shapes, [
    'NxArray.zeros: shape[0] is 1099511627776, more than this platform\'s arrays can hold',
    'NxArray.zeros: shape[0] is 4294967300, more than this platform\'s arrays can hold',
    'NxArray.zeros: shape[0] must be a non-negative integer, got: 1.5',
    'NxArray.zeros: shape[0] must be a non-negative integer, got: NaN',
    'NxArray.zeros: shape[0] must be a non-negative integer, got: "4"',
    'NxArray.zeros: shape must be an array of non-negative integers, got: 4',
    'NxArray.zeros: shape[0] must be a non-negative integer, got: -1',
    'NxArray.zeros: shape[1] must be a non-negative integer, got: -3',
  ]);
  assert.equal(r.axes, 'NxArray.permute: axes[1] must be a non-negative integer, got: 1.5');
  assert.equal(r.slice, 'NxArray.slice: a slice\'s entries must be integers or null, got: "2"');
  assert.match(r.kinds[0], /a Float64Array holds float64 or complex128 elements, not float32/);
  assert.match(r.kinds[1], /an? Int32Array holds int32 elements, not uint32/);
  assert.equal(r.kinds[2], 'NxArray.fromTypedArray: a Float32Array of 3 values does not hold a complex64 array of shape [1] (1 elements, each two values: real and imaginary)');
  assert.match(r.kinds[3], /expected a TypedArray, a DataView or an ArrayBuffer, got: an array/);
  assert.deepEqual(r.raw, [1.5, -2]);
  assert.deepEqual(r.complex, [[1, 2], [3, 4]]);
  assert.deepEqual(r.int4[0], [-8, 7, 0, -1, 3]);
  assert.match(r.int4[1], /element 0 of the Int8Array is 8, outside int4's -8\.\.7/);
  // float16 of 1.5, -2.25, 65520 (rounds up to inf), 1e-8 (to 0), 0.1 (0x2e66).
  if (r.hasF16) {
    assert.deepEqual(r.f16, ['Float16Array', [1.5, -2.25, Infinity, 0, 0.0999755859375]]);
  } else {
    assert.deepEqual(r.f16, ['Uint16Array', [0x3e00, 0xc080, 0x7c00, 0, 0x2e66]]);
  }
  // bfloat16 of 0.1 is 0x3dcd = 0.10009765625; 3.140625 is exact; -1e38 is 0xfe96.
  assert.deepEqual(r.bf16, ['Uint16Array', [0.10009765625, 3.140625, -(1 + 22 / 128) * 2 ** 126]]);
  // float8_e4m3fn of those: 13/8 * 2^-4, 13/8 * 2 (12.5625 eighths round up), and NaN
  // (float8_e4m3fn has no infinity).
  assert.deepEqual(r.e4m3, [0.1015625, 3.25, NaN]);
  // 0x72 0x0f: 2 (1.0), 7 (6.0), 15 (-6.0), 0; into float4_e2m1fn 7 and -100 saturate
  // to +-6 (7, 15), NaN is -0 (8), 0.25 and 5 are ties to even (0, 4.0 = 6), -0.75 is
  // -1.0 (10): ml_dtypes' casts.
  assert.deepEqual(r.fp4, [[4], [2, 7, 15, 0], [1, 6, -6, 0], [7, 8, 15, 0, 6, 10], [7, 8, 15, 0, 6, 10]]);
  // float6_e2m3fn: 0x1f 7.5, 0x3f -7.5, 0x01 0.125; 8 and -100 saturate (31, 63), NaN is
  // -0 (32), 0.0625 a tie to 0, 0.1875 a tie to 0.25 (2), 3.3 is 3.25 (21): ml_dtypes'.
  assert.deepEqual(r.fp6, [[3], [7.5, -7.5, 0.125], [31, 32, 63, 0, 2, 21], [31, 32, 63, 0, 2, 21]]);
  // ml_dtypes' values: 70000 is inf in float16, 0.1 is 0x2e66 (0.0999755859375); in
  // bfloat16 70000 is 70144 (0x4789), 0.1 0.10009765625 (0x3dcd); (1.5 - 2i)^2 is
  // -1.75 - 6i; ml_dtypes' bcomplex32 square of 70144 + 0.10009765625i.
  assert.deepEqual(r.c32, [
    [[1.5, -2], [Infinity, 0.0999755859375]], 4, [[-1.75, -6], [Infinity, Infinity]],
    [[1.5, -2], [70144, 0.10009765625]], [0x3fc0, 0xc000, 0x4789, 0x3dcd],
    [[-1.75, -6], [4932501504, 14016]],
  ]);
  assert.match(r.asBad, /float33/);
  assert.deepEqual(r.nested, [[1, -2, 3], [4, 5, 6]]);
  assert.deepEqual(r.nestedT, [[1, 4], [-2, 5], [3, 6]]);
  assert.deepEqual(r.big, ['bigint:1', 'bigint:-2', 'bigint:3', 'bigint:4', 'bigint:5', 'bigint:6']);
  assert.deepEqual(r.bool, [true, true, true]);
  assert.equal(r.scalar, -2);
  assert.deepEqual(r.gpuNested, [[4, 5, 6], [1, -2, 3]]);
  assert.deepEqual(r.dispose, [true, 'NxArray.shape: the array was disposed', 'NxArray.cast: the array was disposed', 'NxArray(disposed)']);
  assert.deepEqual(r.memory, [1, 'number']);
  assert.equal(r.symbolDispose, true);
  assert.deepEqual(r.text.slice(0, 3), [
    'NxArray(int32 [2, 3] on host: 1, -2, 3, 4, 5, 6)',
    'NxArray(float32 [3] on host: NaN, -Infinity, 0.5)',
    'NxArray(uint8 [100] on host: 0, 0, 0, 0, 0, 0, 0, 0, ...)',
  ]);
  assert.equal(r.text[3], true);
  assert.equal(r.lastPanic, null);
  console.log(`float16 reads as ${r.f16[0]}; every convention holds`);
}

/**
 * Arrays of 600 MiB (float32, 157,286,400 elements: a byte count whose bit count
 * overflows 32 bits) made, cast to float16 and read back on the host (wasm memory) and
 * on WebGPU, and one of 1.2 GiB copied on WebGPU, in a page of their own that is
 * closed after.
 */
export async function big(browser, url) {
  step('600 MiB arrays on the host and on WebGPU');
  const page = await browser.newPage();
  try {
    await page.goto(`${url}/index.html`);
    await page.waitForFunction(() => window.nxrigReady === true, null, { timeout: 60000 });
    const r = await page.evaluate(async () => {
      const { NxArray, Device } = window.nxrig;
      const rows = 153600, cols = 1024; // 600 MiB of float32
      const row = new Float32Array(cols).map((_, i) => i * 0.5 - 100);
      const out = {};
      for (const device of [Device.host(), await Device.gpu()]) {
        const t = [performance.now()];
        const r0 = await NxArray.fromTypedArray(row, 'float32', [1, cols]).toDevice(device);
        const a = r0.expand([rows, cols]).copy();
        t.push(performance.now());
        const h = a.cast('float16');
        t.push(performance.now());
        // float16 holds these values exactly: read as Float16Array, or as float32
        // where the engine has none.
        const got = await h.toTypedArray(typeof Float16Array === 'function' ? {} : { as: 'float32' });
        t.push(performance.now());
        // Rows are alike: check rows 0, one in the middle and the last, whole.
        let bad = 0;
        for (const rw of [0, rows >> 1, rows - 1]) {
          for (let c = 0; c < cols; c++) if (got[rw * cols + c] !== row[c]) bad++;
        }
        out[device.isGpu ? 'gpu' : 'host'] = {
          bytes: a.byteLength, length: got.length, bad, ms: t.slice(1).map((x, i) => Math.round(x - t[i])),
        };
        for (const x of [r0, a, h]) x.dispose();
      }
      // One array of 1.2 GiB, past one buffer of SwiftShader's (about 1 GiB): values
      // or an Error, never zeros in their place. (Three of them, past what the device
      // holds, took two minutes of SwiftShader's copies and showed nothing more.)
      const gpu = await Device.gpu();
      try {
        const one = await NxArray.fromTypedArray(new Float32Array(cols).fill(1), 'float32', [1, cols]).toDevice(gpu);
        const huge = one.expand([rows * 2, cols]).copy();
        const tail = await huge.slice([[-1], [-3]]).toTypedArray();
        out.oom = Array.from(tail).every((x) => x === 1) ? 'values' : `wrong values: ${Array.from(tail)}`;
      } catch (e) {
        out.oom = `error: ${e.message}`;
      }
      return out;
    });
    assert.ok(r.oom === 'values' || r.oom.startsWith('error: '), r.oom);
    console.log(`1.2 GiB on WebGPU: ${r.oom}`);
    for (const k of ['host', 'gpu']) {
      assert.equal(r[k].bytes, 600 * 2 ** 20, `${k}: 600 MiB`);
      assert.equal(r[k].length, 153600 * 1024, `${k}: every element read back`);
      assert.equal(r[k].bad, 0, `${k}: the values survive`);
      console.log(`${k}: 600 MiB made, cast to float16 and read back (ms: ${r[k].ms.join(', ')})`);
    }
  } finally {
    await page.close();
  }
}

/**
 * A Rust panic (a bug's way out) in a page of its own: the call that panicked throws
 * an Error carrying the panic's message (not `RuntimeError: unreachable`), lastPanic()
 * keeps it, and the GPU devices are marked lost.
 */
export async function panics(browser, url) {
  step('a Rust panic: an Error with its message, GPU devices marked lost');
  const page = await browser.newPage();
  try {
    await page.goto(`${url}/index.html`);
    await page.waitForFunction(() => window.nxrigReady === true, null, { timeout: 60000 });
    const r = await page.evaluate(async () => {
      const { Device } = window.nxrig;
      const gpu = await Device.gpu();
      let thrown;
      try {
        Device.panicForTests();
      } catch (e) {
        thrown = [e instanceof Error, e.constructor.name, e.message, String(e.cause)];
      }
      return { thrown, last: window.nxrig.lastPanic(), lost: gpu.lost };
    });
    assert.equal(r.thrown[0], true);
    assert.equal(r.thrown[1], 'Error', 'an Error, not a RuntimeError');
    assert.match(r.thrown[2], /^nxrig: internal error \(a panic at src\/web\/device\.rs:\d+:\d+\): a panic for the tests$/);
    assert.match(r.thrown[3], /RuntimeError: unreachable/);
    assert.match(r.last, /a panic for the tests/);
    assert.equal(r.lost, true, 'the GPU device is marked lost');
    console.log(`thrown: ${r.thrown[2]}`);
  } finally {
    await page.close();
  }
}
