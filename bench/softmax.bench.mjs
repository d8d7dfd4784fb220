// npm run bench: softmax-wasm side by side with the web peers, in one Node process.
//
//   npm run bench -- [options]          (or: node bench/softmax.bench.mjs [options]; in bench/: npm run bench)
//
// Options (printed by --help, which runs nothing):
const USAGE = `Usage: npm run bench -- [options]

Times softmax-wasm (SIMD and baseline builds) side by side with TF.js wasm,
onnxruntime-web, transformers.js and plain JavaScript, in one Node process.
Progress goes to stderr; the Markdown report to stdout.

Options:
  --quick          fewer sizes and samples (a smoke run, about a minute)
  --rounds=N       rounds per cell (default 3; a cell's figure is the best round)
  --no-native      skip the native kernel figures (Google Benchmark, CMake)
  --no-sampler     skip the sampling rows
  --no-startup     skip start-up timing in fresh processes
  --only-sampler   the sampling rows alone (no kernels, softmax, start-up or sizes)
  --only-configs   with --only-sampler: the sampler configuration table alone
  --only-mask      token masks and draft verification alone
  --no-binding     skip the binding-cost rows (Embind against a direct wasm call)
  --only-binding   the binding-cost rows alone (seconds)
  --browsers[=LIST]
                   also the softmax, binding and sampler rows in headless browsers
                   (bench/browsers.mjs; LIST: any of chromium,firefox,webkit, comma-
                   separated; default all three; about 1.5 minutes per browser)
  --only-browsers[=LIST]
                   the browser rows alone
  --sizes          only the download-size table (no timing; seconds)
  --sizes --write  the same, written into BENCHMARKS.md between <!-- sizes --> and <!-- /sizes -->
  --help           this text
`;
const KNOWN = [
  '--quick', '--no-native', '--no-sampler', '--no-startup', '--only-sampler', '--only-configs', '--only-mask', '--no-binding', '--only-binding',
  '--browsers', '--only-browsers', '--sizes', '--write', '--help', '-h',
];
const BROWSERS = ['chromium', 'firefox', 'webkit'];
//
// 1. installs bench/'s own devDependencies (npm ci) when bench/node_modules is
//    missing or older than bench/package-lock.json; builds web/dist (npm run
//    build) when it is missing; builds the floor module (bench/floor.cpp, em++)
//    and the native kernel benchmark (bench/kernels_bench.cpp, CMake target
//    kernels_bench) in build-bench/;
// 2. runs the Google Benchmark kernel figures;
// 3. times ours (SIMD and baseline, with and without `out`) and each peer on the
//    same seeded normal(0, 3) float32 scores, interleaved: per cell, a warm-up,
//    then 3 rounds of 15 samples; a sample times enough calls to last ~2 ms; a
//    round's figure is the median sample, the cell's the best of the 3 rounds
//    (bench/timing.mjs);
// 4. prints median µs, elements/ns, ratio peer/ours and the max relative error
//    against a float64 reference (over reference outputs >= 1e-30);
// 5. times each Embind-bound call against a direct call of the wasm function
//    it reaches (bench/binding.mjs), sampling one token, start-up in fresh
//    processes, with --browsers the browser rows (bench/browsers.mjs), and the
//    gzip -9 sizes (bench/sizes.mjs).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { markedTable, sizeTable, withTable } from './sizes.mjs';
import { fmtRatio, fmtUs, makeTimer, median, mulberry32, normalScores, SAMPLER_CONFIGS, SAMPLER_N, SOFTMAX_SIZES } from './timing.mjs';

const BENCH = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(BENCH, '..');
const BUILD = join(ROOT, 'build-bench');
const argv = new Set(process.argv.slice(2));
if (argv.has('--help') || argv.has('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const unknown = [...argv].filter(
  (a) => !KNOWN.includes(a) && !/^--rounds=\d+$/.test(a) && !new RegExp(`^--(only-)?browsers=(${BROWSERS.join('|')})(,(${BROWSERS.join('|')}))*$`).test(a),
);
if (unknown.length) {
  process.stderr.write(`bench: unknown option ${unknown.join(', ')}\n\n${USAGE}`);
  process.exit(2);
}
const QUICK = argv.has('--quick');
/** The engines of --browsers / --only-browsers, or null. */
const browsersOption = () => {
  const a = process.argv.find((v) => /^--(only-)?browsers(=|$)/.test(v));
  if (a === undefined) return null;
  return a.includes('=') ? a.slice(a.indexOf('=') + 1).split(',') : BROWSERS;
};
const option = (name, fallback) => {
  const a = process.argv.find((v) => v.startsWith(`--${name}=`));
  return a === undefined ? fallback : Number(a.slice(name.length + 3));
};

const log = (...a) => console.error('[bench]', ...a);
const out = (s = '') => console.log(s);
const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

// ---------------------------------------------------------------- set-up ----

function run(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(' ')}`);
  // Their output goes to stderr: stdout is the report.
  const r = spawnSync(cmd, args, { stdio: ['ignore', 2, 2], ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} exited with ${r.status}`);
}

function ensureDependencies() {
  const marker = join(BENCH, 'node_modules', '.package-lock.json');
  if (mtime(marker) >= mtime(join(BENCH, 'package-lock.json'))) return;
  // bench/.npmrc skips onnxruntime-node's download (a host outside the registry).
  run('npm', ['--prefix', BENCH, 'ci', '--no-audit', '--no-fund'], { cwd: BENCH });
}

function ensureWasmBuild() {
  if (existsSync(join(ROOT, 'web/dist/softmax-simd.wasm')) && existsSync(join(ROOT, 'web/dist/softmax-base.wasm'))) return;
  // The build copies wasm-feature-detect from the root's node_modules.
  if (!existsSync(join(ROOT, 'node_modules/wasm-feature-detect'))) run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: ROOT });
  run('npm', ['run', 'build'], { cwd: ROOT });
}

