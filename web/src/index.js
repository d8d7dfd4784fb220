// Entry for browsers, workers and bundlers: the .wasm is fetched from beside
// the glue (web/dist/), never from a CDN.
import { makeLoad } from './api.js';

export { Softmax } from './api.js';

async function readWasm(url) {
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`softmax-wasm: cannot fetch ${url} (HTTP ${response.status})`);
  return response.arrayBuffer();
}

/** Loads the SIMD build where the engine validates SIMD, else the baseline. Memoised. */
export const load = makeLoad(readWasm);
