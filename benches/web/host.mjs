// Runs benches/web/host.html in headless Chromium and prints nxrig's host device
// (wasm), TensorFlow.js's wasm backend and onnxruntime-web's wasm backend side by
// side as a Markdown table, with nxrig's wasm memory. Needs `npm run build` and
// `npm install`.
//     npm run bench:host
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browser, serve } from '../../www/e2e.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [url, server] = await serve(root);
const b = await browser();
try {
  const page = await b.newPage();
  page.on('console', (m) => console.log(`page: ${m.text()}`));
  await page.goto(`${url}/benches/web/host.html`);
  const r = await (await page.waitForFunction(() => window.result, null, { timeout: 900000 })).jsonValue();
  if (r.error) throw new Error(r.error);
  console.log('best of 5 rounds (each runs all three), ms (lower is better), each including the read back\n');
  console.log('| 64 MiB float32, wasm | nxrig host | TF.js wasm | onnxruntime-web wasm | TF.js / nxrig | ORT / nxrig |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const x of r.rows) {
    const f = (v) => v.toFixed(0);
    console.log(`| ${x.name} | ${f(x.nxrig)} | ${f(x.tfjs)} | ${f(x.ort)} | ${(x.tfjs / x.nxrig).toFixed(2)}x | ${(x.ort / x.nxrig).toFixed(2)}x |`);
  }
  const mib = (b) => (b / 2 ** 20).toFixed(0);
  const m = r.memory;
  console.log(`\nnxrig's wasm memory: ${mib(m.start)} MiB at start, ${mib(m.live)} MiB with its two 64 MiB inputs, ${mib(m.peak)} MiB at the end (wasm memory never shrinks: the peak)`);
} finally {
  await b.close();
  server.kill();
}
