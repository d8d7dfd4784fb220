// Soak test: N mixed calls (default 1,000,000) in one process, valid
// and invalid, sizes from 0 to 150k, samplers created and disposed and some only
// dropped for the garbage collector (web/src/sampler.js frees those through a
// FinalizationRegistry). Checks, and prints:
//   - the wasm memory returns to (stays within) 1 MiB of its size after warm-up;
//   - no sampler handle is left: every C++ Sampler constructed is deleted. The
//     bindings are plain C exports now (no Embind), so the script counts the
//     module's smx_sampler_new / smx_sampler_delete calls (what Embind 3.1.6
//     would offer, count_emval_handles() and getInheritedInstanceCount(), is
//     printed when the module has it).
//   - the process RSS is stable (start and end printed; end <= start + 64 MiB);
//   - softmax([2, 1, 0]) stays right (1e-6 of a double reference) throughout.
//
//   node --expose-gc tests/soak/soak.mjs [calls] [--simd=false] [--no-gc]    (npm run soak)
// Exits 1 when a check fails.
import { readFileSync } from 'node:fs';

import { Softmax } from '../../web/src/node.js';

const calls = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 1_000_000);
const simd = !process.argv.includes('--simd=false');
if (typeof globalThis.gc !== 'function') {
  console.error('soak: run with node --expose-gc (dropped samplers are collected on purpose)');
  process.exit(2);
}

// The module is built here (not with load()) so that the script can count the
// Embind handles and read the memory size.
const variant = simd ? 'simd' : 'base';
const { default: create } = await import(`../../web/dist/softmax-${variant}.js`);
const wasm = await WebAssembly.compile(readFileSync(new URL(`../../web/dist/softmax-${variant}.wasm`, import.meta.url)));
const m = await create({
  instantiateWasm(imports, done) {
    WebAssembly.instantiate(wasm, imports).then((i) => done(i, wasm));
    return {};
  },
});
// A sampler is an Embind object whose C++ constructor and destructor keep the
// module's live count (m.liveSamplers()); creations are counted by wrapping
// the factory that the JS Sampler calls.
let constructed = 0;
const create0 = m.Sampler.create;
m.Sampler.create = () => {
  const h = create0();
  if (h !== null) constructed++;
  return h;
};
const sm = new Softmax(m);
const live = () => m.liveSamplers();

// A seeded PRNG (mulberry32) so that every run is the same run.
let state = 0x5eed;
const rand = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (a) => a[Math.floor(rand() * a.length)];
function size() {
  const r = rand();
  if (r < 0.9) return Math.floor(rand() * 65);
  if (r < 0.99) return Math.floor(rand() * 4097);
  return Math.floor(rand() * 150_001);
}
function scores(n) {
  const kind = rand();
  const x = kind < 0.5 ? new Float32Array(n) : kind < 0.8 ? new Array(n) : new Float64Array(n);
  for (let i = 0; i < n; i++) x[i] = (rand() - 0.5) * 20;
  if (n > 1 && rand() < 0.1) x[Math.floor(rand() * n)] = pick([-Infinity, Infinity, -0, 3.4e38, -3.4e38]);
  return x;
}

const REF = [2, 1, 0].map((v) => Math.exp(v - 2));
const REF_SUM = REF.reduce((a, b) => a + b);
let wrong = 0;
function checkHealthy() {
  const y = sm.softmax([2, 1, 0]);
  for (let i = 0; i < 3; i++) if (!(Math.abs(y[i] - REF[i] / REF_SUM) <= 1e-6)) wrong++;
}

const samplers = [];
let errors = 0;
let unexpected = 0;
const expectThrow = (f, re) => {
  try {
    f();
  } catch (e) {
    if ((e instanceof TypeError || e instanceof RangeError) && re.test(e.message)) {
      errors++;
      return;
    }
    unexpected++;
    if (unexpected <= 5) console.error('soak: unexpected error', e);
    return;
  }
  unexpected++;
  if (unexpected <= 5) console.error('soak: no error where one was expected', re);
};

