// The demo page: open a checkpoint (a file, a sharded checkpoint's files or folder, a
// URL, or the sample), list its tensors, convert the floating-point ones into a
// narrower dtype on WebGPU or on the CPU (wasm) a piece at a time with a progress bar
// and a Cancel button, save the files (into the browser's storage and offered for
// download, or where the user picks with the File System Access API), and plot each
// tensor's error over a sample and its throughput.
import init, * as nxrig from './js/index.js';

const $ = (id) => document.getElementById(id);
const state = { ck: null, name: null, gpu: null, abort: null, urls: [] };
/** The elements of each tensor the error is measured over. */
const SAMPLE = 1 << 16;
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

/** A duration in seconds as text. */
function secondsText(s) {
  return s >= 90 ? `${Math.round(s / 60)} min` : `${s.toFixed(s < 10 ? 1 : 0)} s`;
}

/** Opens `source` (what openCheckpoint takes) as the current checkpoint, named `name`
 * in messages, and lists its tensors. */
async function open(source, name) {
  say(`Opening ${name}...`);
  let ck;
  try {
    ck = await nxrig.openCheckpoint(source);
  } catch (e) {
    say(`Cannot read ${name}: ${e.message.replace(/^openCheckpoint: /, '')}`, true);
    $('convert').disabled = true;
    return;
  }
  state.ck?.free();
  Object.assign(state, { ck, name });
  const body = $('tensors').tBodies[0];
  body.replaceChildren();
  for (const t of ck.tensors) {
    const tr = row([[t.name], [t.dtype], [`[${t.shape.join(', ')}]`], [t.byteLength, true], [ck.sharded ? t.shard : ''], [''], ['', true], ['', true]]);
    tr.dataset.name = t.name;
    body.appendChild(tr);
  }
  const files = ck.sharded ? `${ck.files.length} shards, ` : '';
  say(`${name}: ${files}${ck.tensors.length} tensors, ${mb(ck.byteLength)}.`);
  $('convert').disabled = false;
  clearOutputs();
  $('plots').hidden = true;
  $('summary').textContent = '';
  $('progress').value = 0;
  $('rate').textContent = '';
}

function clearOutputs() {
  for (const u of state.urls) URL.revokeObjectURL(u);
  state.urls = [];
  $('downloads').replaceChildren($('download'));
  $('download').hidden = true;
}

/** The files of an input or a drop: one checkpoint's (a file, or an index and its
 * shards). */