/** bench/floor.cpp -> build-bench/floor.wasm; returns its path or null. */
function buildFloor() {
  const src = join(BENCH, 'floor.cpp');
  const wasm = join(BUILD, 'floor.wasm');
  if (mtime(wasm) > mtime(src)) return wasm;
  mkdirSync(BUILD, { recursive: true });
  try {
    run('em++', ['-O3', '-msimd128', '--no-entry', '-sSTANDALONE_WASM', '-sINITIAL_MEMORY=32MB', '-sTOTAL_STACK=64KB', src, '-o', wasm], {
      // Debian's emscripten 3.1.6: its JS optimizer finds acorn only there.
      env: { ...process.env, NODE_PATH: '/usr/share/nodejs' },
    });
    return wasm;
  } catch (e) {
    log(`floor module not built (${e.message}): the floor row is left out`);
    return null;
  }
}

/** Builds and runs bench/kernels_bench.cpp; returns Google Benchmark's JSON or null. */
function nativeKernels() {
  try {
    run('cmake', ['-S', ROOT, '-B', BUILD, '-DCMAKE_BUILD_TYPE=Release'], { stdio: ['ignore', 'ignore', 2] });
    run('cmake', ['--build', BUILD, '--target', 'kernels_bench', '-j', String(Math.max(1, cpus().length))]);
  } catch (e) {
    log(`native kernel benchmark not built (${e.message}; is libbenchmark-dev installed?)`);
    return null;
  }
  const r = spawnSync(join(BUILD, 'kernels_bench'), ['--benchmark_format=json', `--benchmark_min_time=${QUICK ? 0.05 : 0.3}`], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) {
    log(`kernels_bench failed: ${r.stderr}`);
    return null;
  }
  return JSON.parse(r.stdout);
}

// ---------------------------------------------------------------- inputs ----

/** float64 softmax of each row of x. */
function referenceSoftmax(x, rows, n) {
  const y = new Float64Array(x.length);
  for (let r = 0; r < rows; r++) {
    const o = r * n;
    let m = -Infinity;
    for (let i = 0; i < n; i++) m = Math.max(m, x[o + i]);
    let s = 0;
    for (let i = 0; i < n; i++) s += y[o + i] = Math.exp(x[o + i] - m);
    for (let i = 0; i < n; i++) y[o + i] /= s;
  }
  return y;
}

/** Max relative error over reference outputs >= 1e-30 (NaN if any output is NaN). */
function maxRelError(got, ref) {
  if (got.length !== ref.length) throw new Error(`output length ${got.length}, expected ${ref.length}`);
  let e = 0;
  for (let i = 0; i < ref.length; i++) {
    if (Number.isNaN(got[i])) return NaN;
    if (ref[i] >= 1e-30) e = Math.max(e, Math.abs(got[i] - ref[i]) / ref[i]);
  }
  return e;
}

// ------------------------------------------------- the obvious JavaScript ----

/** The softmax anyone writes: a max loop, a Math.exp loop, a divide loop. */
function obviousSoftmax(x, rows, n) {
  const y = new Float32Array(x.length);
  for (let r = 0; r < rows; r++) {
    const o = r * n;
    let m = -Infinity;
    for (let i = 0; i < n; i++) if (x[o + i] > m) m = x[o + i];
    let s = 0;
    for (let i = 0; i < n; i++) {
      const e = Math.exp(x[o + i] - m);
      y[o + i] = e;
      s += e;
    }
    for (let i = 0; i < n; i++) y[o + i] /= s;
  }
  return y;
}

/** The obvious sampler: copy, divide by T, full sort, top-k, top-p by cumulative sum, draw. */
function obviousSample(x, { temperature, topK, topP }, random) {
  const n = x.length;
  const z = new Float32Array(x);
  for (let i = 0; i < n; i++) z[i] /= temperature;
  const idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  idx.sort((a, b) => z[b] - z[a] || a - b);
  const k = topK > 0 ? Math.min(topK, n) : n;
  const m = z[idx[0]];
  const p = new Float64Array(k);
  let s = 0;
  for (let j = 0; j < k; j++) s += p[j] = Math.exp(z[idx[j]] - m);
  let keep = k;
  for (let j = 0, c = 0; j < k; j++) {
    c += p[j] / s;
    if (c >= topP) {
      keep = j + 1;
      break;
    }
  }
  let mass = 0;
  for (let j = 0; j < keep; j++) mass += p[j];
  let u = random() * mass;
  for (let j = 0; j < keep; j++) {
    u -= p[j];
    if (u < 0) return idx[j];
  }
  return idx[keep - 1];
}

// ---------------------------------------------------------------- timing ----

const ROUNDS = option('rounds', 3);
const SAMPLES = QUICK ? 5 : 15;
const SAMPLE_MS = QUICK ? 1 : 2;
const WARM_MS = QUICK ? 10 : 40;
const timer = makeTimer({ rounds: ROUNDS, samples: SAMPLES, sampleMs: SAMPLE_MS, warmMs: WARM_MS });
const { timeInterleaved } = timer;

// ------------------------------------------------------------ formatting ----

const fmtErr = (v) => (v === undefined ? '–' : Number.isNaN(v) ? 'NaN' : v === 0 ? '0' : v.toExponential(1));
const fmtRate = (v) => (v === undefined || !Number.isFinite(v) ? '–' : v >= 10 ? v.toFixed(1) : v >= 0.1 ? v.toFixed(2) : v.toFixed(3));

function table(title, columns, rows, cell) {
  out(`**${title}**`);
  out();
  out(`| | ${columns.map((c) => c.label).join(' | ')} |`);
  out(`|---|${columns.map(() => '---:').join('|')}|`);
  for (const r of rows) out(`| ${r} | ${columns.map((c) => cell(r, c)).join(' | ')} |`);
  out();
}

// ----------------------------------------------------------------- sizes ----

