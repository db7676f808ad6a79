// Runs benches/web/bench.html in headless Chromium (WebGPU on SwiftShader, as the
// tests) and prints nxrig's and TensorFlow.js's times side by side as a Markdown
// table. Needs `npm run build` and `npm install`.
//     npm run bench
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browser, serve } from '../../www/e2e.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [url, server] = await serve(root);
const b = await browser();
try {
  const page = await b.newPage();
  page.on('console', (m) => console.log(`page: ${m.text()}`));
  await page.goto(`${url}/benches/web/bench.html`);
  const r = await (await page.waitForFunction(() => window.result, null, { timeout: 900000 })).jsonValue();
  if (r.error) throw new Error(r.error);
  console.log(`WebGPU adapter: ${r.device} (native types nxrig uses: ${r.native}); best of 5 rounds (each runs both), ms (lower is better)\n`);
  console.log('| 64 MiB float32 | nxrig | TensorFlow.js | TF.js / nxrig |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const x of r.rows) {
    console.log(`| ${x.name} | ${x.nxrig.toFixed(0)} | ${x.tfjs.toFixed(0)} | ${(x.tfjs / x.nxrig).toFixed(2)}x |`);
  }
  const z = r.subnormal;
  console.log(`\nfloat32 1e-40 + 1e-40 (exactly ${z.exact}): nxrig ${z.nxrig}, TensorFlow.js ${z.tfjs}`);
} finally {
  await b.close();
  server.kill();
}
