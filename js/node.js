// nxrig's npm entry for Node (package.json's "node" condition): the browser entry,
// with `init()` and `initSync()` reading the `.wasm` from the package's files when no
// argument is given (Node's fetch cannot read a `file:` URL). Node has no WebGPU:
// `Device.gpu()` rejects at once; host arrays and `.safetensors` files work.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { init as browserInit, initSync as browserInitSync } from './index.js';

export * from './index.js';

const wasm = new URL('../pkg/nxrig_bg.wasm', import.meta.url);

/** Loads nxrig's WebAssembly: with no argument, the package's `.wasm` file. */
export async function init(input) {
  return browserInit(input ?? { module_or_path: await readFile(wasm) });
}

/** `init` at once: with no argument, the package's `.wasm` file. */
export function initSync(input) {
  return browserInitSync(input ?? { module: readFileSync(wasm) });
}

export default init;