function reportSizes() {
  out('### Download size (gzip -9)');
  out();
  out(sizeTable(ROOT));
  out();
}

/** --sizes: the table alone; with --write, into BENCHMARKS.md. */
function sizesOnly() {
  ensureWasmBuild();
  const table = sizeTable(ROOT);
  if (!argv.has('--write')) return out(table);
  const file = join(ROOT, 'BENCHMARKS.md');
  const before = readFileSync(file, 'utf8');
  if (markedTable(before) === null) throw new Error('BENCHMARKS.md has no <!-- sizes --> ... <!-- /sizes --> block');
  writeFileSync(file, withTable(before, table));
  log(`BENCHMARKS.md: size table ${markedTable(before) === table ? 'unchanged' : 'updated'}`);
}

// -------------------------------------------------------------- start-up ----

function reportStartup() {
  const runs = QUICK ? 1 : 5;
  const peers = [
    ['ours, SIMD: `import` + `await load({ simd: true })`', 'ours-simd'],
    ['ours, baseline: `import` + `await load({ simd: false })`', 'ours-base'],
    ["TF.js: `import` + `setBackend('wasm')` + `ready()`", 'tfjs'],
    ['onnxruntime-web: `import` + `InferenceSession.create` (Softmax model)', 'ort'],
    ['transformers.js: `import` + first `topk` (creates its ORT session)', 'transformers'],
  ];
  out(`### Start-up (fresh \`node\` process each, median of ${runs}, ms)`);
  out();
  out('| | import | initialise | import to ready |');
  out('|---|---:|---:|---:|');
  for (const [label, which] of peers) {
    const got = [];
    for (let i = 0; i < runs; i++) {
      const r = spawnSync(process.execPath, [join(BENCH, 'startup.mjs'), which], { cwd: BENCH, encoding: 'utf8' });
      if (r.status !== 0) {
        log(`start-up of ${which} failed: ${r.stderr.slice(0, 400)}`);
        break;
      }
      got.push(JSON.parse(r.stdout.trim().split('\n').at(-1)));
    }
    if (got.length === 0) {
      out(`| ${label} | – | – | – |`);
      continue;
    }
    const m = (k) => median(got.map((g) => g[k])).toFixed(1);
    out(`| ${label} | ${m('importMs')} | ${m('initMs')} | ${m('totalMs')} |`);
  }
  out();
}

// ---------------------------------------------------------------- native ----

function reportNative(json) {
  out('### Native kernels (Google Benchmark, g++ through SIMDe, this machine)');
  out();
  if (!json) {
    out('(not built: libbenchmark-dev missing or the build failed)');
    out();
    return;
  }
  const sizes = [1000, 32000, 262144];
  const rows = new Map();
  for (const b of json.benchmarks) {
    const [name, n] = b.name.split('/');
    if (!rows.has(name)) rows.set(name, {});
    rows.get(name)[n] = b.items_per_second / 1e9;
  }
  out(`Giga-elements per second (${json.context.num_cpus} × ${json.context.mhz_per_cpu} MHz; kernels at -O3, Release; Google Benchmark reports its own library build as ${json.context.library_build_type}).`);
  out();
  out(`| kernel | ${sizes.map((s) => `N = ${s}`).join(' | ')} |`);
  out(`|---|${sizes.map(() => '---:').join('|')}|`);
  for (const [name, v] of rows) out(`| \`${name}\` | ${sizes.map((s) => fmtRate(v[s])).join(' | ')} |`);
  out();
}

// --------------------------------------------------------------- softmax ----

const OURS = 'ours SIMD, `out`';

async function softmaxEntries({ simd, base, tf, ortPeer, hf, floor }, x, rows, n) {
  const len = rows * n;
  const shapeOpt = rows === 1 ? {} : { shape: [rows, n] };
  const e = [];
  const add = (name, run, isAsync = false, accuracy = true) => e.push({ name, run, async: isAsync, accuracy });
  for (const [label, sm] of [
    ['SIMD', simd],
    ['baseline', base],
  ]) {
    const o = new Float32Array(len);
    const withOut = { ...shapeOpt, out: o };
    add(`ours ${label}, \`out\``, () => sm.softmax(x, withOut));
    add(`ours ${label}`, () => sm.softmax(x, rows === 1 ? undefined : shapeOpt));
  }
  if (typeof simd.buffer === 'function') {
    // Zero-copy: the caller fills a view on wasm memory and softmaxes it in place.
    // Filled once; later calls softmax the previous result (same cost per element).
    const buf = simd.buffer(len);
    const inPlace = { ...shapeOpt, out: buf };
    add('ours SIMD, `sm.buffer(n)` in place (no copy in or out)', () => {
      if (e.refill) buf.set(x);
      return simd.softmax(buf, inPlace);
    });
    e.refill = true; // outputOf() below wants the softmax of x itself
  }
  add('obvious JS (max, Math.exp, divide loops)', () => obviousSoftmax(x, rows, n));
  if (tf) {
    const shape = rows === 1 ? [n] : [rows, n];
    const t = tf.tensor(x, shape, 'float32');
    tf.tidy(() => tf.softmax(t).dataSync()); // the tensor now lives on the wasm heap
    add('TF.js wasm: `tf.softmax` + `dataSync` (tensor on backend)', () => {
      const y = tf.softmax(t);
      const d = y.dataSync();
      y.dispose();
      return d;
    });
    add('TF.js wasm end-to-end (Float32Array in, out)', () => {
      const xt = tf.tensor(x, shape, 'float32');
      const y = tf.softmax(xt);
      const d = y.dataSync();
      xt.dispose();
      y.dispose();
      return d;
    });
    e.dispose = () => t.dispose();
  }
  if (ortPeer) {
    const { ort, session } = ortPeer;
    add(
      'onnxruntime-web 1.30 `session.run` (wasm EP, 1 thread)',
      async () => (await session.run({ x: new ort.Tensor('float32', x, [rows, n]) })).y.data,
      true,
    );
  }
  if (hf) {
    add('transformers.js 4.3 `softmax` (per row)', () => {
      if (rows === 1) return hf.softmax(x);
      const parts = [];
      for (let r = 0; r < rows; r++) parts.push(hf.softmax(x.subarray(r * n, (r + 1) * n)));
      return parts;
    });
  }
  if (floor) {
    const heap = new Float32Array(floor.memory.buffer);
    const base0 = floor.floor_buffer() >> 2;
    const y = new Float32Array(len);
    add(
      'floor: copy in + one SIMD pass (y = x·c) + copy out, wasm',
      () => {
        heap.set(x, base0);
        floor.floor_scale(len, 0.5);
        y.set(heap.subarray(base0, base0 + len));
        return y;
      },
      false,
      false,
    );
  }
  return e;
}

