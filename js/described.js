// What a value is, in an error message's words: the one description every refusal of
// the JavaScript entry uses ("got: ..."). nxrig's own classes are named here, not read
// from `constructor.name`, which a minifier renames.
import { Checkpoint, Device, NxArray, TensorFile } from '../pkg/nxrig.js';

const CLASSES = [
  [NxArray, 'an NxArray'],
  [Device, 'a Device'],
  [Checkpoint, 'a Checkpoint'],
  [TensorFile, 'a TensorFile'],
];

/** `v` as an error message shows it: `"text"`, `5`, `undefined`, `null`, `a function`,
 * `an array`, `an NxArray`, or an object's class (`Map`). */
export function described(v) {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  if (typeof v === 'function') return 'a function';
  if (typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return 'an array';
  for (const [cls, name] of CLASSES) if (v instanceof cls) return name;
  return v.constructor?.name || 'an object';
}

/** The `TypeError` of an argument or option of the wrong type, or an unknown option,
 * given to the function `fn`: nxrig's one convention for option errors (every other
 * refusal is an `Error`), the message starting with the function called. */
export function optionError(fn, message) {
  return new TypeError(`${fn}: ${message}`);
}
