// Raw kernels of the user's own: `rawKernel({ name, inputs, outputs, compute, wgsl })`
// checks its options (an unknown field or a wrong type is an Error naming it), makes
// the kernel once, and gives a function that runs it on WebGPU:
// `await k(x, y, { out: z, workgroups: [n / 64, 1, 1] })` writes into the arrays of
// `out` and resolves to them. `wgsl` is a whole module with its own `@compute fn
// main`, calling nxrig's `load_x(i)`, `store_z(i, v)` and `numel_x()` (element `i` of
// the operand in C order of its shape). Calls reject with the compiler's error of the
// module (at its line) or the device's error of the work.
import { rawKernel as wbgRawKernel, NxArray } from '../pkg/nxrig.js';
import { declared, operands, shown } from './declare.js';

const FIELDS = ['name', 'inputs', 'outputs', 'compute', 'wgsl'];
const CALL = ['out', 'workgroups'];

/** `workgroups` (a count, or one to three) as [x, y, z], checked. */
function grid(name, w) {
  const g = typeof w === 'number' ? [w] : w;
  const whole = (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff;
  if (!Array.isArray(g) || g.length < 1 || g.length > 3 || !g.every(whole)) {
    throw new TypeError(`${name}: options.workgroups must be a count or [x, y, z] of whole numbers, got: ${shown(w)}`);
  }
  return [g[0], g[1] ?? 1, g[2] ?? 1];
}

/** The kernel's function, checked: see the module's comment. */
export function declareRaw(options) {
  const { name, inputs, outputs, compute, wgsl } = declared('rawKernel', options, FIELDS);
  if (typeof wgsl !== 'string') {
    throw new TypeError(`rawKernel: options.wgsl must be a string, a WGSL module with a @compute fn main, got: ${shown(wgsl)}`);
  }
  const kernel = wbgRawKernel(name, inputs, outputs, compute, wgsl);
  const run = async (...args) => {
    const last = args.pop();
    if (last === null || typeof last !== 'object' || last instanceof NxArray || Array.isArray(last)) {
      throw new TypeError(`${name}: the last argument must be { out, workgroups }, got: ${shown(last)}`);
    }
    for (const k of Object.keys(last)) {
      if (!CALL.includes(k)) throw new TypeError(`${name}: unknown option '${k}' (expected ${CALL.join(', ')})`);
    }
    if (args.length !== inputs.length) {
      throw new TypeError(`${name}: ${args.length} arrays given, ${inputs.length} inputs declared (${inputs.join(', ')})`);
    }
    const out = last.out === undefined ? [] : Array.isArray(last.out) ? last.out : [last.out];
    if (out.length !== outputs.length) {
      throw new TypeError(`${name}: options.out has ${out.length} arrays, ${outputs.length} outputs declared (${outputs.join(', ')})`);
    }
    const [x, y, z] = grid(name, last.workgroups);
    await kernel.call(operands(name, args, 'the inputs'), operands(name, out, 'options.out'), x, y, z);
    return out;
  };
  Object.defineProperty(run, 'name', { value: name });
  return run;
}