const OPS = [
  // valid: the softmax family
  [30, () => sm.softmax(scores(size()), { temperature: pick([1, 0.5, 2, 0, Infinity]) })],
  [8, () => sm.logSoftmax(scores(size()))],
  [6, () => sm.logSumExp(scores(size()))],
  [4, () => sm.softmaxNaive(scores(size()))],
  [3, () => sm.softmaxSteps(scores(Math.floor(rand() * 65)))],
  [3, () => sm.sigmoid((rand() - 0.5) * 50)],
  [3, () => { const x = scores(size() + 1); sm.argmax(x); }],
  [5, () => {
    const r = 1 + Math.floor(rand() * 8);
    const c = Math.floor(rand() * 64);
    sm.softmax(scores(r * c), { shape: [r, c], axis: pick([0, 1, -1]) });
  }],
  [2, () => { const x = new Float32Array(size()); sm.softmax(scores(x.length), { out: x }); }],
  // valid: samplers
  [4, () => {
    const s = sm.createSampler({ seed: Math.floor(rand() * 1e9), topK: pick([0, 5, 40]), topP: pick([1, 0.9]), temperature: pick([1, 0.7, 0]) });
    const x = scores(size() + 1);
    for (let i = 0; i < 3; i++) s.sample(x);
    s.sampleMany(x, 4);
    s.probs(x);
    s.dispose();
  }],
  [1, () => { samplers.push(sm.createSampler({ seed: 1, minP: 0.05 })); }], // kept for a while
  [1, () => {
    const s = samplers.pop(); // used, then only dropped: the garbage collector must free it
    if (s) s.sample(scores(10));
  }],
  [1, () => {
    const s = sm.createSampler({ seed: 2, history: [1, 2, 3], repetitionPenalty: 1.3 });
    s.sample(scores(20)); // never disposed
  }],
  [2, () => sm.sample(scores(size() + 1), { seed: 5, topK: 10 })],
  // invalid: every one must throw a named TypeError / RangeError
  [2, () => expectThrow(() => sm.softmax('abc'), /scores/)],
  [2, () => expectThrow(() => sm.softmax([1, , 2]), /scores\[1\]/)], // eslint-disable-line no-sparse-arrays
  [2, () => expectThrow(() => sm.softmax(scores(size()), { temperature: -1 }), /temperature/)],
  [2, () => expectThrow(() => sm.softmax(scores(6), { shape: [4, 2] }), /shape/)],
  [2, () => expectThrow(() => sm.logSoftmax(scores(6), { shape: [2, 3], axis: 2 }), /axis/)],
  [2, () => expectThrow(() => sm.logSumExp([1], { bogus: 1 }), /bogus/)],
  [2, () => expectThrow(() => sm.softmax([-Infinity, -Infinity], { masked: 'throw' }), /all -Infinity/)],
  [2, () => expectThrow(() => sm.argmax([]), /scores/)],
  [2, () => expectThrow(() => sm.createSampler({ topP: 0 }), /topP/)],
  [2, () => {
    const s = sm.createSampler({ seed: 3 });
    expectThrow(() => s.sample([1, NaN, 2]), /scores\[1\]/);
    expectThrow(() => s.sample([]), /empty/);
    expectThrow(() => s.sample([-Infinity]), /-Infinity/);
    s.dispose();
    expectThrow(() => s.sample([1, 2]), /disposed/);
  }],
  [1, () => expectThrow(() => sm.sample([1, 2], { seed: 1, logitBias: { 9: 1 } }), /logitBias/)],
  [1, () => { const big = []; big.length = 2 ** 29; expectThrow(() => sm.softmax(big), /scores/); }],
];
const total = OPS.reduce((s, [w]) => s + w, 0);
function op() {
  let r = rand() * total;
  for (const [w, f] of OPS) {
    r -= w;
    if (r < 0) return f();
  }
  return OPS[0][1]();
}

