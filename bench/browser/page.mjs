// The browser half of `npm run bench -- --browsers`: softmax-wasm (both builds)
// beside TF.js's wasm backend (XNNPACK, SIMD, one thread), and the sampler
// configurations, timed in the page with the Node benchmark's timing loop
// (bench/timing.mjs). bench/browsers.mjs serves this page cross-origin isolated
// (so performance.now() ticks in microseconds, not 100 µs or 1 ms) and calls
// window.bench.* one cell set at a time; each call resolves to plain numbers.
//
// Outputs are preallocated wherever the API allows it: a fresh output array
// per call mostly measures the page faults of new memory (~11 µs per 4 KiB
// on the machines this ran on), not the softmax.
import createSimd from '../../web/dist/softmax-simd.js';
import { load } from '../../web/src/index.js';
import { timeBinding } from '../binding.mjs';
import { makeTimer, normalScores, SAMPLER_CONFIGS, SAMPLER_N } from '../timing.mjs';

const tf = globalThis.tf;
const state = {};

/** The obvious softmax, into a preallocated output. */
function obviousSoftmax(x, rows, n, y) {
  for (let r = 0; r < rows; r++) {
    const o = r * n;
    let m = -Infinity;
    for (let i = 0; i < n; i++) if (x[o + i] > m) m = x[o + i];
    let s = 0;
    for (let i = 0; i < n; i++) s += y[o + i] = Math.exp(x[o + i] - m);
    for (let i = 0; i < n; i++) y[o + i] /= s;
  }
  return y;
}

/** The smallest step of performance.now() seen in 200 ms, in µs. */
function timerStep() {
  let step = Infinity;
  const end = performance.now() + 200;
  let last = performance.now();
  while (last < end) {
    const t = performance.now();
    if (t > last) {
      step = Math.min(step, t - last);
      last = t;
    }
  }
  return step * 1000;
}

async function setup({ rounds, quick }) {
  state.timer = makeTimer(quick ? { rounds, samples: 5, sampleMs: 1, warmMs: 10 } : { rounds });
  state.simd = await load({ simd: true });
  state.base = await load({ simd: false });
  let tfInfo = null;
  if (tf?.wasm) {
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false); // one thread, as ours
    tf.env().set('WASM_HAS_SIMD_SUPPORT', true);
    tf.wasm.setWasmPaths(new URL('../node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url).href);
    if (await tf.setBackend('wasm')) {
      await tf.ready();
      state.tf = tf;
      tfInfo = { version: tf.version_core, simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'), threads: tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT') };
    }
  }
  return { userAgent: navigator.userAgent, crossOriginIsolated: globalThis.crossOriginIsolated === true, timerStepUs: timerStep(), tf: tfInfo, simd: state.simd.simd };
}

/** One softmax size: resolves to { name: µs } and the largest |ours - TF.js| seen. */
async function softmax({ rows, n, seed }) {
  const { simd, base } = state;
  const len = rows * n;
  const x = normalScores(len, seed);
  const shapeOpt = rows === 1 ? {} : { shape: [rows, n] };
  const e = [];
  const add = (name, run) => e.push({ name, run });
  const outSimd = new Float32Array(len);
  const withOutSimd = { ...shapeOpt, out: outSimd };
  add('ours SIMD, `out`', () => simd.softmax(x, withOutSimd));
  const buf = simd.buffer(len);
  buf.set(x);
  const inPlace = { ...shapeOpt, out: buf };
  add('ours SIMD, `sm.buffer(n)` in place (kernel only)', () => simd.softmax(buf, inPlace));
  const withOutBase = { ...shapeOpt, out: new Float32Array(len) };
  add('ours baseline, `out`', () => base.softmax(x, withOutBase));
  const obvious = new Float32Array(len);
  add('obvious JS (max, Math.exp, divide loops), preallocated output', () => obviousSoftmax(x, rows, n, obvious));
  let t;
  let diff = null;
  if (state.tf) {
    const backend = tf.backend();
    t = tf.tensor(x, rows === 1 ? [n] : [rows, n], 'float32');
    const tfOut = new Float32Array(len);
    add('TF.js wasm: `tf.softmax` alone (tensor on backend, result left in wasm memory)', () => {
      const y = tf.softmax(t);
      y.dispose();
      return 1;
    });
    add('TF.js wasm: `tf.softmax` + copy out into a preallocated array', () => {
      const y = tf.softmax(t);
      tfOut.set(backend.typedArrayFromHeap(y));
      y.dispose();
      return tfOut;
    });
    add('TF.js wasm: `tf.softmax` + `dataSync` (a fresh array per call)', () => {
      const y = tf.softmax(t);
      const d = y.dataSync();
      y.dispose();
      return d;
    });
    const ours = simd.softmax(x, shapeOpt);
    const y = tf.softmax(t);
    const theirs = y.dataSync();
    y.dispose();
    diff = 0;
    for (let i = 0; i < len; i++) diff = Math.max(diff, Math.abs(ours[i] - theirs[i]));
  }
  const best = await state.timer.timeInterleaved(e);
  t?.dispose();
  return { us: Object.fromEntries(best), maxAbsDiffVsTf: diff };
}

/** One sampler configuration at N = SAMPLER_N: ours (both builds) and one softmax (greedy: argmax) each. */
async function sampler({ index, seed }) {
  const [label, opts] = SAMPLER_CONFIGS[index];
  const greedy = opts.temperature === 0;
  const x = normalScores(SAMPLER_N, seed);
  const e = [];
  const samplers = [];
  for (const [sm, build] of [[state.simd, 'SIMD'], [state.base, 'baseline']]) {
    const s = sm.createSampler({ seed: 42, ...opts });
    samplers.push(s);
    e.push({ name: `ours ${build}`, run: () => s.sample(x) });
    const withOut = { out: new Float32Array(SAMPLER_N) };
    e.push({ name: `reference ${build}`, run: greedy ? () => sm.argmax(x) : () => sm.softmax(x, withOut) });
  }
  const best = await state.timer.timeInterleaved(e);
  for (const s of samplers) s.dispose();
  return { label, greedy, us: Object.fromEntries(best) };
}

/** The binding rows (bench/binding.mjs): Embind against a direct wasm call, ns. */
async function binding({ rounds, quick }) {
  const wasmModule = await WebAssembly.compileStreaming(fetch(new URL('../../web/dist/softmax-simd.wasm', import.meta.url)));
  const timer = makeTimer(quick ? { rounds, samples: 5, sampleMs: 1, warmMs: 10 } : { rounds });
  return timeBinding(state.simd, { create: createSimd, wasmModule }, timer);
}

window.bench = { setup, softmax, sampler, binding, configs: SAMPLER_CONFIGS.length };
document.documentElement.dataset.ready = '1';
