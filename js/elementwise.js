// Elementwise kernels of the user's own: `elementwise({ name, inputs, outputs,
// compute, wgsl, js })` checks its options (an unknown field or a wrong type is an
// Error naming it), makes the kernel once, and gives a function that runs it:
// `await k(x, y)` resolves to the outputs (fresh, the inputs' broadcast shape, on
// their device); `await k(x, y, { out: z })` writes into `z` (arrays given) and
// resolves to them. Calls reject with the compiler's error of a WGSL body (at its
// line), the device's error of the work, or what the `js` body threw. `donate` names
// inputs whose memory an output of their dtype and shape takes where nothing else
// holds it: such an input is then disposed ("donated to kernel ...").
import { Operands, elementwiseKernel, NxArray } from '../pkg/nxrig.js';

const FIELDS = ['name', 'inputs', 'outputs', 'compute', 'wgsl', 'js', 'donate'];
const COMPUTE = ['float32', 'int32', 'uint32'];

function shown(v) {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'function') return 'a function';
  if (Array.isArray(v)) return 'an array';
  return v === null ? 'null' : typeof v === 'object' ? (v.constructor?.name ?? 'an object') : String(v);
}

function strings(v, what) {
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
    throw new Error(`elementwise: options.${what} must be an array of strings ('T x', 'float32 y'), got: ${shown(v)}`);
  }
}

/** The kernel's function, checked: see the module's comment. */
export function declare(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new Error(`elementwise: expected an options object { ${FIELDS.join(', ')} }, got: ${shown(options)}`);
  }
  for (const k of Object.keys(options)) {
    if (!FIELDS.includes(k)) throw new Error(`elementwise: unknown option '${k}' (expected ${FIELDS.join(', ')})`);
  }
  const { name, inputs, outputs, compute = 'float32', wgsl, js, donate = [] } = options;
  if (typeof name !== 'string' || name === '') {
    throw new Error(`elementwise: options.name must be a non-empty string, got: ${shown(name)}`);
  }
  strings(inputs, 'inputs');
  strings(outputs, 'outputs');
  if (!COMPUTE.includes(compute)) {
    throw new Error(`elementwise: options.compute must be one of ${COMPUTE.map((c) => `'${c}'`).join(', ')}, got: ${shown(compute)}`);
  }
  if (wgsl !== undefined && typeof wgsl !== 'string') {
    throw new Error(`elementwise: options.wgsl must be a string of WGSL statements, got: ${shown(wgsl)}`);
  }
  if (js !== undefined && typeof js !== 'function') {
    throw new Error(`elementwise: options.js must be a function (inputs, outputs) => void, got: ${shown(js)}`);
  }
  strings(donate, 'donate');
  const names = inputs.map((d) => d.trim().split(/\s+/).pop());
  for (const n of donate) {
    if (!names.includes(n)) throw new Error(`elementwise: options.donate names ${JSON.stringify(n)}, which is not an input (${names.join(', ')})`);
  }
  if (wgsl === undefined && js === undefined) {
    throw new Error('elementwise: the kernel has no body: give options.wgsl (WebGPU), options.js (the host device) or both');
  }
  const kernel = elementwiseKernel(name, inputs, outputs, compute, wgsl, js, donate);
  const operands = (arrays, what) => {
    const o = new Operands();
    for (const a of arrays) {
      if (!(a instanceof NxArray)) throw new Error(`${name}: ${what} must be NxArrays, got: ${shown(a)}`);
      o.push(a);
    }
    return o;
  };
  const run = async (...args) => {
    let out;
    const last = args[args.length - 1];
    if (args.length === inputs.length + 1 && last !== null && typeof last === 'object' && !(last instanceof NxArray)) {
      args.pop();
      for (const k of Object.keys(last)) {
        if (k !== 'out') throw new Error(`${name}: unknown option '${k}' (expected out)`);
      }
      out = last.out === undefined ? undefined : Array.isArray(last.out) ? last.out : [last.out];
    }
    if (args.length !== inputs.length) {
      throw new Error(`${name}: ${args.length} arrays given, ${inputs.length} inputs declared (${inputs.join(', ')})`);
    }
    const ins = operands(args, 'the inputs');
    if (out === undefined) return kernel.call(ins);
    await kernel.callInto(ins, operands(out, 'options.out'));
    return out;
  };
  Object.defineProperty(run, 'name', { value: name });
  return run;
}
