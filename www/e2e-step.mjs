// The end-to-end test's step headings: each printed with the seconds the step before it
// took and the run's seconds so far, as scripts/test.sh prints its own steps.
let at = null;

/** Prints `--- s`, after the previous step's seconds (none before the first). */
export function step(s) {
  const now = performance.now();
  if (at !== null) console.log(`--- (${((now - at) / 1000).toFixed(1)} s; ${(now / 1000).toFixed(0)} s in all)`);
  at = now;
  console.log(`--- ${s}`);
}
