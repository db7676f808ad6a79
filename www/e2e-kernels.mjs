// Kernels of the user's own from JavaScript, in the demo page: `x * y + 1` over
// bfloat16 (strided and broadcast) on the host device (the `js` body) and on WebGPU
// (the `wgsl` body), against a reference computed here (float32 products of bfloat16
// values, then bfloat16's rounding to nearest even, in JavaScript's own arithmetic);
// int32 wrapping; a donated input's memory taken by the output; every option and call
// checked, a WGSL error at its line, the `js` body's exception as the call's.
import assert from 'node:assert/strict';
import { step } from './e2e-step.mjs';

export async function kernels(page) {
  step('kernels of your own: elementwise({ name, inputs, outputs, compute, wgsl, js })');
  const r = await page.evaluate(async () => {
    const { NxArray, Device, elementwise } = window.nxrig;
    const out = { devices: [] };
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    // bfloat16 bits of a float32, rounded to nearest, ties to even (finite values).
    const bf16 = (x) => {
      f32[0] = x;
      const b = u32[0];
      return (b + 0x7fff + ((b >>> 16) & 1)) >>> 16;
    };
    const value = (bits) => {
      u32[0] = bits << 16;
      return f32[0];
    };
    const k = elementwise({
      name: 'xy1',
      inputs: ['T x', 'T y'],
      outputs: ['T z'],
      wgsl: 'z = x * y + 1.0;',
      js: ([x, y], [z]) => {
        for (let i = 0; i < z.length; i++) z[i] = x[i] * y[i] + 1;
      },
    });
    const xs = Float32Array.from({ length: 3 * 40 }, (_, i) => value(0x3e00 + ((i * 37) % 0x300)));
    const ys = Float32Array.from({ length: 20 }, (_, i) => value(0xbf00 + ((i * 11) % 0x200)));
    const want = [];
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 20; c++) want.push(bf16(Math.fround(Math.fround(xs[r * 40 + 2 * c] * ys[c]) + 1)));
    }
    for (const device of [Device.host(), await Device.gpu()]) {
      const x = await NxArray.fromTypedArray(xs, 'float32', [3, 40]).cast('bfloat16').toDevice(device);
      const y = await NxArray.fromTypedArray(ys, 'float32', [20]).cast('bfloat16').toDevice(device);
      out.devices.push(device.name);
      const [z] = await k(x.slice([[], [0, 40, 2]]), y);
      const bits = Array.from(await z.toTypedArray());
      out[device.name] = { shape: z.shape, dtype: z.dtype, same: bits.every((b, i) => b === want[i]), first: [bits[0], want[0]] };
      // Into an array given: in place over a copy of x's columns.
      const given = x.slice([[], [0, 40, 2]]).copy();
      const back = await k(given, y, { out: given });
      out[`${device.name} out`] = back[0] === given && Array.from(await given.toTypedArray()).every((b, i) => b === want[i]);
    }
    const wrap = elementwise({
      name: 'wrap',
      inputs: ['int32 a'],
      outputs: ['int32 b'],
      compute: 'int32',
      wgsl: 'b = a * 3 + 1;',
      js: ([a], [b]) => {
        for (let i = 0; i < b.length; i++) b[i] = Math.imul(a[i], 3) + 1;
      },
    });
    const ints = Int32Array.from([2 ** 31 - 1, -7, 0, 12345678]);
    for (const device of [Device.host(), await Device.gpu()]) {
      const [b] = await wrap(await NxArray.fromTypedArray(ints, 'int32', [4]).toDevice(device));
      out[`${device.name} int32`] = Array.from(await b.toTypedArray());
    }
    const message = async (f) => {
      try {
        await f();
        return 'accepted';
      } catch (e) {
        return e instanceof Error ? e.message : `not an Error: ${e}`;
      }
    };
    // A donated input: the output takes its memory, and it is dead after.
    const twice = elementwise({
      name: 'twice',
      inputs: ['T x'],
      outputs: ['T z'],
      donate: ['x'],
      wgsl: 'z = 2.0 * x;',
      js: ([x], [z]) => {
        for (let i = 0; i < z.length; i++) z[i] = 2 * x[i];
      },
    });
    for (const device of [Device.host(), await Device.gpu()]) {
      const x = await NxArray.fromTypedArray(Float32Array.from([1, 2, 3]), 'float32').copy().toDevice(device);
      const [z] = await twice(x);
      out[`${device.name} donated`] = { z: Array.from(await z.toTypedArray()), x: await message(() => x.toTypedArray()) };
    }
    const decl = { name: 'k', inputs: ['T x'], outputs: ['T z'], wgsl: 'z = x;' };
    out.refused = {
      unknown: await message(() => elementwise({ ...decl, body: 'z = x;' })),
      name: await message(() => elementwise({ ...decl, name: 5 })),
      inputs: await message(() => elementwise({ ...decl, inputs: 'T x' })),
      compute: await message(() => elementwise({ ...decl, compute: 'float64' })),
      operand: await message(() => elementwise({ ...decl, inputs: ['x'] })),
      nobody: await message(() => elementwise({ name: 'k', inputs: ['T x'], outputs: ['T z'] })),
      count: await message(() => k(NxArray.zeros(Device.host(), 'float32', [2]))),
      dtype: await message(() => k(NxArray.zeros(Device.host(), 'float32', [2]), NxArray.zeros(Device.host(), 'bfloat16', [2]))),
      wgsl: await message(async () => elementwise({ ...decl, name: 'typo', wgsl: 'let t = x;\nz = t * ;' })(
        await NxArray.zeros(Device.host(), 'float32', [2]).toDevice(await Device.gpu()))),
      thrown: await message(() => elementwise({ ...decl, name: 'thrower', js: () => { throw new Error('mine'); } })(
        NxArray.zeros(Device.host(), 'float32', [2]))),
      later: await message(() => elementwise({ ...decl, name: 'later', js: async () => { throw new Error('late'); } })(
        NxArray.zeros(Device.host(), 'float32', [2]))),
      noinput: await message(() => elementwise({ name: 'seven', inputs: [], outputs: ['float32 z'], js: (_, [z]) => z.fill(7) })()),
      keyword: await message(() => elementwise({ ...decl, inputs: ['T var'], outputs: ['T z'] })),
      typo: await message(() => elementwise({ ...decl, inputs: ['flaot32 x'], outputs: ['float32 z'] })),
      nojs: await message(() => elementwise({ ...decl, name: 'gpuonly' })(NxArray.zeros(Device.host(), 'float32', [2]))),
      donate: await message(() => elementwise({ ...decl, donate: ['w'] })),
    };
    return out;
  });
  const [, gpu] = r.devices;
  for (const d of r.devices) {
    assert.deepEqual(r[d].shape, [3, 20], d);
    assert.equal(r[d].dtype, 'bfloat16', d);
    assert.ok(r[d].same, `${d}: x * y + 1 against the reference (first ${r[d].first})`);
    assert.ok(r[`${d} out`], `${d}: into the array given, in place`);
    assert.deepEqual(r[`${d} int32`], [2147483646, -20, 1, 37037035], `${d}: int32 wraps`);
    assert.deepEqual(r[`${d} donated`].z, [2, 4, 6], `${d}: into the donated input's memory`);
    assert.match(r[`${d} donated`].x, /donated to kernel "twice"/, `${d}: the donated input is dead`);
  }
  const said = r.refused;
  assert.match(said.unknown, /^elementwise: unknown option 'body'/);
  assert.match(said.name, /^elementwise: options.name must be a non-empty string, got: 5/);
  assert.match(said.inputs, /^elementwise: options.inputs must be an array of strings/);
  assert.match(said.compute, /^elementwise: options.compute must be one of/);
  assert.match(said.operand, /^elementwise: operand "x" is not a type and a name/);
  assert.match(said.nobody, /^elementwise: the kernel has no body/);
  assert.match(said.count, /^k: 1 arrays given, 1 inputs declared|^xy1: 1 arrays given, 2 inputs declared/);
  assert.match(said.dtype, /^xy1: input y is bfloat16, declared T = float32/);
  assert.match(said.wgsl, /^typo: its WGSL does not compile: line 2 of the WGSL body/);
  assert.equal(said.thrown, 'thrower: its js body threw: mine');
  assert.match(said.later, /^later: its js body returned a Promise/);
  assert.match(said.noinput, /^seven: it reads no input/);
  assert.match(said.keyword, /^elementwise: kernel "k": operand name "var" is not a WGSL identifier/);
  assert.match(said.typo, /^elementwise: kernel "k": operand x's type "flaot32" is neither a dtype nor a type variable/);
  assert.match(said.nojs, /^gpuonly: it has no host body, and its operands are on host/);
  assert.match(said.donate, /^elementwise: options.donate names "w", which is not an input \(x\)/);
  console.log(`kernels: x * y + 1 over bfloat16 on host and ${gpu}, int32 wrapping, ${Object.keys(said).length} refusals: ok`);
}
