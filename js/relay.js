// The sink a worker converts into where another thread writes: a page's Worker
// (js/worker.js) or a Node worker thread (js/node-worker.js) hands each step of the
// conversion to the thread that started it (js/offload.js), numbered in the
// conversion's order, and waits for its reply.

/**
 * `{ sink, reply }`: `sink` sends each step as `post({ kind: 'sink', id, step, op,
 * args }, transfer)` (a write's bytes transferred, no copy) and resolves or rejects
 * when `reply(message)` is given the answer with that `id`; `sink.skip()` counts a step
 * another worker does, so that every worker numbers the steps alike.
 */
export function relayedSink(post) {
  const replies = new Map();
  let calls = 0;
  let steps = 0;
  const call = (op, args = [], transfer = []) => {
    const id = ++calls;
    const step = ++steps;
    return new Promise((resolve, reject) => {
      replies.set(id, { resolve, reject });
      post({ kind: 'sink', id, step, op, args }, transfer);
    });
  };
  const sink = {
    reserve: (bytes) => call('reserve', [bytes]),
    open: (name) => call('open', [name]),
    write(bytes) {
      // The conversion's bytes are its own: their buffer moves, no copy.
      const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const b = own ? bytes : bytes.slice();
      return call('write', [b], [b.buffer]);
    },
    close: () => call('close'),
    commit: () => call('commit'),
    abort: () => call('abort'),
    skip() {
      steps++;
    },
  };
  const reply = (m) => {
    const r = replies.get(m.id);
    replies.delete(m.id);
    if (m.error) r?.reject(Object.assign(new Error(m.error.message), { name: m.error.name }));
    else r?.resolve();
  };
  return { sink, reply };
}

/** An error as it crosses to another thread (`postMessage` keeps neither its class
 * nor, everywhere, its name): its name and message. */
export function crossing(e) {
  return { name: e?.name ?? 'Error', message: e?.message ?? String(e) };
}