/** The output of one call, flattened to one array (for the accuracy column). */
async function outputOf(entry) {
  const r = entry.async ? await entry.run() : entry.run();
  if (Array.isArray(r)) {
    const all = new Float32Array(r.reduce((s, p) => s + p.length, 0));
    let o = 0;
    for (const p of r) all.set(p, (o += p.length) - p.length);
    return all;
  }
  return Float32Array.from(r);
}

async function benchSoftmax(peers) {
  const results = new Map(); // name -> Map(label -> { us, err })
  const order = [];
  const sizes = QUICK ? SOFTMAX_SIZES.filter((s) => ['3', '1000', '128256', '64×1024'].includes(s.label)) : SOFTMAX_SIZES;
  for (const [si, size] of sizes.entries()) {
    const x = normalScores(size.rows * size.n, 0x5eed + si);
    const ref = referenceSoftmax(x, size.rows, size.n);
    const entries = await softmaxEntries(peers, x, size.rows, size.n);
    for (const e of entries) {
      if (!results.has(e.name)) {
        results.set(e.name, new Map());
        order.push(e.name);
      }
      const err = e.accuracy ? maxRelError(await outputOf(e), ref) : undefined;
      results.get(e.name).set(size.label, { err });
    }
    entries.refill = false;
    log(`softmax N = ${size.label}: ${entries.length} entries × ${ROUNDS} rounds`);
    const best = await timeInterleaved(entries);
    for (const [name, us] of best) results.get(name).get(size.label).us = us;
    entries.dispose?.();
  }
  const columns = sizes.map((s) => ({ ...s, label: s.label, elements: s.rows * s.n }));
  const get = (r, c) => results.get(r).get(c.label);
  out('### Softmax');
  out();
  table(`Median µs per call (best of ${ROUNDS} rounds)`, columns, order, (r, c) => fmtUs(get(r, c)?.us));
  table('Elements per ns', columns, order, (r, c) => fmtRate(c.elements / (get(r, c)?.us * 1000)));
  table(`Ratio: time / time of ${OURS} (> 1: slower than ours)`, columns, order, (r, c) =>
    fmtRatio(get(r, c)?.us / get(OURS, c)?.us),
  );
  table('Max relative error vs float64 (outputs >= 1e-30)', columns, order, (r, c) => fmtErr(get(r, c)?.err));
  return results;
}

// --------------------------------------------------------------- binding ----

/** Per warm call: each bound C++ function through Embind and as a direct wasm call (bench/binding.mjs). */
async function benchBinding(sm) {
  const { timeBinding, bindingTable } = await import('./binding.mjs');
  const { default: create } = await import('../web/dist/softmax-simd.js');
  const wasmModule = await WebAssembly.compile(readFileSync(join(ROOT, 'web/dist/softmax-simd.wasm')));
  // Calls of tens of ns: more rounds than the other cells, still cheap (~5 s).
  const rounds = Math.max(ROUNDS, 5);
  log(`binding: 13 entries × ${rounds} rounds`);
  const r = await timeBinding(sm, { create, wasmModule }, makeTimer({ rounds, samples: SAMPLES, sampleMs: SAMPLE_MS, warmMs: WARM_MS }));
  out('### Binding cost (ns per warm call)');
  out();
  out(
    `SIMD build, best of ${rounds} rounds. "direct" calls the wasm function that Embind's invoker calls (found through ` +
      '`Module.asm`\'s function table, bench/binding.mjs), "Embind" the bound function as web/src/ calls it, on the same ' +
      'instance and the same inputs staged in wasm memory; "public API" is the library call doing the same work from JS ' +
      `values (validation, staging, result). Every figure includes the timing loop's own cost: ${r.emptyNs.toFixed(1)} ns for an empty closure.`,
  );
  out();
  out(bindingTable(r));
  out();
}

// --------------------------------------------------------------- sampler ----

const SAMPLER_SIZES = [32000, 128256, 151936];

