// Copies the package's files (the wasm-pack build in pkg/ and the entry in js/) into
// www/, which the demo page imports as a user imports the package, so that `npm start`
// can serve www/ alone: the package.json `files` of pkg/ and js/ (but the types).
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { files } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const f of files.filter((f) => /^(pkg|js)\/[^/]+\.(js|wasm)$/.test(f) && f !== 'js/node.js')) {
  mkdirSync(join(root, 'www', dirname(f)), { recursive: true });
  cpSync(join(root, f), join(root, 'www', f));
}
