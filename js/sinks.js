// Where a conversion writes: sinks of the form
//   { open(name), write(bytes), close(), commit(), abort() }
// that nxrig's wasm drives: each file opened, written in order, closed; then every
// file committed at the end, or every one aborted on any error (none of the
// conversion's bytes is kept).
import { checked } from './sources.js';

/** Whether `x` is a `WritableStream` (a `FileSystemWritableFileStream` is one). */
export function isStream(x) {
  return typeof WritableStream !== 'undefined' && x instanceof WritableStream;
}

/** A sink of files each written to its own stream, as `streamOf(name)` gives it (a
 * stream, or a promise of one); the streams are closed at the commit, in order, and
 * aborted on an error. `discard(name)`, where given, removes a file that an abort
 * leaves behind; `beforeCommit(names)`, where given, may refuse the commit (an abort
 * follows). */
export function streamsSink(streamOf, ctx, discard, beforeCommit) {
  const open = [];
  let current = null;
  return {
    async open(name) {
      checked(ctx);
      const stream = await streamOf(name);
      if (!isStream(stream)) {
        throw new Error(`the sink gave no WritableStream for ${name}`);
      }
      current = { name, writer: stream.getWriter() };
      open.push(current);
    },
    async write(bytes) {
      checked(ctx);
      await current.writer.write(bytes);
    },
    async close() {
      current = null;
    },
    async commit() {
      checked(ctx);
      if (beforeCommit) await beforeCommit(open.map((f) => f.name));
      for (const f of open) await f.writer.close();
      open.length = 0;
    },
    async abort() {
      const reason = ctx?.signal?.reason ?? new DOMException('The conversion failed', 'AbortError');
      for (const f of open.splice(0)) {
        await f.writer.abort(reason).catch(() => {});
        if (discard) await discard(f.name).catch(() => {});
      }
    },
  };
}

/** A sink of one file into `stream`. */
export function streamSink(stream, ctx) {
  let given = false;
  const sink = streamsSink((name) => {
    if (given) throw new Error(`${name}: a sharded checkpoint converts into several files: give a FileSystemDirectoryHandle or a function from file name to WritableStream`);
    given = true;
    return stream;
  }, ctx);
  const abort = sink.abort;
  // A conversion stopped before its first byte aborts the caller's stream too: it
  // ends either way.
  sink.abort = async () => {
    await abort();
    if (!given && !stream.locked) await stream.abort(ctx?.signal?.reason ?? new DOMException('The conversion failed', 'AbortError')).catch(() => {});
  };
  return sink;
}

/** A sink of files into a `FileSystemDirectoryHandle` (File System Access or OPFS):
 * each through `createWritable()` (written to a swap file, in place at `close()`);
 * files it made are removed again on an abort. */
export function directorySink(dir, ctx, folder = false) {
  const made = new Set();
  const sink = streamsSink(async (name) => {
    const existed = await dir.getFileHandle(name).then(() => true, () => false);
    const handle = await dir.getFileHandle(name, { create: true });
    if (!existed) made.add(name);
    return handle.createWritable();
  }, ctx, async (name) => {
    if (made.delete(name)) await dir.removeEntry(name);
  }, folder ? (names) => noStaleWeights(dir, names) : undefined);
  sink.reserve = (bytes) => fits(dir, bytes);
  return sink;
}

/** Refuses a conversion writing `bytes` into the folder `dir` where `dir` is in the
 * origin's private file system (OPFS) and the origin's quota has less than that left
 * (`navigator.storage.estimate()`): before a byte is written, the one sentence naming
 * both numbers. Another folder (the user's disk, by the File System Access API) has
 * no quota of the origin's and is not checked. */
async function fits(dir, bytes) {
  const storage = globalThis.navigator?.storage;
  if (typeof storage?.estimate !== 'function' || !(await inOpfs(dir))) return;
  const { usage = 0, quota } = await storage.estimate();
  if (typeof quota !== 'number') return;
  const left = Math.max(0, quota - usage);
  if (bytes > left) {
    throw new Error(`${dir.name || 'the origin private file system'}: the conversion writes ${bytes} bytes and this origin's storage has ${left} bytes left of its quota (navigator.storage.estimate(): ${usage} used of ${quota}); nothing was written`);
  }
}

/** Whether the folder handle `dir` is in the origin's private file system (OPFS). */
export async function inOpfs(dir) {
  const storage = globalThis.navigator?.storage;
  if (typeof storage?.getDirectory !== 'function' || typeof dir?.getFileHandle !== 'function') return false;
  const root = await storage.getDirectory().catch(() => null);
  return root !== null && (await root.resolve(dir).catch(() => null)) !== null;
}

/** A sink of files into the OPFS folder `dir` through sync access handles (in a
 * dedicated Worker only): each file written straight from the bytes it is given (a view
 * of wasm memory: `writesAtOnce`, taken before `write` returns) into a temporary beside
 * it, moved into place at the commit, every temporary removed on an abort. `folder`: a
 * model's folder or a sharded checkpoint (stale weights refused at the commit, as
 * `directorySink` does); `reserve(bytes)` the quota check, as the page's sink makes it. */
