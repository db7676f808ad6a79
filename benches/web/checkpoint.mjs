// The checkpoint converter's rate in the browser and in Node, side by side in one
// run, rounds alternating (this machine is shared and noisy): convertCheckpoint of a
// File, float32 -> bfloat16, bfloat16 -> float16 and float32 -> float8_e4m3fn, on the
// host (wasm) on the page's thread (worker: false), in nxrig's Worker (the default) and
// in two Workers sharing it (workers: 2), and on WebGPU, into a stream that drops its bytes, beside a read-only pass over the
// same File in the same page (the source's own limit); and in Node convertCheckpoint from a path
// into a path beside `nxrig convert`. Checkpoints of NXRIG_BENCH_GIB (default 1) GiB
// made in a temporary folder, removed after. Needs `npm run build` and the release
// `nxrig` (cargo build --release).
//     npm run bench:checkpoint
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeCheckpoint } from '../../www/e2e-checkpoint.mjs';
import { benchPage } from './page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'target/release/nxrig');
const gib = Number(process.env.NXRIG_BENCH_GIB ?? 1);
const rounds = Number(process.env.NXRIG_BENCH_ROUNDS ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'nxrig-bench-'));
const n = Math.round((gib * 2 ** 30) / 4 / 4096) * 4096;
try {
  writeCheckpoint(join(dir, 'f32.safetensors'), [['w', 'F32', [n / 4096, 4096]]]);
  writeCheckpoint(join(dir, 'bf16.safetensors'), [['w', 'BF16', [n / 2048, 4096]]]);
  const { page, close } = await benchPage(root, dir);
  await page.setInputFiles('#bench', [join(dir, 'f32.safetensors'), join(dir, 'bf16.safetensors')]);
  const best = {};
  const keep = (k, gbs) => { best[k] = Math.max(best[k] ?? 0, gbs); };
  for (let r = 0; r < rounds; r++) {
    const got = await page.evaluate(async () => {
      const { openCheckpoint, convertCheckpoint, Device } = window.nxrig;
      const gpu = await Device.gpu();
      const out = {};
      const drop = () => new WritableStream({ write() {} });
      for (const [k, file, to] of [[0, 0, 'bfloat16'], [1, 1, 'float16'], [2, 0, 'float8_e4m3fn']]) {
        const f = document.getElementById('bench').files[file];
        let t = performance.now();
        for (let a = 0; a < f.size; a += 64 << 20) await f.slice(a, a + (64 << 20)).arrayBuffer();
        out[`${k}:read`] = f.size / (performance.now() - t) / 1e6;
        for (const [name, device, worker, workers] of [['host', Device.host(), false], ['worker', Device.host(), true, 1], ['workers2', Device.host(), true, 2], ['webgpu', gpu, false]]) {
          const ck = await openCheckpoint(f);
          t = performance.now();
          await convertCheckpoint(ck, drop(), { to, device, worker, workers });
          out[`${k}:${name}`] = f.size / (performance.now() - t) / 1e6;
          ck.free();
        }
      }
      return out;
    });
    for (const [k, v] of Object.entries(got)) keep(k, v);
    // Node, and nxrig convert, in the same round.
    for (const [file, to, key] of [['f32', 'bfloat16', 'f32'], ['bf16', 'float16', 'bf16'], ['f32', 'float8_e4m3fn', 'e4m3']]) {
      const src = join(dir, `${file}.safetensors`);
      let t = Date.now();
      execFileSync(process.execPath, ['--input-type=module', '-e', `
        import { init, openCheckpoint, convertCheckpoint } from ${JSON.stringify(join(root, 'js/node.js'))};
        await init();
        await convertCheckpoint(await openCheckpoint(${JSON.stringify(src)}), ${JSON.stringify(join(dir, 'node.safetensors'))}, { to: ${JSON.stringify(to)} });`]);
      keep(`${key}:node`, (n * (file === 'f32' ? 4 : 2)) / (Date.now() - t) / 1e6);
      t = Date.now();
      execFileSync(bin, ['convert', src, join(dir, 'cli.safetensors'), '--to', to]);
      keep(`${key}:cli`, (n * (file === 'f32' ? 4 : 2)) / (Date.now() - t) / 1e6);
    }
  }
  await close();
  const f = (v) => v.toFixed(2);
  console.log(`${gib} GiB a checkpoint, best of ${rounds} rounds, GB/s of input (higher is better)\n`);
  console.log('| conversion | read-only pass (File) | host (wasm), page | host, Worker | Worker / read | host, 2 Workers | WebGPU | Node | nxrig convert | Node / CLI |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [k, label, file] of [[0, 'float32 -> bfloat16', 'f32'], [1, 'bfloat16 -> float16', 'bf16'], [2, 'float32 -> float8_e4m3fn', 'e4m3']]) {
    const read = best[`${k}:read`];
    console.log(`| ${label} | ${f(read)} | ${f(best[`${k}:host`])} | ${f(best[`${k}:worker`])} | ${f(best[`${k}:worker`] / read)} | ${f(best[`${k}:workers2`])} | ${f(best[`${k}:webgpu`])} | ${f(best[`${file}:node`])} | ${f(best[`${file}:cli`])} | ${f(best[`${file}:node`] / best[`${file}:cli`])} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
