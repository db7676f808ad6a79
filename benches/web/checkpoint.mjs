// The checkpoint converter's rate in the browser and in Node, side by side in one
// run, rounds alternating (this machine is shared and noisy): convertCheckpoint of a
// File, float32 -> bfloat16, bfloat16 -> float16 and float32 -> float8_e4m3fn, on the
// host (wasm) on the page's thread (worker: false), in nxrig's Worker (the default) and
// in two Workers sharing it (workers: 2), and on WebGPU, into a stream that drops its bytes, beside a read-only pass over the
// same File in the same page (the source's own limit); and in Node convertCheckpoint from a path
// into a path beside `nxrig convert`. Then what each way in the page cost the machine's
// cores: its CPU-seconds busy (from /proc/stat, every process's) a GiB. Checkpoints of NXRIG_BENCH_GIB (default 1) GiB
// made in a temporary folder, removed after. Needs `npm run build` and the release
// `nxrig` (cargo build --release).
//     npm run bench:checkpoint
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
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
  // The machine's CPU-seconds busy (every process's, from /proc/stat; 0 where there
  // is none): what a way costs the cores beside its wall time.
  await page.exposeFunction('nxrigBusy', () => {
    if (!existsSync('/proc/stat')) return 0;
    const t = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
    return (t.reduce((a, b) => a + b, 0) - t[3] - t[4]) / 100;
  });
  const cpu = {};
  for (let r = 0; r < rounds; r++) {
    const got = await page.evaluate(async () => {
      const { openCheckpoint, convertCheckpoint, Device } = window.nxrig;
      const gpu = await Device.gpu();
      const out = {};
      const drop = () => new WritableStream({ write() {} });
      for (const [k, file, to] of [[0, 0, 'bfloat16'], [1, 1, 'float16'], [2, 0, 'float8_e4m3fn']]) {
        const f = document.getElementById('bench').files[file];
        let t = performance.now();
        let busy = await window.nxrigBusy();
        for (let a = 0; a < f.size; a += 64 << 20) await f.slice(a, a + (64 << 20)).arrayBuffer();
        out[`${k}:read`] = f.size / (performance.now() - t) / 1e6;
        out[`cpu:${k}:read`] = [(await window.nxrigBusy()) - busy, (performance.now() - t) / 1e3];
        for (const [name, device, worker, workers] of [['host', Device.host(), false], ['worker', Device.host(), true, 1], ['workers2', Device.host(), true, 2], ['webgpu', gpu, false]]) {
          const ck = await openCheckpoint(f);
          t = performance.now();
          busy = await window.nxrigBusy();
          await convertCheckpoint(ck, drop(), { to, device, worker, workers });
          out[`${k}:${name}`] = f.size / (performance.now() - t) / 1e6;
          out[`cpu:${k}:${name}`] = [(await window.nxrigBusy()) - busy, (performance.now() - t) / 1e3];
          ck.free();
        }
      }
      return out;
    });
    for (const [k, v] of Object.entries(got)) {
      if (k.startsWith('cpu:')) (cpu[k.slice(4)] ??= []).push(v);
      else keep(k, v);
    }
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
  // CPU-seconds a GiB (the median round's) and the cores that kept busy: a way whose
  // CPU-seconds exceed the read-only pass's by X cannot beat read / (1 + X / read's)
  // on cores the read already fills.
  const med = (k) => cpu[k].sort((a, b) => a[0] - b[0])[cpu[k].length >> 1];
  console.log(`\nThe machine's CPU-seconds busy a GiB of input (all its processes; median round), and its cores busy on average (${cpus().length} cores)\n`);
  console.log('| conversion | read-only pass | page | Worker | 2 Workers | WebGPU |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const [k, label] of [[0, 'float32 -> bfloat16'], [1, 'bfloat16 -> float16'], [2, 'float32 -> float8_e4m3fn']]) {
    const cell = (w) => { const [c, wall] = med(`${k}:${w}`); return `${f(c / gib)} (${f(c / wall)})`; };
    console.log(`| ${label} | ${cell('read')} | ${cell('host')} | ${cell('worker')} | ${cell('workers2')} | ${cell('webgpu')} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
