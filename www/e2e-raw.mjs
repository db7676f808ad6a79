// Raw kernels from JavaScript, in the demo page: a whole WGSL module over nxrig's
// `load_x(i)`, `store_z(i, v)` and `numel_x()` on WebGPU: a reversal of a strided
// bfloat16 view times 2 beside an int32 prefix of another shape, against a reference
// computed here (bfloat16 values doubled are exact: the exponent moves); every option
// and call checked, a module's WGSL error at its line, the host device refused.
import assert from 'node:assert/strict';
import { step } from './e2e-step.mjs';

export async function rawKernels(page) {
  step('raw kernels: rawKernel({ name, inputs, outputs, compute, wgsl })');
  const r = await page.evaluate(async () => {
    const { NxArray, Device, rawKernel } = window.nxrig;
    const gpu = await Device.gpu();
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    const value = (bits) => {
      u32[0] = bits << 16;
      return f32[0];
    };
    const reverse = rawKernel({
      name: 'reverse2',
      inputs: ['T x', 'int32 k'],
      outputs: ['T z', 'int32 total'],
      wgsl: `@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    store_z(i, load_x(numel_x() - 1u - i) * 2.0);
    if (i == 0u) {
        var s = 0.0;
        for (var j = 0u; j < numel_k(); j = j + 1u) { s = s + load_k(j); }
        store_total(0u, s);
    }
}`,
    });
    const n = 300;
    const xs = Float32Array.from({ length: 2 * n }, (_, i) => value(0x3e00 + ((i * 37) % 0x300)));
    const x = await NxArray.fromTypedArray(xs, 'float32', [2 * n]).cast('bfloat16').toDevice(gpu);
    const k = await NxArray.fromTypedArray(Int32Array.from([1, 2, 3, 4, 5, 6]), 'int32', [2, 3]).toDevice(gpu);
    const z = NxArray.zeros(gpu, 'bfloat16', [n]);
    const total = NxArray.zeros(gpu, 'int32', [1]);
    const back = await reverse(x.slice([[0, 2 * n, 2]]), k.slice([[], [0, 3, 2]]), { out: [z, total], workgroups: Math.ceil(n / 64) });
    const bits = Array.from(await z.toTypedArray());
    const want = Array.from({ length: n }, (_, i) => {
      f32[0] = xs[2 * (n - 1 - i)] * 2;
      return u32[0] >>> 16;
    });
    const message = async (f) => {
      try {
        await f();
        return 'accepted';
      } catch (e) {
        return e instanceof Error ? e.message : `not an Error: ${e}`;
      }
    };
    const decl = { name: 'r', inputs: ['T x'], outputs: ['T z'], wgsl: '@compute @workgroup_size(1) fn main() { store_z(0u, load_x(0u)); }' };
    const one = rawKernel(decl);
    const a = NxArray.zeros(gpu, 'float32', [2]);
    return {
      same: bits.every((b, i) => b === want[i]),
      first: [bits[0], want[0]],
      total: Array.from(await total.toTypedArray()),
      resolved: back.length === 2 && back[0] === z && back[1] === total,
      refused: {
        unknown: await message(() => rawKernel({ ...decl, body: '' })),
        wgsl: await message(() => rawKernel({ ...decl, wgsl: 5 })),
        compute: await message(() => rawKernel({ ...decl, compute: 'float16' })),
        last: await message(() => one(a, a)),
        option: await message(() => one(a, { out: a, workgroups: 1, groups: 1 })),
        outs: await message(() => one(a, { out: [], workgroups: 1 })),
        grid: await message(() => one(a, { out: a.copy(), workgroups: [1, 2, 3, 4] })),
        count: await message(() => one({ out: a, workgroups: 1 })),
        typo: await message(() => rawKernel({ ...decl, name: 'typo', wgsl: '@compute @workgroup_size(1)\nfn main() {\n  store_z(0u, load_x(0u) * );\n}' })(
          a, { out: a.copy(), workgroups: 1 })),
        host: await message(() => one(NxArray.zeros(Device.host(), 'float32', [2]), { out: NxArray.zeros(Device.host(), 'float32', [2]), workgroups: 1 })),
      },
    };
  });
  assert.ok(r.same, `the reversal times 2 against the reference (first ${r.first})`);
  assert.deepEqual(r.total, [1 + 3 + 4 + 6], 'the int32 sum over a strided view of another shape');
  assert.ok(r.resolved, 'resolves to the arrays of out');
  const said = r.refused;
  assert.match(said.unknown, /^rawKernel: unknown option 'body'/);
  assert.match(said.wgsl, /^rawKernel: options.wgsl must be a string/);
  assert.match(said.compute, /^rawKernel: options.compute must be one of/);
  assert.match(said.last, /^r: the last argument must be \{ out, workgroups \}/);
  assert.match(said.option, /^r: unknown option 'groups'/);
  assert.match(said.outs, /^r: options.out has 0 arrays, 1 outputs declared/);
  assert.match(said.grid, /^r: options.workgroups must be a count or \[x, y, z\]/);
  assert.match(said.count, /^r: 0 arrays given, 1 inputs declared/);
  assert.match(said.typo, /^typo: its WGSL does not compile: line 3 of the WGSL module/);
  assert.match(said.host, /^r: a raw kernel runs on GPUs through wgpu, and its operands are on host/);
  console.log(`raw kernels: a reversal over bfloat16 and an int32 sum on WebGPU, ${Object.keys(said).length} refusals: ok`);
}