async function benchSampler({ simd, base, hf }) {
  if (typeof simd.createSampler !== 'function') {
    out('### Sampling one token');
    out();
    out('(skipped: `sm.createSampler` does not exist in this build of web/src/api.js yet)');
    out();
    return;
  }
  if (argv.has('--only-configs')) return benchSamplerConfigurations({ simd, base, hf });
  const configs = [
    { label: 'T 0.8, top-k 40, top-p 0.95', temperature: 0.8, topK: 40, topP: 0.95 },
    { label: 'T 0.8, top-k off, top-p 0.95', temperature: 0.8, topK: 0, topP: 0.95 },
  ];
  const results = new Map();
  const order = [];
  const set = (name, label, us) => {
    if (!results.has(name)) {
      results.set(name, new Map());
      order.push(name);
    }
    results.get(name).set(label, us);
  };
  const refName = (c) => `ours SIMD \`sample()\`, ${c.label}`;
  for (const [si, n] of (QUICK ? [151936] : SAMPLER_SIZES).entries()) {
    const x = normalScores(n, 0xda7a + si);
    for (const c of configs) {
      const opts = { seed: 42, temperature: c.temperature, topP: c.topP, ...(c.topK > 0 ? { topK: c.topK } : {}) };
      const ours = [
        [simd, 'SIMD'],
        [base, 'baseline'],
      ].map(([sm, label]) => {
        const s = sm.createSampler(opts);
        return { name: `ours ${label} \`sample()\`, ${c.label}`, run: () => s.sample(x), sampler: s };
      });
      const random = mulberry32(7);
      const entries = [...ours, { name: `obvious JS (copy, divide, full sort, cumsum, draw), ${c.label}`, run: () => obviousSample(x, c, random) }];
      if (hf) {
        const step = makeTransformersStepFor(hf, c);
        entries.push({ name: `transformers.js 4.3 generation step (its ONNX TopK + multinomial), ${c.label}`, run: () => step(x), async: true });
      }
      checkSamples(x, c, ours[0].run);
      log(`sampler N = ${n}, ${c.label}: ${entries.length} entries × ${ROUNDS} rounds`);
      const best = await timeInterleaved(entries);
      for (const [name, us] of best) set(name, String(n), us);
      for (const o of ours) o.sampler.dispose?.();
    }
  }
  const columns = (QUICK ? [151936] : SAMPLER_SIZES).map((n) => ({ label: String(n), elements: n }));
  out('### Sampling one token (T 0.8, top-p 0.95, with and without top-k 40)');
  out();
  table(`Median µs per call (best of ${ROUNDS} rounds)`, columns, order, (r, c) => fmtUs(results.get(r).get(c.label)));
  table('Ratio: time / time of ours SIMD with the same settings', columns, order, (r, c) => {
    const cfg = configs.find((k) => r.endsWith(k.label));
    return fmtRatio(results.get(r).get(c.label) / results.get(refName(cfg)).get(c.label));
  });
  await benchSamplerConfigurations({ simd, base, hf });
}

// Token masks and draft verification at N = 151936: a masked draw against the
// unmasked one with the same settings (the mask: random words, half the
// tokens; and a grammar-like one, 0.1% of them), applyTokenBitmask against one
// softmax of the same scores, verifyDraft (k = 4) against the k + 1 sample()
// calls it replaces.
async function benchMaskAndDraft({ simd, base }) {
  const n = 151936;
  const x = normalScores(n, 0x3a5c);
  const random = mulberry32(11);
  const words = Math.ceil(n / 32);
  const half = new Uint32Array(words).map(() => (random() * 2 ** 32) >>> 0);
  const sparse = new Uint32Array(words);
  for (let i = 0; i < n / 1000; i++) {
    const t = Math.floor(random() * n);
    sparse[t >> 5] |= 1 << (t & 31);
  }
  const k = 4;
  const q = new Float32Array(k * n);
  const target = new Float32Array((k + 1) * n);
  for (let j = 0; j <= k; j++) target.set(normalScores(n, 0x77 + j), j * n);
  for (let j = 0; j < k; j++) q.set(simd.softmax(target.subarray(j * n, (j + 1) * n), { temperature: 1.2 }), j * n);
  const draft = Array.from({ length: k }, (_, j) => simd.argmax(q.subarray(j * n, (j + 1) * n)));
  const rows = [];
  const results = new Map();
  for (const [sm, build] of [
    [simd, 'SIMD'],
    [base, 'baseline'],
  ]) {
    const topK = sm.createSampler({ seed: 42, temperature: 0.8, topK: 40 });
    const topP = sm.createSampler({ seed: 42, temperature: 0.8, topP: 0.95 });
    const verify = sm.createSampler({ seed: 42, temperature: 0.8, topK: 40 });
    const y = new Float32Array(n);
    let buf;
    const entries = [
      ['`sample()`, top-k 40, T 0.8, unmasked', () => topK.sample(x)],
      ['`sample(x, { mask })`, top-k 40, T 0.8, half the tokens allowed', () => topK.sample(x, { mask: half })],
      ['`sample(x, { mask })`, top-k 40, T 0.8, 0.1% allowed', () => topK.sample(x, { mask: sparse })],
      ['`sample()`, top-p 0.95, T 0.8, unmasked', () => topP.sample(x)],
      ['`sample(x, { mask })`, top-p 0.95, T 0.8, half the tokens allowed', () => topP.sample(x, { mask: half })],
      ['`sm.softmax(x)` (Float32Array in, new Float32Array out)', () => sm.softmax(x)],
      ['`sm.applyTokenBitmask(y, mask)`, y a Float32Array (staged in and out)', () => sm.applyTokenBitmask(y, half)],
      ['`sm.softmax(buf, { out: buf })`, buf = `sm.buffer(n)`', () => sm.softmax(buf, { out: buf })],
      ['`sm.applyTokenBitmask(buf, mask)`, buf = `sm.buffer(n)` (in place)', () => sm.applyTokenBitmask(buf, half)],
      [`\`verifyDraft()\`, k = ${k}, top-k 40 (staging ${k} + ${k + 1} rows)`, () => verify.verifyDraft(draft, q, target)],
      [`${k + 1} \`sample()\` calls on the target rows, top-k 40`, () => {
        let t = 0;
        for (let j = 0; j <= k; j++) t += verify.sample(target.subarray(j * n, (j + 1) * n));
        return t;
      }],
    ].map(([name, run]) => ({ name: `${build}: ${name}`, run }));
    // Each call once first: wasm memory grows (the samplers' buffers, the
    // staging) before the buffer() view exists, so that it stays valid.
    for (const e of entries) if (!e.name.includes('buf')) e.run();
    buf = sm.buffer(n);
    buf.set(x);
    y.set(x);
    log(`mask and draft N = ${n}, ${build}: ${entries.length} entries × ${ROUNDS} rounds`);
    const best = await timeInterleaved(entries);
    for (const [name, us] of best) {
      rows.push(name);
      results.set(name, us);
    }
    for (const s of [topK, topP, verify]) s.dispose();
  }
  out(`### Token masks and draft verification (N = ${n})`);
  out();
  const ratioOf = (name) => {
    const [build, what] = name.split(': ');
    const ref = what.includes('top-p')
      ? '`sample()`, top-p 0.95, T 0.8, unmasked'
      : what.includes('mask })`') || what.includes('unmasked')
        ? '`sample()`, top-k 40, T 0.8, unmasked'
        : what.includes('buf')
          ? '`sm.softmax(buf, { out: buf })`, buf = `sm.buffer(n)`'
          : what.includes('applyTokenBitmask') || what.includes('softmax')
            ? '`sm.softmax(x)` (Float32Array in, new Float32Array out)'
            : `${k + 1} \`sample()\` calls on the target rows, top-k 40`;
    return results.get(name) / results.get(`${build}: ${ref}`);
  };
  table(`Median µs per call (best of ${ROUNDS} rounds); ratio to the row it replaces or extends (same build)`, [{ label: 'µs' }, { label: 'ratio' }], rows, (r, c) =>
    c.label === 'µs' ? fmtUs(results.get(r)) : fmtRatio(ratioOf(r)),
  );
}


