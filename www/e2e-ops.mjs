// nxrig's elementwise operations from JavaScript, in the demo page: sub, mul, div,
// maximum, minimum, the comparisons, where, neg and abs over float32, bfloat16, int32
// and int8 (broadcast) on the host device and on WebGPU, against a reference computed
// here (JavaScript's float64 arithmetic rounded by Math.fround, then bfloat16's
// rounding to nearest even; Math.imul and floor division for int32); results into
// arrays given (`{ out }`: a strided view, in place); refusals naming the function.
import assert from 'node:assert/strict';
import { step } from './e2e-step.mjs';

export async function operations(page) {
  step('operations: sub, mul, div, maximum, minimum, lt, where, neg, abs');
  const r = await page.evaluate(async () => {
    const nx = window.nxrig;
    const { NxArray, Device } = nx;
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    const bits32 = (x) => {
      f32[0] = x;
      return u32[0];
    };
    // bfloat16 bits of a float32 value, rounded to nearest, ties to even (finite).
    const bf16 = (x) => {
      const b = bits32(x);
      return (b + 0x7fff + ((b >>> 16) & 1)) >>> 16;
    };
    const bfValue = (bits) => {
      u32[0] = bits << 16;
      return f32[0];
    };
    const xs = Float32Array.from({ length: 64 }, (_, i) => Math.fround(((i * 37) % 29) * 0.37 - 4.5));
    const ys = Float32Array.from({ length: 16 }, (_, i) => Math.fround(((i * 11) % 13) * 0.61 - 3.3));
    const pairs = (f) => Array.from(xs, (x, i) => f(x, ys[i % 16]));
    const want = {
      sub: pairs((x, y) => bits32(Math.fround(x - y))),
      mul: pairs((x, y) => bits32(Math.fround(x * y))),
      div: pairs((x, y) => bits32(Math.fround(x / y))),
      maximum: pairs((x, y) => bits32(x > y ? x : y)),
      minimum: pairs((x, y) => bits32(x < y ? x : y)),
      lt: pairs((x, y) => (x < y ? 1 : 0)),
      where: pairs((x, y) => bits32(x < y ? y : x)),
      bfMul: pairs((x, y) => bf16(Math.fround(bfValue(bf16(x)) * bfValue(bf16(y))))),
      bfDiv: pairs((x, y) => bf16(Math.fround(bfValue(bf16(x)) / bfValue(bf16(y))))),
    };
    const ia = Int32Array.from([7, -7, 2 ** 31 - 1, -(2 ** 31), 12345, -1, 0, 9]);
    const ib = Int32Array.from([2, 2, 3, -1, 0, -3, 5, -2]);
    const floor = (a, b) => (b === 0 ? 0 : Math.floor(a / b) | 0);
    want.idiv = Array.from(ia, (a, i) => floor(a, ib[i]));
    want.imul = Array.from(ia, (a, i) => Math.imul(a, ib[i]));
    const out = { devices: [] };
    const u = async (a) => {
      const t = await a.toTypedArray();
      return Array.from(new Uint32Array(t.buffer, t.byteOffset, t.length));
    };
    const list = async (a) => Array.from(await a.toTypedArray(), Number);
    for (const device of [Device.host(), await Device.gpu()]) {
      const name = device.name;
      out.devices.push(name);
      const x = await NxArray.fromTypedArray(xs, 'float32', [4, 16]).toDevice(device);
      const y = await NxArray.fromTypedArray(ys, 'float32', [16]).toDevice(device);
      const got = {};
      for (const op of ['sub', 'mul', 'div', 'maximum', 'minimum']) got[op] = await u(nx[op](x, y));
      const less = nx.lt(x, y);
      got.lt = await list(less);
      got.ltDtype = less.dtype;
      got.where = await u(nx.where(less, y, x));
      const xb = x.cast('bfloat16');
      const yb = y.cast('bfloat16');
      got.bfMul = await list(nx.mul(xb, yb));
      got.bfDiv = await list(nx.div(xb, yb));
      const a = await NxArray.fromTypedArray(ia, 'int32', [8]).toDevice(device);
      const b = await NxArray.fromTypedArray(ib, 'int32', [8]).toDevice(device);
      got.idiv = await list(nx.div(a, b));
      got.imul = await list(nx.mul(a, b));
      const i8 = await NxArray.fromTypedArray(Int8Array.from([-128, -5, 0, 127]), 'int8', [4]).toDevice(device);
      got.neg = await list(nx.neg(i8));
      got.abs = await list(nx.abs(i8));
      // Into arrays given: a column view of a wider array, and in place.
      const wide = NxArray.zeros(device, 'float32', [4, 32]);
      const col = wide.slice([[], [0, 32, 2]]);
      got.outSame = nx.mul(x, y, { out: col }) === col;
      got.outMul = await u(col.copy());
      got.outGaps = (await list(wide.slice([[], [1, 32, 2]]))).every((v) => v === 0);
      const z = x.copy();
      nx.sub(z, y, { out: z });
      got.outSub = await u(z);
      const m = NxArray.zeros(device, 'bool', [4, 16]);
      nx.lt(x, y, { out: m });
      got.outLt = await list(m);
      const w = x.copy();
      nx.where(m, y, w, { out: w });
      got.outWhere = await u(w);
      got.outNeg = await list(nx.neg(i8, { out: i8.copy() }));
      out[name] = got;
    }
    const message = (f) => {
      try {
        f();
        return 'accepted';
      } catch (e) {
        return e instanceof Error ? e.message : `not an Error: ${e}`;
      }
    };
    const t = NxArray.fromTypedArray(Uint8Array.from([1, 0]), 'bool', [2]);
    const f2 = NxArray.zeros(Device.host(), 'float32', [2]);
    out.refused = message(() => nx.sub(t, t));
    out.refusedOut = {
      option: message(() => nx.mul(f2, f2, { into: f2 })),
      notArray: message(() => nx.mul(f2, f2, { out: [f2] })),
      dtype: message(() => nx.mul(f2, f2, { out: NxArray.zeros(Device.host(), 'int32', [2]) })),
      shape: message(() => nx.mul(f2, f2, { out: NxArray.zeros(Device.host(), 'float32', [3]) })),
      notBool: message(() => nx.lt(f2, f2, { out: f2.copy() })),
      number: message(() => nx.sub(f2, 2)),
      count: message(() => nx.sub(f2)),
    };
    out.want = want;
    return out;
  });
  const [host, gpu] = r.devices;
  for (const d of r.devices) {
    const got = r[d];
    for (const op of Object.keys(r.want)) {
      const bad = r.want[op].findIndex((w, i) => w !== got[op][i]);
      assert.equal(bad, -1, `${d}: ${op} element ${bad}: ${got[op]?.[bad]} against ${r.want[op][bad]}`);
    }
    assert.equal(got.ltDtype, 'bool', d);
    assert.deepEqual(got.neg, [-128, 5, 0, -127], `${d}: neg wraps`);
    assert.deepEqual(got.abs, [-128, 5, 0, 127], `${d}: abs wraps`);
    assert.ok(got.outSame, `${d}: { out } returns out`);
    assert.deepEqual(got.outMul, r.want.mul, `${d}: mul into a strided view`);
    assert.ok(got.outGaps, `${d}: the view's neighbours kept`);
    assert.deepEqual(got.outSub, r.want.sub, `${d}: sub in place`);
    assert.deepEqual(got.outLt, r.want.lt, `${d}: lt into bool`);
    assert.deepEqual(got.outWhere, r.want.where, `${d}: where in place`);
    assert.deepEqual(got.outNeg, [-128, 5, 0, -127], `${d}: neg into a copy`);
  }
  assert.deepEqual(r[gpu], r[host], 'WebGPU gives the host\'s bits');
  assert.match(r.refused, /^sub: bool has no subtraction/);
  const said = r.refusedOut;
  assert.match(said.option, /^mul: unknown option 'into' \(expected out\)/);
  assert.match(said.notArray, /^mul: options.out must be an NxArray/);
  assert.match(said.dtype, /^mul: out is int32, where the result is float32/);
  assert.match(said.shape, /^mul: shape mismatch: .* do not broadcast to out \[3\]/);
  assert.match(said.notBool, /^lt: out is float32, where the result is bool/);
  assert.match(said.number, /^sub: argument 2 must be an NxArray, got: 2$/);
  assert.match(said.count, /^sub: expected 2 arrays, then optionally \{ out \}; got 1 argument/);
  console.log(`operations: ${Object.keys(r.want).length + 2} results on ${host} and ${gpu} against the reference, 7 into arrays given, ${Object.keys(said).length + 1} refusals: ok`);
}
