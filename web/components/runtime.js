// One load() for every widget on a page: the wasm compiles once, whichever
// widget asks first. A page that wants the baseline (non-SIMD) build calls
// configure({ simd: false }) before its widgets connect (see demo/demo.js).
import { load } from '../src/index.js';

let options;
let module;

/** Options passed to load() by every widget of this page. Call before the first widget connects. */
export function configure(opts) {
  if (module) throw new Error('softmax widgets: configure() must run before the first widget loads the module');
  options = opts;
}

/** The loaded softmax-wasm module (a memoised promise). */
export function softmaxModule() {
  module ??= load(options);
  return module;
}
