// What `elementwise` (js/elementwise.js) and `rawKernel` (js/raw.js) check alike: the
// options object and its common fields (an unknown field or a wrong type is an Error
// naming the function), and a call's arrays gathered for wasm-bindgen.
import { Operands, NxArray } from '../pkg/nxrig.js';
import { described } from './described.js';

/** The compute types a kernel's bodies may have. */
export const COMPUTE = ['float32', 'int32', 'uint32'];

/** `v` as an error message shows it. */
export const shown = described;

/** Throws naming `fn` unless `v` (options.`what`) is an array of strings. */
export function strings(fn, v, what) {
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
    throw new TypeError(`${fn}: options.${what} must be an array of strings ('T x', 'float32 y'), got: ${shown(v)}`);
  }
}

/**
 * `options` of the function `fn` checked: an object with no field but `fields`, a
 * non-empty `name`, `inputs` and `outputs` of strings, `compute` one of COMPUTE
 * (`'float32'` where not given). Returns the options with `compute` set.
 */
export function declared(fn, options, fields) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${fn}: expected an options object { ${fields.join(', ')} }, got: ${shown(options)}`);
  }
  for (const k of Object.keys(options)) {
    if (!fields.includes(k)) throw new TypeError(`${fn}: unknown option '${k}' (expected ${fields.join(', ')})`);
  }
  const { name, inputs, outputs, compute = 'float32' } = options;
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`${fn}: options.name must be a non-empty string, got: ${shown(name)}`);
  }
  strings(fn, inputs, 'inputs');
  strings(fn, outputs, 'outputs');
  if (!COMPUTE.includes(compute)) {
    throw new TypeError(`${fn}: options.compute must be one of ${COMPUTE.map((c) => `'${c}'`).join(', ')}, got: ${shown(compute)}`);
  }
  return { ...options, compute };
}

/** `arrays` as the kernel `name` takes them; `what` names them in its errors. */
export function operands(name, arrays, what) {
  const o = new Operands();
  for (const a of arrays) {
    if (!(a instanceof NxArray)) throw new TypeError(`${name}: ${what} must be NxArrays, got: ${shown(a)}`);
    o.push(a);
  }
  return o;
}
