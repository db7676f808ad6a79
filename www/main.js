// The demo page: load a .safetensors file (picked, dropped, or the sample), list its
// tensors, convert the floating-point ones into a narrower dtype on WebGPU or on the
// CPU (wasm), plot each tensor's error and throughput, and offer the result.
import init, * as nxrig from './js/index.js';

const $ = (id) => document.getElementById(id);
const state = { bytes: null, name: null, file: null, gpu: null };
const FLOATS = new Set(['float16', 'bfloat16', 'float8_e4m3', 'float8_e5m2', 'float32', 'float64']);

function say(text, error = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', error);
}

function mb(bytes) {
  return (bytes / 1e6).toFixed(bytes < 1e6 ? 3 : 1) + ' MB';
}

/** A rate in MB/s with two significant digits below 100 (a small file's 0.41, not 0). */
function rateText(mbPerS) {
  return mbPerS >= 100 ? mbPerS.toFixed(0) : mbPerS.toPrecision(2);
}

function row(cells) {
  const tr = document.createElement('tr');
  for (const [text, num] of cells) {
    const td = document.createElement('td');
    td.textContent = text;
    if (num) td.className = 'num';
    tr.appendChild(td);
  }
  return tr;
}

// Reads `bytes` (an ArrayBuffer) as the current file and lists its tensors.
function load(bytes, name) {
  let file;
  try {
    file = nxrig.loadSafetensors(bytes);
  } catch (e) {
    say(`Cannot read ${name}: ${e.message}`, true);
    $('convert').disabled = true;
    return;
  }
  if (state.file) state.file.free();
  Object.assign(state, { bytes, name, file });
  const body = $('tensors').tBodies[0];
  body.replaceChildren();
  let total = 0;
  for (const n of file.names) {
    const a = file.get(n);
    total += a.byteLength;
    const tr = row([[n], [a.dtype], [`[${a.shape.join(', ')}]`], [a.byteLength, true], [''], ['', true], ['', true]]);
    tr.dataset.name = n;
    body.appendChild(tr);
    a.free();
  }
  say(`${name}: ${file.length} tensors, ${mb(total)}.`);
  $('convert').disabled = false;
  $('download').hidden = true;
  $('plots').hidden = true;
  $('summary').textContent = '';
}

async function loadFile(f) {
  say(`Reading ${f.name}...`);
  load(await f.arrayBuffer(), f.name);
}

// The relative RMS error of `got` against `want` over the values finite in both.
function rmsError(want, got) {
  let se = 0, ss = 0;
  for (let i = 0; i < want.length; i++) {
    const w = want[i], g = got[i];
    if (!Number.isFinite(w) || !Number.isFinite(g)) continue;
    se += (w - g) * (w - g);
    ss += w * w;
  }
  return ss > 0 ? Math.sqrt(se / ss) : Math.sqrt(se);
}

function barChart(canvas, values, label, log) {
  const g = canvas.getContext('2d');
  const { width: w, height: h } = canvas;
  g.clearRect(0, 0, w, h);
  g.font = '12px system-ui';
  g.fillStyle = '#1d1d1f';
  const shown = values.map((v) => (log ? (v > 0 ? Math.log10(v) : NaN) : v));
  const finite = shown.filter(Number.isFinite);
  if (finite.length === 0) return;
  const lo = log ? Math.floor(Math.min(...finite)) : 0;
  const hi = log ? Math.ceil(Math.max(...finite)) : Math.max(...finite) * 1.1;
  const left = 60, bottom = h - 20, top = 10;
  const y = (v) => bottom - ((v - lo) / (hi - lo || 1)) * (bottom - top);
  g.fillText(log ? `1e${hi}` : hi.toPrecision(3), 4, top + 10);
  g.fillText(log ? `1e${lo}` : '0', 4, bottom);
  g.fillText(label, left, h - 4);
  const bw = (w - left - 10) / shown.length;
  g.fillStyle = '#0a66c2';
  shown.forEach((v, i) => {
    if (!Number.isFinite(v)) return;
    g.fillRect(left + i * bw, y(v), Math.max(1, bw - 1), bottom - y(v));
  });
}