/**
 * The obvious JavaScript for a whole chain: a Float64Array copy, the
 * penalties, DRY and no-repeat n-gram by direct loops over the history, one
 * full sort by logit, then each step as its definition reads (softmax over the
 * survivors, cumulative sums, a second sort for typical), then one draw.
 * The same definitions as ours, not the same bits.
 */
function makeObviousChain(opts, random) {
  const o = {
    temperature: 1, topK: 0, topP: 1, minP: 0, typicalP: 1, topNSigma: 0, xtcProbability: 0, xtcThreshold: 0.1,
    mirostat: 0, mirostatTau: 5, mirostatEta: 0.1, dynatempRange: 0, dynatempExponent: 1, epsilonCutoff: 0, etaCutoff: 0,
    dryMultiplier: 0, dryBase: 1.75, dryAllowedLength: 2, noRepeatNgramSize: 0, repetitionPenalty: 1, frequencyPenalty: 0,
    presencePenalty: 0, penaltyLastN: 64, history: [], order: 'hf', ...opts,
  };
  const order = o.order === 'llama.cpp'
    ? ['noRepeatNgram', 'dry', 'topNSigma', 'topK', 'typicalP', 'topP', 'minP', 'epsilon', 'eta', 'xtc', 'temperature', 'dynatemp', 'mirostat']
    : ['noRepeatNgram', 'dry', 'temperature', 'dynatemp', 'topNSigma', 'topK', 'topP', 'minP', 'typicalP', 'epsilon', 'eta', 'xtc', 'mirostat'];
  let mu = 2 * o.mirostatTau;
  const h = o.history;
  return (x) => {
    const l = Float64Array.from(x);
    const win = o.penaltyLastN < 0 ? h : h.slice(-o.penaltyLastN);
    const count = new Map();
    for (const t of win) count.set(t, (count.get(t) ?? 0) + 1);
    for (const [t, c] of count) {
      l[t] = l[t] > 0 ? l[t] / o.repetitionPenalty : l[t] * o.repetitionPenalty;
      l[t] -= c * o.frequencyPenalty + o.presencePenalty;
    }
    let t = 1;
    let idx = Array.from(l.keys()).sort((a, b) => l[b] - l[a] || a - b);
    const probs = (c) => {
      const m = l[c.reduce((a, i) => (l[i] > l[a] ? i : a), c[0])];
      const e = c.map((i) => Math.exp((l[i] - m) / t));
      const s = e.reduce((a, v) => a + v, 0);
      return e.map((v) => v / s);
    };
    const entropy = (p) => -p.reduce((a, v) => a + (v > 0 ? v * Math.log(v) : 0), 0);
    const keep = (c, flags) => {
      const kept = c.filter((_, j) => flags[j]);
      return kept.length ? kept : c.slice(0, 1);
    };
    const massCut = (c, p, target) => {
      let cum = 0;
      for (let j = 0; j < c.length; j++) if ((cum += p[j]) >= target) return c.slice(0, j + 1);
      return c;
    };
    for (const step of order) {
      if (step === 'noRepeatNgram' && o.noRepeatNgramSize > 0 && h.length >= o.noRepeatNgramSize) {
        const s = o.noRepeatNgramSize;
        const banned = new Set();
        for (let i = 0; i + s <= h.length; i++) {
          let same = true;
          for (let j = 0; j < s - 1; j++) same &&= h[i + j] === h[h.length - s + 1 + j];
          if (same) banned.add(h[i + s - 1]);
        }
        idx = idx.filter((i) => !banned.has(i));
      } else if (step === 'dry' && o.dryMultiplier > 0) {
        for (let end = 0; end < h.length - 1; end++) {
          let len = 0;
          while (len <= end && h[end - len] === h[h.length - 1 - len]) len++;
          if (len >= o.dryAllowedLength) l[h[end + 1]] -= o.dryMultiplier * o.dryBase ** (len - o.dryAllowedLength) * t;
        }
        idx.sort((a, b) => l[b] - l[a] || a - b);
      } else if (step === 'temperature' && o.dynatempRange === 0) {
        if (o.temperature === 0) idx = idx.slice(0, 1);
        else t = o.temperature;
      } else if (step === 'dynatemp' && o.dynatempRange > 0) {
        t = 1;
        const norm = entropy(probs(idx)) / Math.log(idx.length);
        const lo = Math.max(0, o.temperature - o.dynatempRange);
        t = lo + (o.temperature + o.dynatempRange - lo) * norm ** o.dynatempExponent;
      } else if (step === 'topNSigma' && o.topNSigma > 0) {
        const v = idx.map((i) => l[i]);
        const mean = v.reduce((a, b) => a + b, 0) / v.length;
        const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
        idx = keep(idx, v.map((g) => g >= v[0] - o.topNSigma * sd));
      } else if (step === 'topK' && o.topK > 0) {
        idx = idx.slice(0, o.topK);
      } else if (step === 'topP' && o.topP < 1) {
        idx = massCut(idx, probs(idx), o.topP);
      } else if (step === 'minP' && o.minP > 0) {
        const p = probs(idx);
        idx = keep(idx, p.map((v) => v >= o.minP * p[0]));
      } else if (step === 'typicalP' && o.typicalP < 1) {
        const p = probs(idx);
        const H = entropy(p);
        const byTypical = idx.map((i, j) => [i, p[j], Math.abs(-Math.log(p[j]) - H)]).sort((a, b) => a[2] - b[2]);
        const kept = new Set(massCut(byTypical, byTypical.map((e) => e[1]), o.typicalP).map((e) => e[0]));
        idx = idx.filter((i) => kept.has(i));
      } else if (step === 'epsilon' && o.epsilonCutoff > 0) {
        idx = keep(idx, probs(idx).map((v) => v >= o.epsilonCutoff));
      } else if (step === 'eta' && o.etaCutoff > 0) {
        const p = probs(idx);
        const cut = Math.min(o.etaCutoff, Math.sqrt(o.etaCutoff) * Math.exp(-entropy(p)));
        idx = keep(idx, p.map((v) => v >= cut));
      } else if (step === 'xtc' && o.xtcProbability > 0 && random() <= o.xtcProbability) {
        const p = probs(idx);
        const above = p.filter((v) => v >= o.xtcThreshold).length;
        if (above >= 2) idx = idx.slice(above - 1);
      } else if (step === 'mirostat' && o.mirostat === 2) {
        idx = keep(idx, probs(idx).map((v) => -Math.log2(v) <= mu));
      }
    }
    const p = probs(idx);
    let u = random();
    let j = 0;
    for (; j < p.length - 1 && (u -= p[j]) >= 0; j++);
    if (o.mirostat === 2) mu -= o.mirostatEta * (-Math.log2(p[j]) - o.mirostatTau);
    return idx[j];
  };
}

