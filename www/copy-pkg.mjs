// Copies the wasm-pack build (pkg/) into www/pkg/, which the demo page imports, so
// that `npm start` can serve www/ alone.
import { cpSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(join(root, 'www', 'pkg'), { recursive: true });
for (const f of ['nxrig.js', 'nxrig_bg.wasm', 'nxrig.d.ts', 'nxrig_bg.wasm.d.ts']) {
  cpSync(join(root, 'pkg', f), join(root, 'www', 'pkg', f));
}
