// Entry for browsers, workers and bundlers: the .wasm is fetched from beside
// the glue (web/dist/), never from a CDN.
import { makeLoad } from './load.js';

export { Softmax } from './softmax.js';
export { Sampler } from './sampler.js';
export { lastPosition } from './scores.js';

async function readWasm(url) {
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
  return response.arrayBuffer();
}

// A relative locateFile result resolves against the page (or the worker's script).
const base = () => globalThis.document?.baseURI ?? globalThis.location?.href ?? import.meta.url;

/** Loads the SIMD build where the engine validates SIMD, else the baseline. Memoised. */
export const load = makeLoad(readWasm, base);
