// Entry for Node: the .wasm is read from the package folder.
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { makeLoad } from './load.js';

export { Softmax } from './softmax.js';
export { Sampler } from './sampler.js';
export { lastPosition } from './scores.js';

async function readWasm(url) {
  if (url.protocol === 'file:') return readFile(fileURLToPath(url));
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
  return response.arrayBuffer();
}

// A relative locateFile result resolves against the working directory.
const base = () => pathToFileURL(`${process.cwd()}/`).href;

/** Loads the SIMD build where the engine validates SIMD, else the baseline. Memoised. */
export const load = makeLoad(readWasm, base);
