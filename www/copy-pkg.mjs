// Copies the package's files (the wasm-pack build in pkg/ and the entry in js/) into
// www/, which the demo page imports as a user imports the package, so that `npm start`
// can serve www/ alone.
import { cpSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const [dir, files] of [['pkg', ['nxrig.js', 'nxrig_bg.wasm']], ['js', ['index.js', 'checkpoint.js', 'sources.js', 'sinks.js', 'interop.js', 'elementwise.js']]]) {
  mkdirSync(join(root, 'www', dir), { recursive: true });
  for (const f of files) cpSync(join(root, dir, f), join(root, 'www', dir, f));
}
