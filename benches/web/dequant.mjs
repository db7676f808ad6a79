// Dequantizing block-scaled checkpoints in the browser and in Node, beside a plain
// cast of the same bytes, side by side in one run, rounds alternating (this machine is
// shared and noisy): convertCheckpoint of a model folder's Files (DeepSeek-V3's FP8
// blocks, gpt-oss' MXFP4 experts, from benches/dequant.py --make) into bfloat16 on the
// host (wasm), into streams that drop their bytes, against the same of its plain twin
// (the same weights without scales, cast float8_e4m3fn or float4_e2m1fn -> bfloat16);
// in Node the same from paths. Folders of NXRIG_BENCH_GIB (default 1) GiB made in a
// temporary folder, removed after. Needs `npm run build`.
//     npm run bench:dequant
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchPage } from './page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const gib = Number(process.env.NXRIG_BENCH_GIB ?? 1);
const rounds = Number(process.env.NXRIG_BENCH_ROUNDS ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'nxrig-bench-dq-'));
const PAIRS = [['fp8-block', 'fp8-cast'], ['mxfp4', 'mxfp4-cast']];

try {
  execFileSync('python3', [join(root, 'benches/dequant.py'), '--gib', String(gib), '--make', dir], { stdio: 'inherit' });
  const { page, close } = await benchPage(root, dir);
  const browser = async (name) => {
    await page.setInputFiles('#bench', readdirSync(join(dir, name)).map((f) => join(dir, name, f)));
    return page.evaluate(async () => {
      const { openCheckpoint, convertCheckpoint } = window.nxrig;
      const ck = await openCheckpoint(document.getElementById('bench').files);
      const drop = () => new WritableStream({ write() {} });
      const t = performance.now();
      const r = await convertCheckpoint(ck, ck.folder ? drop : drop(), { to: 'bfloat16' });
      const s = (performance.now() - t) / 1000;
      ck.dispose();
      return [s, r.bytesIn, r.dequantized];
    });
  };
  const node = await import(join(root, 'js/node.js'));
  await node.init();
  const inNode = async (name) => {
    const ck = await node.openCheckpoint(join(dir, name));
    const drop = () => new WritableStream({ write() {} });
    const t = performance.now();
    const r = await node.convertCheckpoint(ck, ck.folder ? drop : drop(), { to: 'bfloat16' });
    const s = (performance.now() - t) / 1000;
    ck.dispose();
    return [s, r.bytesIn, r.dequantized];
  };
  console.log('where     scheme      bytes in   dequant s   cast s   dequant/cast   GB/s in');
  for (const [where, run] of [['browser', browser], ['Node', inNode]]) {
    for (const [scheme, twin] of PAIRS) {
      const best = { dequant: Infinity, cast: Infinity };
      let bytes = 0;
      for (let i = 0; i < rounds; i++) {
        const [d, b, n] = await run(scheme);
        if (n < 1) throw new Error(`${scheme}: nothing dequantized`);
        best.dequant = Math.min(best.dequant, d);
        bytes = b;
        best.cast = Math.min(best.cast, (await run(twin))[0]);
      }
      console.log(`${where.padEnd(9)} ${scheme.padEnd(10)} ${String(bytes).padStart(11)} ${best.dequant.toFixed(3).padStart(10)} ${best.cast.toFixed(3).padStart(8)} ${(best.dequant / best.cast).toFixed(2).padStart(13)}x ${(bytes / best.dequant / 1e9).toFixed(2).padStart(8)}`);
    }
  }
  await close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