async function convert() {
  const dtype = $('dtype').value;
  const onGpu = $('device').value === 'webgpu';
  $('convert').disabled = true;
  $('download').hidden = true;
  const host = nxrig.Device.host();
  let device = host;
  if (onGpu) {
    try {
      state.gpu ??= await nxrig.Device.gpu();
      device = state.gpu;
    } catch (e) {
      say(`WebGPU is not available (${e.message}): choose the CPU (wasm).`, true);
      $('convert').disabled = false;
      return;
    }
  }
  const src = state.file;
  const out = nxrig.loadSafetensors(state.bytes);
  const names = src.names;
  let total = 0;
  for (const n of names) { const a = src.get(n); total += a.byteLength; a.free(); }
  let done = 0, converted = 0, seconds = 0;
  const errors = [], speeds = [];
  const started = performance.now();
  for (const n of names) {
    const a = src.get(n);
    const tr = [...$('tensors').tBodies[0].rows].find((r) => r.dataset.name === n);
    if (FLOATS.has(a.dtype)) {
      const t0 = performance.now();
      const there = device.isGpu ? await a.toDevice(device) : a;
      const c = there.cast(dtype);
      const back = device.isGpu ? await c.toDevice(host) : c;
      const t1 = performance.now();
      out.set(n, back);
      const wantA = a.cast('float32'), gotA = back.cast('float32');
      const err = rmsError(await wantA.toTypedArray(), await gotA.toTypedArray());
      for (const x of new Set([wantA, gotA, c, back])) x.dispose();
      if (there !== a) there.free();
      const rate = a.byteLength / Math.max(t1 - t0, 1e-3) / 1e3;
      errors.push(err);
      speeds.push(rate);
      seconds += (t1 - t0) / 1e3;
      converted += 1;
      tr.cells[4].textContent = dtype;
      tr.cells[5].textContent = err.toExponential(2);
      tr.cells[6].textContent = rateText(rate);
    }
    done += a.byteLength;
    a.free();
    $('progress').value = done / total;
    say(`Converting: ${converted} tensors, ${mb(done)} of ${mb(total)}...`);
  }
  const bytes = out.toBytes();
  out.free();
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  const link = $('download');
  if (link.href) URL.revokeObjectURL(link.href);
  link.href = url;
  link.download = state.name.replace(/\.safetensors$/, '') + `.${dtype}.safetensors`;
  link.textContent = `Download ${link.download} (${mb(bytes.length)})`;
  link.hidden = false;
  const wall = (performance.now() - started) / 1e3;
  $('summary').textContent = `${converted} tensors converted to ${dtype} on ${device.name} in ${wall.toFixed(2)} s ` +
    `(${rateText(total / 1e6 / seconds)} MB/s in the conversions); ${mb(total)} in, ${mb(bytes.length)} out.`;
  say(`Done: ${state.name} into ${dtype}.`);
  $('plots').hidden = false;
  barChart($('errors'), errors, 'relative RMS error, one bar a converted tensor', true);
  barChart($('speed'), speeds, 'MB/s, one bar a converted tensor', false);
  $('convert').disabled = false;
  window.nxrigDone = { dtype, converted, bytes: bytes.length };
}

async function main() {
  // A file dropped while nxrig loads is refused with a word, not opened by the browser.
  const drop = $('drop');
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    if (!window.nxrigReady) say('nxrig is still loading: drop the file again in a moment.');
    else if (e.dataTransfer.files[0]) loadFile(e.dataTransfer.files[0]);
  });
  const wasm = await init();
  window.nxrig = nxrig;
  // The tests read how far wasm memory grew.
  window.nxrigWasmBytes = () => wasm.memory.buffer.byteLength;
  if (!navigator.gpu) {
    $('device').value = 'wasm';
    $('device').options[0].disabled = true;
    say('This browser has no WebGPU: nxrig will convert on the CPU (wasm). Pick a file.');
  } else {
    say(`nxrig ${nxrig.version()} is ready. Pick a file, or use the sample.`);
  }
  $('file').addEventListener('change', (e) => e.target.files[0] && loadFile(e.target.files[0]));
  $('sample').addEventListener('click', async () => {
    const r = await fetch('sample.safetensors');
    load(await r.arrayBuffer(), 'sample.safetensors');
  });
  $('convert').addEventListener('click', () => convert().catch((e) => {
    say(`The conversion failed: ${e.message}`, true);
    $('convert').disabled = false;
  }));
  // The inputs stay disabled until their handlers are here: a click while the
  // WebAssembly loads would otherwise do nothing.
  $('file').disabled = false;
  $('sample').disabled = false;
  window.nxrigReady = true;
}

main().catch((e) => say(`nxrig could not start: ${e.message}`, true));
