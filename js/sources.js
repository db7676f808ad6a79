// Where a checkpoint's bytes come from: sources of the form
//   { name, size, read(start, end) => Promise<Uint8Array> }
// made from a Blob or File (slice().arrayBuffer(): a piece at a time, never the whole
// file), bytes in memory, or a URL (HTTP Range requests). nxrig's wasm asks each for
// one piece at a time (16 MiB), so memory is bounded by a piece, never by the file.

/** Whether `x` is a source object already (a user's own). */
export function isSource(x) {
  return x !== null && typeof x === 'object' && typeof x.read === 'function' && typeof x.size === 'number';
}

/** The abort check of a conversion's context: throws its reason once aborted, or
 * what the caller's `onProgress` threw once it threw. */
export function checked(ctx) {
  const s = ctx?.signal;
  if (s?.aborted) throw s.reason ?? new DOMException('The conversion was aborted', 'AbortError');
  if (ctx?.failed !== undefined) throw ctx.failed;
}

/** `read(start, end)` that starts reading the range it expects next as it returns
 * one, so that reading overlaps nxrig's work on the piece before (one range ahead, of
 * the same length). Expected next: the range just after, where this one starts where
 * the one before ended (a conversion reads a tensor's pieces in order, and tensors
 * that follow each other); else as far past this start as it is past the one before
 * (in a share of `workers`, the piece `workers` on). A read of another range drops the
 * one read ahead. */
export function readingAhead(read, size) {
  let next = null;
  let last = null;
  return (start, end) => {
    const p = next && next.start === start && next.end === end ? next.promise : read(start, end);
    next = null;
    const len = end - start;
    const at = last && start !== last.end && start > last.start ? start + (start - last.start) : end;
    last = { start, end };
    if (len >= 1 << 20 && at < size) {
      const stop = Math.min(size, at + len);
      const promise = read(at, stop);
      promise.catch(() => {});
      next = { start: at, end: stop, promise };
    }
    return p;
  };
}

/** A source over a `Blob` or `File`. */
export function blobSource(blob, name, ctx) {
  const read = readingAhead(async (start, end) => new Uint8Array(await blob.slice(start, end).arrayBuffer()), blob.size);
  return {
    name: name ?? blob.name ?? 'checkpoint.safetensors',
    size: blob.size,
    async read(start, end) {
      checked(ctx);
      return read(start, end);
    },
  };
}

/** `.npy`'s magic string, `\x93NUMPY`. */
const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];

/** A source over bytes in memory (an `ArrayBuffer` or a view of one), named
 * `checkpoint.npy` where they begin with `.npy`'s magic string, else
 * `checkpoint.safetensors`, unless `name` is given. */
export function bytesSource(bytes, name) {
  const u8 = bytes instanceof ArrayBuffer
    ? new Uint8Array(bytes)
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const npy = NPY_MAGIC.every((b, i) => u8[i] === b);
  return {
    name: name ?? (npy ? 'checkpoint.npy' : 'checkpoint.safetensors'),
    size: u8.byteLength,
    async read(start, end) {
      return u8.subarray(start, end);
    },
  };
}

/** The error of a URL source: one sentence naming the URL. */
function urlError(url, reason, cause) {
  return new Error(`${url}: ${reason}`, cause ? { cause } : undefined);
}

/** `fetch` with the caller's `requestInit` and the conversion's signal; a network or
 * CORS failure as an Error naming the URL. */
async function get(url, init, ctx, headers) {
  checked(ctx);
  try {
    return await fetch(url, {
      // Not the HTTP cache, unless the caller says so: a browser answers a Range
      // request from a cached whole response, and where that response was compressed
      // (a development server's gzip) its ranges are the compressed bytes'.
      cache: 'no-store',
      ...init,
      headers: { ...(init?.headers ?? {}), ...headers },
      signal: ctx?.signal ?? init?.signal,
    });
  } catch (e) {
    checked(ctx);
    throw urlError(url, `the request failed (a network error, or a server that does not allow this origin by CORS): ${e.message}`, e);
  }
}

/** A source over a URL, read with HTTP Range requests. The first request (the first 8
 * bytes: a `bytes=0-0` is answered with the whole file by some servers, Vite's among
 * them) finds the size (`Content-Range`) and the version (`ETag`, `Last-Modified`); a
 * server that ignores Range (a 200 with the whole body) is refused at once, its body
 * never read; every later read checks its status, its range, its length and the
 * version, and reads no more of a body than the range it asked for.
 * `missing`: `undefined` where the server has no such file (404, or an HTML page in its
 * place: a development server's fallback), not an error. */
