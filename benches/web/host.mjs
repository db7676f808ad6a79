// Runs benches/web/host.html in headless Chromium and prints nxrig's host device
// (wasm), TensorFlow.js's wasm backend and onnxruntime-web's wasm backend side by
// side as a Markdown table, with nxrig's wasm memory. Needs `npm run build` and
// `npm install`.
//     npm run bench:host
import { pageResult } from './page.mjs';

const r = await pageResult('benches/web/host.html');
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
