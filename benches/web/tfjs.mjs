// Runs benches/web/bench.html in headless Chromium (WebGPU on SwiftShader, as the
// tests) and prints nxrig's and TensorFlow.js's times side by side as a Markdown
// table. Needs `npm run build` and `npm install`.
//     npm run bench
import { pageResult } from './page.mjs';

const r = await pageResult('benches/web/bench.html');
console.log(`WebGPU adapter: ${r.device} (native types nxrig uses: ${r.native}); best of 5 rounds (each runs both), ms (lower is better)\n`);
console.log('| 64 MiB float32 | nxrig | TensorFlow.js | TF.js / nxrig |');
console.log('| --- | ---: | ---: | ---: |');
for (const x of r.rows) {
  console.log(`| ${x.name} | ${x.nxrig.toFixed(0)} | ${x.tfjs.toFixed(0)} | ${(x.tfjs / x.nxrig).toFixed(2)}x |`);
}
const z = r.subnormal;
console.log(`\nfloat32 1e-40 + 1e-40 (exactly ${z.exact}): nxrig ${z.nxrig}, TensorFlow.js ${z.tfjs}`);