async function collect() {
  for (let i = 0; i < 10; i++) {
    globalThis.gc();
    await new Promise((r) => setTimeout(r, 10)); // FinalizationRegistry callbacks run after a turn
  }
}
const mib = (b) => (b / 2 ** 20).toFixed(2);

// Warm-up: the largest sizes once, so that the scratch block and the memory
// reach their working size before the baseline is taken.
sm.softmax(new Float32Array(150_001));
sm.logSumExp(new Float32Array(150_001));
sm.softmaxSteps(new Float32Array(64));
{
  const s = sm.createSampler({ seed: 1, topK: 40, topP: 0.9 });
  s.sampleMany(new Float32Array(150_001), 4);
  s.dispose();
}
for (let i = 0; i < 20_000; i++) op();
samplers.length = 0;
await collect();
const heap0 = sm.heapBytes;
const rss0 = process.memoryUsage().rss;
const live0 = live();
const t0 = Date.now();
console.log(`soak: ${calls} calls, ${simd ? 'SIMD' : 'baseline'} build; after warm-up: wasm memory ${mib(heap0)} MiB, RSS ${mib(rss0)} MiB, live Samplers ${live0}`);

// Dropped samplers hold wasm memory (about 40 bytes per vocabulary entry) that
// the JS garbage collector does not see, so without memory pressure V8 may not
// collect them for a long time: measured here, 1,000,000 calls without a forced
// collection left 21,052 samplers pending and the wasm memory at 27.75 MiB
// (from 9.19), all freed by the final collection. The soak therefore lets the
// collector run every 10,000 calls (as a busy page would), and checks that what
// it collects is freed; --no-gc skips that, to show the growth.
const periodicGc = !process.argv.includes('--no-gc');
for (let i = 1; i <= calls; i++) {
  op();
  if (i % 10_000 === 0) {
    checkHealthy();
    if (periodicGc) {
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 0));
    }
  }
  if (i % 100_000 === 0) {
    console.log(`  ${i} calls, ${((Date.now() - t0) / 1000).toFixed(1)} s: wasm memory ${mib(sm.heapBytes)} MiB, RSS ${mib(process.memoryUsage().rss)} MiB, live Samplers ${live()} (constructed ${constructed})`);
  }
}
samplers.length = 0;
await collect();
checkHealthy();
const heap1 = sm.heapBytes;
const rss1 = process.memoryUsage().rss;
const emval = typeof m.count_emval_handles === 'function' ? m.count_emval_handles() : 'n/a';
const inherited = typeof m.getInheritedInstanceCount === 'function' ? m.getInheritedInstanceCount() : 'n/a';

const checks = [
  [`wasm memory ${mib(heap0)} -> ${mib(heap1)} MiB (growth <= 1 MiB)`, heap1 - heap0 <= 2 ** 20],
  [`live sampler handles after GC: ${live()} (constructed ${constructed}, deleted ${constructed - live()})`, live() === 0],
  [`emval handles ${emval}, inherited instances ${inherited}`, (emval === 'n/a' || emval === 0) && (inherited === 'n/a' || inherited === 0)],
  [`RSS ${mib(rss0)} -> ${mib(rss1)} MiB (growth <= 64 MiB)`, rss1 - rss0 <= 64 * 2 ** 20],
  [`expected errors ${errors}, unexpected outcomes ${unexpected}`, unexpected === 0 && errors > 0],
  [`softmax([2, 1, 0]) wrong ${wrong} times`, wrong === 0],
];
console.log(`soak: done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
let ok = true;
for (const [what, pass] of checks) {
  console.log(`  ${pass ? 'ok  ' : 'FAIL'} ${what}`);
  ok &&= pass;
}
process.exit(ok ? 0 : 1);