export async function urlSource(url, init, ctx, { missing = false } = {}) {
  const href = String(url);
  const r = await get(href, init, ctx, { Range: 'bytes=0-7' });
  if (missing && r.status === 404) {
    await r.body?.cancel().catch(() => {});
    return undefined;
  }
  // A development server's fallback page (a single-page app's index.html, 200)
  // for a file it does not have: no checkpoint's file is an HTML page.
  if ((r.status === 200 || r.status === 206) && /^text\/html\b/i.test(r.headers.get('content-type') ?? '')) {
    await r.body?.cancel().catch(() => {});
    if (missing) return undefined;
    throw urlError(href, 'the server answered with an HTML page, not the file (a development server\'s fallback page for a file it does not have)');
  }
  if (r.status === 200) {
    await r.body?.cancel().catch(() => {});
    throw urlError(href, 'the server ignores HTTP Range requests (it answered 200 with the whole file); nxrig reads a checkpoint a piece at a time and does not download it whole: serve it from a server that answers Range with 206');
  }
  if (r.status === 416) {
    await r.body?.cancel().catch(() => {});
    return emptyUrl(href);
  }
  if (r.status !== 206) {
    await r.body?.cancel().catch(() => {});
    throw urlError(href, `the server answered ${r.status} ${r.statusText} to a Range request`);
  }
  await bodyBytes(r, 8);
  const range = /\/(\d+)\s*$/.exec(r.headers.get('content-range') ?? '');
  if (!range) {
    throw urlError(href, 'the server gave no Content-Range with the file\'s size (a cross-origin server must expose it: Access-Control-Expose-Headers: Content-Range)');
  }
  const version = (h) => h.get('etag') ?? h.get('last-modified');
  const first = version(r.headers);
  const size = Number(range[1]);
  const ahead = readingAhead((start, end) => readRange(start, end), size);
  return {
    name: href,
    size,
    async read(start, end) {
      checked(ctx);
      return ahead(start, end);
    },
  };

  async function readRange(start, end) {
    if (end <= start) return new Uint8Array(0);
    const p = await get(href, init, ctx, { Range: `bytes=${start}-${end - 1}` });
    if (p.status !== 206) {
      await p.body?.cancel().catch(() => {});
      throw urlError(href, `bytes ${start}-${end - 1}: the server answered ${p.status} ${p.statusText}, not 206`);
    }
    const v = version(p.headers);
    if (first && v && v !== first) {
      await p.body?.cancel().catch(() => {});
      throw urlError(href, `the file changed while it was read (its version went from ${first} to ${v})`);
    }
    const got = /bytes (\d+)-(\d+)\/(\d+)/.exec(p.headers.get('content-range') ?? '');
    if (got && (Number(got[1]) !== start || Number(got[3]) !== size)) {
      await p.body?.cancel().catch(() => {});
      throw urlError(href, `bytes ${start}-${end - 1}: the server sent ${got[0]}`);
    }
    let bytes;
    try {
      bytes = await bodyBytes(p, end - start);
    } catch (e) {
      checked(ctx);
      throw urlError(href, `bytes ${start}-${end - 1}: the body broke off: ${e.message}`, e);
    }
    if (bytes.byteLength !== end - start) {
      throw urlError(href, `bytes ${start}-${end - 1}: a short body (${bytes.byteLength} bytes of ${end - start})`);
    }
    return bytes;
  }
}

/** At most the first `n` bytes of a response's body, as one `Uint8Array`. A body whose
 * Content-Length is at most `n` is read whole; another (a range larger than asked for,
 * or no length) is read as a stream up to `n` bytes, and the rest cancelled, unread. */
async function bodyBytes(r, n) {
  const length = r.headers.get('content-length');
  if (!r.body || (length !== null && Number(length) <= n)) return new Uint8Array(await r.arrayBuffer());
  const reader = r.body.getReader();
  const parts = [];
  let got = 0;
  let done = false;
  while (got < n && !done) {
    const next = await reader.read();
    done = next.done;
    if (!done) {
      parts.push(next.value);
      got += next.value.byteLength;
    }
  }
  // Exactly `n`: the end is likely next (a body of unknown length); more: cancelled.
  if (!done && got === n) {
    const next = await reader.read();
    done = next.done;
    if (!done) got += next.value.byteLength;
  }
  if (!done) await reader.cancel().catch(() => {});
  const out = new Uint8Array(Math.min(got, n));
  let at = 0;
  for (const p of parts) {
    if (at === out.byteLength) break;
    const take = Math.min(p.byteLength, out.byteLength - at);
    out.set(take === p.byteLength ? p : p.subarray(0, take), at);
    at += take;
  }
  return out;
}

function emptyUrl(href) {
  return { name: href, size: 0, async read() { return new Uint8Array(0); } };
}

/** The text of a sharded checkpoint's index at `url` (at most 100 MB). */
export async function urlText(url, init, ctx) {
  const href = String(url);
  const r = await get(href, init, ctx, {});
  if (!r.ok) throw urlError(href, `the server answered ${r.status} ${r.statusText}`);
  const n = Number(r.headers.get('content-length') ?? 0);
  if (n > 100_000_000) throw urlError(href, `an index of ${n} bytes: more than nxrig reads (100 MB)`);
  return r.text();
}
