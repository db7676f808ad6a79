// Runs benches/web/interop.html in headless Chromium (WebGPU on SwiftShader, as the
// tests) and prints the three ways side by side: onnxruntime-web's Add alone, nxrig's
// arrays shared with it on one GPUDevice, and the host round trip. Needs `npm run
// build` and `npm install`.
//     npm run bench:interop
import { pageResult } from './page.mjs';

const r = await pageResult('benches/web/interop.html');
const b = r.best;
console.log(`WebGPU adapter: ${r.device}; 16 M float32 (64 MiB) through ORT's Add, best of 5 rounds alternating, ms (lower is better)\n`);
console.log('| way | ms | / ORT alone |');
console.log('| --- | ---: | ---: |');
for (const [k, label] of [['ortAlone', "ORT's Add alone (inputs in its GPU buffers)"], ['shared', "nxrig's arrays shared (gpuBuffer in, fromGpuBuffer out)"], ['hostRoundTrip', 'through the host (read back, CPU tensors, upload)']]) {
  console.log(`| ${label} | ${b[k].toFixed(0)} | ${(b[k] / b.ortAlone).toFixed(2)} |`);
}
