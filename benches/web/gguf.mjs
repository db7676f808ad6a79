// GGUF dequantization into float16 in the browser and in Node, beside llama.cpp's own
// NumPy dequantization (`gguf.quants.dequantize`, then `astype(float16)`) in one run,
// rounds alternating (this machine is shared and noisy): a Q4_K and a Q8_0 file of
// NXRIG_BENCH_MIB (default 256) MiB of blocks made by benches/gguf_dequant.py --make
// (random blocks, finite scales) in a temporary folder, removed after; each converted
// with convertCheckpoint from its File into a stream that drops its bytes, in nxrig's
// Worker (the default) and on the page's thread (worker: false), and in Node from its
// path into a path; NumPy over the same file (nothing written); and a read-only pass
// over the File in the page (its bytes, 64 MiB slices: what no conversion beats). Best of
// NXRIG_BENCH_ROUNDS (default 3) each, seconds. Needs `npm run build` and Python with
// `gguf` (scripts/setup.sh installs it).
//     npm run bench:gguf
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchPage } from './page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const mib = Number(process.env.NXRIG_BENCH_MIB ?? 256);
const rounds = Number(process.env.NXRIG_BENCH_ROUNDS ?? 3);
const script = join(root, 'benches/gguf_dequant.py');
const dir = mkdtempSync(join(tmpdir(), 'nxrig-bench-gguf-'));
const types = ['Q4_K', 'Q8_0'];
try {
  execFileSync('python3', [script, '--make', dir, '--mib', String(mib)]);
  const files = types.map((t) => join(dir, `${t}.gguf`));
  const { page, close } = await benchPage(root, dir);
  await page.setInputFiles('#bench', files);
  const best = {};
  const keep = (k, s) => { best[k] = Math.min(best[k] ?? Infinity, s); };
  for (let r = 0; r < rounds; r++) {
    const got = await page.evaluate(async (n) => {
      const { openCheckpoint, convertCheckpoint } = window.nxrig;
      const out = {};
      for (let k = 0; k < n; k++) {
        const f = document.getElementById('bench').files[k];
        // The File's bytes alone, 64 MiB at a time: the floor of any conversion of it.
        let t = performance.now();
        for (let a = 0; a < f.size; a += 64 << 20) await f.slice(a, a + (64 << 20)).arrayBuffer();
        out[`${k}:read`] = (performance.now() - t) / 1e3;
        for (const [name, worker] of [['worker', true], ['page', false]]) {
          const ck = await openCheckpoint(f);
          t = performance.now();
          await convertCheckpoint(ck, new WritableStream({ write() {} }), { to: 'float16', worker });
          out[`${k}:${name}`] = (performance.now() - t) / 1e3;
          ck.free();
        }
      }
      return out;
    }, types.length);
    for (const [k, v] of Object.entries(got)) keep(k, v);
    for (const [k, t] of types.entries()) {
      let at = Date.now();
      execFileSync(process.execPath, ['--input-type=module', '-e', `
        import { init, openCheckpoint, convertCheckpoint } from ${JSON.stringify(join(root, 'js/node.js'))};
        await init();
        await convertCheckpoint(await openCheckpoint(${JSON.stringify(files[k])}), ${JSON.stringify(join(dir, 'node.safetensors'))}, { to: 'float16' });`]);
      keep(`${k}:node`, (Date.now() - at) / 1e3);
      rmSync(join(dir, 'node.safetensors'), { force: true });
      keep(`${k}:numpy`, Number(execFileSync('python3', [script, '--numpy', files[k], t]).toString()));
    }
  }
  await close();
  const f = (v) => v.toFixed(2);
  console.log(`${mib} MiB of blocks a file, into float16, best of ${rounds} rounds, seconds (lower is better)\n`);
  console.log('| type | bytes in | NumPy | read-only pass (File) | Chromium, Worker | Chromium, page | Node (file written) | NumPy / Worker | NumPy / read-only pass |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [k, t] of types.entries()) {
    const w = best[`${k}:worker`];
    const numpy = best[`${k}:numpy`];
    console.log(`| ${t} | ${statSync(files[k]).size} | ${f(numpy)} | ${f(best[`${k}:read`])} | ${f(w)} | ${f(best[`${k}:page`])} | ${f(best[`${k}:node`])} | ${(numpy / w).toFixed(1)}x | ${(numpy / best[`${k}:read`]).toFixed(1)}x |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
