// Runs benches/web/kernels.html in headless Chromium (WebGPU on SwiftShader, as the
// tests) and prints z = x * y + 1 over 16 M bfloat16 as nxrig's kernel of the user's
// own beside the same computation hand-written in WGSL on a device of its own, and
// nxrig's bfloat16 add beside its float32 add, and the kernel over float32 beside
// TensorFlow.js's tf.add(tf.mul(x, y), 1). Needs `npm run build` and `npm install`.
//     npm run bench:kernels
import { pageResult } from './page.mjs';

const r = await pageResult(`benches/web/kernels.html?reps=${process.env.REPS ?? 5}`);
const b = r.best;
console.log(`WebGPU adapter: ${r.device}; 16 M elements, best of 5 rounds alternating, ms (lower is better)`);
console.log(`the kernel's bits are the hand-written kernel's: ${r.same}; over float32, TF.js's: ${r.tfSame}\n`);
console.log('| way | ms | ratio |');
console.log('| --- | ---: | ---: |');
console.log(`| hand-written WGSL, x * y + 1 over bfloat16 (a device of its own) | ${b.handWritten.toFixed(0)} | 1.00 |`);
console.log(`| nxrig elementwise, \`z = x * y + 1.0;\` over bfloat16 | ${b.kernel.toFixed(0)} | ${(b.kernel / b.handWritten).toFixed(2)} of hand-written |`);
console.log(`| nxrig add, float32 | ${b.addFloat32.toFixed(0)} | 1.00 |`);
console.log(`| nxrig add, bfloat16 | ${b.addBfloat16.toFixed(0)} | ${(b.addBfloat16 / b.addFloat32).toFixed(2)} of float32 |`);
console.log(`| nxrig elementwise, \`z = x * y + 1.0;\` over float32 | ${b.kernelFloat32.toFixed(0)} | 1.00 |`);
console.log(`| TensorFlow.js, \`tf.add(tf.mul(x, y), 1)\` over float32 | ${b.tfjs.toFixed(0)} | ${(b.tfjs / b.kernelFloat32).toFixed(2)} of nxrig's |`);