export function syncDirectorySink(dir, folder, reserve) {
  const files = [];
  const tag = Math.random().toString(36).slice(2, 10);
  let current = null;
  return {
    writesAtOnce: true,
    reserve,
    async open(name) {
      const tmp = `.nxrig-${tag}-${files.length}.tmp`;
      const handle = await dir.getFileHandle(tmp, { create: true });
      current = { name, tmp, handle, access: null, at: 0 };
      files.push(current);
      current.access = await handle.createSyncAccessHandle();
      current.access.truncate(0);
    },
    write(bytes) {
      let done = 0;
      while (done < bytes.byteLength) {
        const n = current.access.write(bytes.subarray(done), { at: current.at + done });
        if (!(n > 0)) throw new Error(`${current.name}: the write stopped at byte ${current.at + done}`);
        done += n;
      }
      current.at += done;
    },
    async close() {
      current.access.flush();
      current.access.close();
      current.access = null;
      current = null;
    },
    async commit() {
      if (folder) await noStaleWeights(dir, files.map((f) => f.name));
      for (const f of files) {
        await dir.removeEntry(f.name).catch(() => {});
        await f.handle.move(f.name);
      }
      files.length = 0;
    },
    async abort() {
      for (const f of files.splice(0)) {
        try {
          f.access?.close();
        } catch { /* closed */ }
        await dir.removeEntry(f.tmp).catch(() => {});
      }
    },
  };
}

/** Refuses a folder holding weights or an index that a model folder's conversion,
 * writing `names`, does not write (an earlier conversion's shards): a loader would
 * read both. */
async function noStaleWeights(dir, names) {
  const present = [];
  for await (const name of dir.keys()) present.push(name);
  const why = staleWeights(present, names);
  if (why) throw new Error(`${dir.name}: ${why}`);
}

/** Why a folder holding the files `present` may not take a conversion writing
 * `written`: the weights or index files among them it does not write (a loader would
 * read both); `null` where there are none. Node's path sink says the same. */
export function staleWeights(present, written) {
  const w = new Set(written);
  const stale = present.filter((n) => /\.(safetensors|npy)$|\.index\.json$/.test(n) && !w.has(n)).sort();
  if (stale.length === 0) return null;
  const more = stale.length > 1 ? ` and ${stale.length - 1} more weights or index files` : '';
  return `the folder holds ${stale[0]}${more} that this conversion does not write (a loader would read both): remove ${stale.length > 1 ? 'them' : 'it'} or name another folder`;
}

/** How many writes a conversion hands on before it waits for the first of them:
 * the next piece is read and cast while the one before is written. */
const WRITES_AHEAD = 2;

/** `sink` as a conversion drives it: each step first fails with what `checked(ctx)`
 * finds (an abort, what `onProgress` threw); writes passed on in order, one at a time,
 * without waiting for each to finish (at most `WRITES_AHEAD` waiting), a failed one
 * failing the step after it; `open`, `close` and `commit` wait for the writes before
 * them. The bytes written are the conversion's own (never reused), so they may wait. */
export function pipelined(sink, ctx) {
  if (sink.writesAtOnce) {
    // Its writes take the bytes at once: nothing to wait for, nothing to hold.
    const step = (k) => async (...args) => {
      checked(ctx);
      return sink[k](...args);
    };
    return {
      writesAtOnce: true,
      reserve: sink.reserve && step('reserve'),
      open: step('open'),
      write(bytes) {
        checked(ctx);
        return sink.write(bytes);
      },
      close: step('close'),
      commit: step('commit'),
      abort: (...a) => sink.abort(...a),
      skip: sink.skip && step('skip'),
    };
  }
  const queue = [];
  let broken = null;
  const drain = async (n) => {
    while (queue.length > n) await queue.shift();
    if (broken) throw broken.e;
  };
  const step = (k) => async (...args) => {
    checked(ctx);
    await drain(0);
    checked(ctx);
    return sink[k](...args);
  };
  // A write, or a step another Worker does (`skip`), after those before it, without
  // waiting for them (WRITES_AHEAD at most in flight).
  const queued = (k) => async (...args) => {
    checked(ctx);
    await drain(WRITES_AHEAD - 1);
    const before = queue[queue.length - 1];
    queue.push((async () => {
      await before;
      if (broken) return;
      try {
        await sink[k](...args);
      } catch (e) {
        broken ??= { e };
      }
    })());
  };
  return {
    reserve: sink.reserve && (async (bytes) => {
      checked(ctx);
      return sink.reserve(bytes);
    }),
    open: step('open'),
    write: queued('write'),
    skip: sink.skip && queued('skip'),
    close: step('close'),
    commit: step('commit'),
    async abort(...a) {
      await Promise.all(queue.splice(0));
      return sink.abort(...a);
    },
  };
}
