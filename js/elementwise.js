// Elementwise kernels of the user's own: `elementwise({ name, inputs, outputs,
// compute, wgsl, js })` checks its options (an unknown field or a wrong type is an
// Error naming it), makes the kernel once, and gives a function that runs it:
// `await k(x, y)` resolves to the outputs (fresh, the inputs' broadcast shape, on
// their device); `await k(x, y, { out: z })` writes into `z` (arrays given) and
// resolves to them. Calls reject with the compiler's error of a WGSL body (at its
// line), the device's error of the work, or an Error naming the kernel with what the
// `js` body threw as its cause (a body that returns a Promise is refused). `donate` names
// inputs whose memory an output of their dtype and shape takes where no work holds
// it (the claims): such an input, and every view over its memory, is then dead (a use
// says "donated to kernel ...").
import { elementwiseKernel, NxArray } from '../pkg/nxrig.js';
import { declared, operands, shown, strings } from './declare.js';

const FIELDS = ['name', 'inputs', 'outputs', 'compute', 'wgsl', 'js', 'donate'];

/** The `js` body of the kernel `name` as nxrig calls it: what it throws becomes an
 * Error naming the kernel (the thrown value its `cause`), and a body that returns a
 * Promise (an `async` function, whose work would come after nxrig has read its
 * outputs) is refused. */
function body(name, js) {
  return (ins, outs) => {
    let r;
    try {
      r = js(ins, outs);
    } catch (e) {
      throw new Error(`${name}: its js body threw: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (r !== null && typeof r === 'object' && typeof r.then === 'function') {
      // Its rejection, if any, is this call's error, not an unhandled one.
      r.then(undefined, () => {});
      throw new Error(`${name}: its js body returned a Promise: a body fills its outputs before it returns (no async, no await)`);
    }
  };
}

/** The kernel's function, checked: see the module's comment. */
export function declare(options) {
  const { name, inputs, outputs, compute, wgsl, js, donate = [] } = declared('elementwise', options, FIELDS);
  if (wgsl !== undefined && typeof wgsl !== 'string') {
    throw new TypeError(`elementwise: options.wgsl must be a string of WGSL statements, got: ${shown(wgsl)}`);
  }
  if (js !== undefined && typeof js !== 'function') {
    throw new TypeError(`elementwise: options.js must be a function (inputs, outputs) => void, got: ${shown(js)}`);
  }
  strings('elementwise', donate, 'donate');
  const names = inputs.map((d) => d.trim().split(/\s+/).pop());
  for (const n of donate) {
    if (!names.includes(n)) throw new Error(`elementwise: options.donate names ${JSON.stringify(n)}, which is not an input (${names.join(', ')})`);
  }
  if (wgsl === undefined && js === undefined) {
    throw new Error('elementwise: the kernel has no body: give options.wgsl (WebGPU), options.js (the host device) or both');
  }
  const kernel = elementwiseKernel(name, inputs, outputs, compute, wgsl, js && body(name, js), donate);
  const run = async (...args) => {
    let out;
    const last = args[args.length - 1];
    if (args.length === inputs.length + 1 && last !== null && typeof last === 'object' && !(last instanceof NxArray)) {
      args.pop();
      for (const k of Object.keys(last)) {
        if (k !== 'out') throw new TypeError(`${name}: unknown option '${k}' (expected out)`);
      }
      out = last.out === undefined ? undefined : Array.isArray(last.out) ? last.out : [last.out];
    }
    if (args.length !== inputs.length) {
      throw new TypeError(`${name}: ${args.length} arrays given, ${inputs.length} inputs declared (${inputs.join(', ')})`);
    }
    const ins = operands(name, args, 'the inputs');
    if (out === undefined) return kernel.call(ins);
    await kernel.callInto(ins, operands(name, out, 'options.out'));
    return out;
  };
  Object.defineProperty(run, 'name', { value: name });
  return run;
}