/**
 * transformers.js where it has the step (4.3: temperature, repetition penalty,
 * top-k inside its multinomial sampler, greedy; no min-p, typical, top-p in
 * generate(), ...): its processors, then its sampler, as makeTransformersStep.
 */
function transformersFor(hf, label, opts) {
  if (label === 'greedy (T = 0)') {
    // GreedySampler.sample: max(logits.data)[1] (utils/maths.js max, not exported: its loop), after generate()'s copy
    return (x) => {
      const d = new hf.Tensor('float32', x.slice(), [1, x.length]).data;
      let m = d[0];
      let at = 0;
      for (let i = 1; i < d.length; ++i) if (d[i] > m) (m = d[i]), (at = i);
      return at;
    };
  }
  if (label === 'no filters (T = 1)') return makeTransformersStepFor(hf, { temperature: 1, topK: 0 });
  if (label.startsWith('penalties')) {
    const step = makeTransformersStepFor(hf, { temperature: 1, topK: opts.topK });
    const rep = new hf.RepetitionPenaltyLogitsProcessor(opts.repetitionPenalty);
    const ids = [opts.history.map((t) => BigInt(t))];
    return (x) => {
      const logits = new hf.Tensor('float32', x.slice(), [1, x.length]);
      rep(ids, logits); // repetition only: transformers.js has no frequency or presence penalty
      return step(logits.data);
    };
  }
  return null;
}

/**
 * Every configuration of the speed table at N = 151936: ours (both builds)
 * against one softmax of the same logits with a preallocated `out` (greedy:
 * against argmax), the obvious JavaScript for the same chain, and
 * transformers.js where it has the steps; interleaved per configuration.
 */
async function benchSamplerConfigurations({ simd, base, hf }) {
  const n = SAMPLER_N;
  const x = normalScores(n, 0x5eed);
  const rows = [];
  for (const [label, opts] of QUICK ? SAMPLER_CONFIGS.filter((_, i) => i % 4 === 0) : SAMPLER_CONFIGS) {
    const greedy = opts.temperature === 0;
    const entries = [];
    const samplers = [];
    for (const [sm, build] of [[simd, 'SIMD'], [base, 'baseline']]) {
      const s = sm.createSampler({ seed: 42, ...opts });
      samplers.push(s);
      entries.push({ name: `ours ${build}`, run: () => s.sample(x) });
      const out = new Float32Array(n);
      const withOut = { out };
      entries.push({ name: `reference ${build}`, run: greedy ? () => sm.argmax(x) : () => sm.softmax(x, withOut) });
    }
    const chain = makeObviousChain(opts, mulberry32(7));
    entries.push({ name: 'obvious JS', run: () => chain(x) });
    const hfStep = hf ? transformersFor(hf, label, opts) : null;
    if (hfStep) entries.push({ name: 'transformers.js', run: () => hfStep(x), async: true });
    log(`sampler configuration "${label}": ${entries.length} entries × ${ROUNDS} rounds`);
    const best = await timeInterleaved(entries);
    for (const s of samplers) s.dispose();
    rows.push({ label, greedy, best });
  }
  out('### Sampling one token: every configuration (N = 151936)');
  out();
  out(
    `Median µs per \`sample()\` (best of ${ROUNDS} rounds); "× softmax" divides by one \`sm.softmax(x, { out })\` of the same ` +
      'logits in the same build (greedy: by `sm.argmax(x)`), timed in the same interleaved set; the peers\' ratio is to ours SIMD.',
  );
  out();
  out('| configuration | ours SIMD | × softmax | ours baseline | × softmax | softmax SIMD | obvious JS | × ours | transformers.js | × ours |');
  out('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { label, greedy, best } of rows) {
    const g = (k) => best.get(k);
    const ratio = (a, b) => `${fmtRatio(g(a) / g(b))}${greedy ? ' × argmax' : ''}`;
    out(
      `| ${label} | ${fmtUs(g('ours SIMD'))} | ${ratio('ours SIMD', 'reference SIMD')} | ${fmtUs(g('ours baseline'))} | ` +
        `${ratio('ours baseline', 'reference baseline')} | ${fmtUs(g('reference SIMD'))}${greedy ? ' (argmax)' : ''} | ` +
        `${fmtUs(g('obvious JS'))} | ${fmtRatio(g('obvious JS') / g('ours SIMD'))} | ${fmtUs(g('transformers.js'))} | ` +
        `${fmtRatio(g('transformers.js') / g('ours SIMD'))} |`,
    );
  }
  out();
}

