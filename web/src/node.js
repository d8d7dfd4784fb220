// Entry for Node: the .wasm is read from the package folder.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { makeLoad } from './api.js';

export { Softmax } from './api.js';

async function readWasm(url) {
  if (url.protocol === 'file:') return readFile(fileURLToPath(url));
  const response = await fetch(url);
  if (!response.ok) throw new Error(`softmax-wasm: cannot fetch ${url} (HTTP ${response.status})`);
  return response.arrayBuffer();
}

/** Loads the SIMD build where the engine validates SIMD, else the baseline. Memoised. */
export const load = makeLoad(readWasm);