function openFiles(files) {
  const list = Array.from(files);
  if (list.length === 0) return;
  const index = list.find((f) => /\.index\.json$/.test(f.name));
  open(list.length === 1 ? list[0] : list, index ? index.name : list.length === 1 ? list[0].name : `${list.length} files`);
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

/** Where the conversion's files go: `[sink, done()]`, `done` giving each file as a
 * `File` to download (empty where the user picked the place). */
async function sinkFor(ck, outName) {
  if ($('save').value === 'picker') {
    if (ck.sharded) {
      if (!window.showDirectoryPicker) throw new Error('this browser cannot save into a folder you pick: save in the browser\'s storage');
      const dir = await window.showDirectoryPicker({ mode: 'readwrite' });
      return [dir, async () => []];
    }
    if (!window.showSaveFilePicker) throw new Error('this browser cannot save where you pick: save in the browser\'s storage');
    const h = await window.showSaveFilePicker({ suggestedName: outName });
    return [await h.createWritable(), async () => []];
  }
  const root = await navigator.storage.getDirectory();
  // A folder of its own a conversion: a file of an earlier one is never overwritten
  // while its download may be under way.
  const dir = await root.getDirectoryHandle(`nxrig-${Date.now()}`, { create: true });
  const files = async () => {
    const out = [];
    for await (const [, h] of dir.entries()) if (h.kind === 'file') out.push(await h.getFile());
    return out.sort((a, b) => a.name.localeCompare(b.name));
  };
  if (ck.sharded) return [dir, files];
  const h = await dir.getFileHandle(outName, { create: true });
  return [await h.createWritable(), files];
}

/** The relative RMS errors of the converted tensors over their first elements: the
 * source's sample against the output's (both read back as float32). */
async function sampleErrors(ck, out, names) {
  const errors = {};
  for (const n of names) {
    const t = ck.tensors.find((x) => x.name === n);
    const count = Math.min(SAMPLE, t.shape.reduce((a, b) => a * b, 1));
    const a = await ck.loadRange(n, 0, count);
    const b = await out.loadRange(n, 0, count);
    const [fa, fb] = [a.cast('float32'), b.cast('float32')];
    errors[n] = rmsError(await fa.toTypedArray(), await fb.toTypedArray());
    for (const x of [a, b, fa, fb]) x.dispose();
  }
  return errors;
}

async function convert() {
  const dtype = $('dtype').value;
  const onGpu = $('device').value === 'webgpu';
  const ck = state.ck;
  let device = nxrig.Device.host();
  if (onGpu) {
    try {
      state.gpu ??= await nxrig.Device.gpu();
      device = state.gpu;
    } catch (e) {
      say(`WebGPU is not available (${e.message}): choose the CPU (wasm).`, true);
      return;
    }
  }
  const outName = ck.sharded ? ck.files[0] : `${state.name.replace(/\.safetensors$/, '')}.${dtype}.safetensors`;
  let sink, files;
  try {
    [sink, files] = await sinkFor(ck, outName);
  } catch (e) {
    if (e.name === 'AbortError') return say('Nothing saved: no place was picked.');
    throw e;
  }
  $('convert').disabled = true;
  $('cancel').hidden = false;
  clearOutputs();
  state.abort = new AbortController();
  const started = performance.now();
  const seen = new Map();
  let last = { at: started, done: 0, tensor: null };
  const tensorRows = new Map([...$('tensors').tBodies[0].rows].map((r) => [r.dataset.name, r]));
  const onProgress = ({ bytesDone, bytesTotal, tensor }) => {
    const now = performance.now();
    const s = seen.get(tensor) ?? { bytes: 0, ms: 0 };
    s.bytes += bytesDone - last.done;
    s.ms += now - last.at;
    seen.set(tensor, s);
    last = { at: now, done: bytesDone, tensor };
    const secs = (now - started) / 1e3;
    const rate = bytesDone / 1e6 / Math.max(secs, 1e-3);
    $('progress').value = bytesTotal ? bytesDone / bytesTotal : 1;
    $('rate').textContent = `${mb(bytesDone)} of ${mb(bytesTotal)}, ${rateText(rate)} MB/s, ${secondsText((bytesTotal - bytesDone) / 1e6 / Math.max(rate, 1e-6))} left`;
    say(`Converting ${tensor}...`);
  };
  let report;
  try {
    report = await nxrig.convertCheckpoint(ck, sink, { to: dtype, device, onProgress, signal: state.abort.signal, fileName: outName });
  } catch (e) {
    $('cancel').hidden = true;
    $('convert').disabled = false;
    if (e.name === 'AbortError') {
      say('Cancelled: nothing was saved.');
      $('progress').value = 0;
      $('rate').textContent = '';
      return;
    }
    throw e;
  }
  $('cancel').hidden = true;
  $('progress').value = 1;
  const wall = (performance.now() - started) / 1e3;
  const made = await files();
  const links = made.map((f) => {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(f);
    state.urls.push(a.href);
    a.download = f.name;
    a.textContent = `Download ${f.name} (${mb(f.size)})`;
    return a;
  });
  if (links.length) {
    // The first keeps the id the page's test clicks.
    links[0].id = 'download';
    $('downloads').replaceChildren(...links.flatMap((a) => [a, ' ']));
  }
  // Each converted tensor's row, and its error over a sample of the output, read back
  // through the same API from the file made.
  const converted = ck.tensors.filter((t) => t.isFloat && t.dtype !== dtype).map((t) => t.name);
  let errors = {};
  if (made.length) {
    const out = await nxrig.openCheckpoint(made.length === 1 && !ck.sharded ? made[0] : made);
    errors = await sampleErrors(ck, out, converted);
    out.free();
  }
  for (const n of converted) {
    const tr = tensorRows.get(n);
    const s = seen.get(n);
    tr.cells[5].textContent = dtype;
    tr.cells[6].textContent = n in errors ? errors[n].toExponential(2) : '';
    tr.cells[7].textContent = s ? rateText(s.bytes / 1e3 / Math.max(s.ms, 1e-3)) : '';
  }
  $('summary').textContent = `${report.converted} tensors converted to ${dtype} on ${device.name} in ${wall.toFixed(2)} s ` +
    `(${rateText(report.bytesIn / 1e6 / wall)} MB/s); ${mb(report.bytesIn)} in, ${mb(report.bytesOut)} out` +
    `${ck.sharded ? `, ${report.files} shards and the index` : ''}.`;
  say(`Done: ${state.name} into ${dtype}.`);
  $('plots').hidden = false;
  barChart($('errors'), converted.map((n) => errors[n] ?? NaN), 'relative RMS error over a sample, one bar a converted tensor', true);
  barChart($('speed'), converted.map((n) => { const s = seen.get(n); return s ? s.bytes / 1e3 / Math.max(s.ms, 1e-3) : NaN; }), 'MB/s, one bar a converted tensor', false);
  $('convert').disabled = false;
  window.nxrigDone = { dtype, converted: report.converted, bytes: report.bytesOut, files: made.map((f) => f.name), progress: $('progress').value };
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
    else openFiles(e.dataTransfer.files);
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
  if (!window.showSaveFilePicker) $('save').options[1].disabled = true;
  $('file').addEventListener('change', (e) => openFiles(e.target.files));
  $('folder').addEventListener('change', (e) => openFiles(e.target.files));
  $('url-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const u = $('url').value.trim();
    if (u) open(u, u);
  });
  $('sample').addEventListener('click', async () => {
    try {
      const r = await fetch('sample.safetensors');
      await open(new Uint8Array(await r.arrayBuffer()), 'sample.safetensors');
    } catch (e) {
      say(`Cannot fetch the sample: ${e.message}`, true);
    }
  });
  $('convert').addEventListener('click', () => convert().catch((e) => {
    say(`The conversion failed: ${e.message.replace(/^convertCheckpoint: /, '')}`, true);
    $('cancel').hidden = true;
    $('convert').disabled = false;
  }));
  $('cancel').addEventListener('click', () => state.abort?.abort());
  // The inputs stay disabled until their handlers are here: a click while the
  // WebAssembly loads would otherwise do nothing.
  for (const id of ['file', 'folder', 'url', 'open-url', 'sample']) $(id).disabled = false;
  window.nxrigReady = true;
}

main().catch((e) => say(`nxrig could not start: ${e.message}`, true));