let makeTransformersStepFor = () => {
  throw new Error('transformers.js not loaded');
};

/** A light sanity check: ours draws only from the top-k / top-p set the obvious JS keeps. */
function checkSamples(x, c, oursSample) {
  const z = Array.from(x, (v, i) => [v, i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  const k = c.topK > 0 ? c.topK : x.length;
  const m = z[0][0] / c.temperature;
  let s = 0;
  for (let j = 0; j < k; j++) s += Math.exp(z[j][0] / c.temperature - m);
  const allowed = new Set();
  for (let j = 0, cum = 0; j < k; j++) {
    allowed.add(z[j][1]);
    cum += Math.exp(z[j][0] / c.temperature - m) / s;
    if (cum >= c.topP + 1e-6) break;
  }
  for (let i = 0; i < 200; i++) {
    const t = oursSample();
    if (!allowed.has(t)) {
      log(`warning: ours sampled token ${t}, outside the ${allowed.size} tokens kept by ${c.label}`);
      return;
    }
  }
}

// ------------------------------------------------------------------ main ----

async function runBrowsers(engines) {
  const { benchBrowsers } = await import('./browsers.mjs');
  const { markdown } = await benchBrowsers({ engines, rounds: ROUNDS, quick: QUICK, log });
  out(markdown);
}

/** --only-binding, --only-browsers: one section, with the run's header line. */
async function oneSection() {
  const t0 = performance.now();
  ensureDependencies();
  ensureWasmBuild();
  out(`${new Date().toISOString()} · Node ${process.version} · ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'} · ${process.platform}-${process.arch}${QUICK ? ' · **--quick**' : ''}`);
  out();
  if (argv.has('--only-binding')) {
    const { load } = await import('../web/src/node.js');
    await benchBinding(await load({ simd: true }));
  } else {
    await runBrowsers(browsersOption());
  }
  log(`done in ${((performance.now() - t0) / 1000).toFixed(0)} s (sink ${timer.sink() > 0})`);
}

async function main() {
  const t0 = performance.now();
  ensureDependencies();
  ensureWasmBuild();
  const floorPath = buildFloor();
  const ONLY_SAMPLER = argv.has('--only-sampler');
  if (argv.has('--only-mask')) {
    const { load } = await import('../web/src/node.js');
    return benchMaskAndDraft({ simd: await load({ simd: true }), base: await load({ simd: false }) });
  }
  const native = argv.has('--no-native') || ONLY_SAMPLER ? null : nativeKernels();

  const { load } = await import('../web/src/node.js');
  const simd = await load({ simd: true });
  const base = await load({ simd: false });
  const peers = { simd, base };
  const tryPeer = async (name, f) => {
    try {
      return await f();
    } catch (e) {
      log(`${name} unavailable: ${e.stack}`);
      return null;
    }
  };
  const { setupTfjs, setupOrt, setupTransformers, makeTransformersStep } = await import('./peers.mjs');
  peers.tf = await tryPeer('TF.js wasm', setupTfjs);
  peers.ortPeer = await tryPeer('onnxruntime-web', setupOrt);
  peers.hf = await tryPeer('transformers.js', setupTransformers);
  makeTransformersStepFor = makeTransformersStep;
  if (floorPath) {
    const { instance } = await WebAssembly.instantiate(readFileSync(floorPath), {});
    instance.exports._initialize?.();
    peers.floor = instance.exports;
  }

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  out(`## softmax-wasm benchmark`);
  out();
  out(`${new Date().toISOString()} · Node ${process.version} · ${cpus().length} × ${cpu} · ${process.platform}-${process.arch}`);
  out(
    `· TF.js ${peers.tf?.version_core ?? '–'} (wasm backend${peers.tf ? `, SIMD ${peers.tf.env().getBool('WASM_HAS_SIMD_SUPPORT')}, threads ${peers.tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT')}` : ''})` +
      ` · onnxruntime-web ${peers.ortPeer?.ort.env.versions?.web ?? '–'} · transformers.js ${peers.hf?.env.version ?? '–'}` +
      (QUICK ? ' · **--quick**: fewer sizes and samples' : ''),
  );
  out();
  if (peers.tf) log(`TF.js backend: ${peers.tf.getBackend()}`);
  if (!ONLY_SAMPLER) reportNative(native);
  if (!ONLY_SAMPLER) await benchSoftmax(peers);
  if (!ONLY_SAMPLER && !argv.has('--no-binding')) await benchBinding(simd);
  if (!argv.has('--no-sampler')) await benchSampler(peers);
  if (!argv.has('--no-sampler')) await benchMaskAndDraft(peers);
  if (ONLY_SAMPLER) return;
  if (!argv.has('--no-startup')) reportStartup();
  const engines = browsersOption();
  if (engines) await runBrowsers(engines);
  reportSizes();
  log(`done in ${((performance.now() - t0) / 1000).toFixed(0)} s (sink ${timer.sink() > 0})`);
}

if (argv.has('--sizes')) sizesOnly();
else if (argv.has('--only-binding') || process.argv.some((a) => a.startsWith('--only-browsers'))) await oneSection();
else await main();
