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
  --sizes          only the download-size table (no timing; seconds)
  --sizes --write  the same, written into BENCHMARKS.md between <!-- sizes --> and <!-- /sizes -->
  --help           this text
`;
const KNOWN = ['--quick', '--no-native', '--no-sampler', '--no-startup', '--only-sampler', '--sizes', '--write', '--help', '-h'];
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
//    round's figure is the median sample, the cell's the best of the 3 rounds;
// 4. prints median µs, elements/ns, ratio peer/ours and the max relative error
//    against a float64 reference (over reference outputs >= 1e-30);
// 5. times sampling one token (when sm.createSampler exists), start-up in fresh
//    processes, and the gzip -9 sizes (bench/sizes.mjs).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { markedTable, sizeTable, withTable } from './sizes.mjs';

const BENCH = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(BENCH, '..');
const BUILD = join(ROOT, 'build-bench');
const argv = new Set(process.argv.slice(2));
if (argv.has('--help') || argv.has('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const unknown = [...argv].filter((a) => !KNOWN.includes(a) && !/^--rounds=\d+$/.test(a));
if (unknown.length) {
  process.stderr.write(`bench: unknown option ${unknown.join(', ')}\n\n${USAGE}`);
  process.exit(2);
}
const QUICK = argv.has('--quick');
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

/** Seeded normal(mean 0, sd) float32 scores: xorshift32-based uniforms, Box-Muller. */
function normalScores(n, seed, sd = 3) {
  let s = seed >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s + 0.5) / 4294967296;
  };
  const x = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const a = 2 * Math.PI * uniform();
    x[i] = sd * r * Math.cos(a);
    if (i + 1 < n) x[i + 1] = sd * r * Math.sin(a);
  }
  return x;
}

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

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------- timing ----

const ROUNDS = option('rounds', 3);
const SAMPLES = QUICK ? 5 : 15;
const SAMPLE_MS = QUICK ? 1 : 2;
const WARM_MS = QUICK ? 10 : 40;
let sink = 0;
const median = (a) => {
  const s = [...a].sort((p, q) => p - q);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const consume = (r) => {
  sink += typeof r === 'number' ? r : r && r.length ? 1 : 0;
};

/** Median µs per call of one round; fn is sync or async (then awaited per call). */
async function measure(fn, isAsync) {
  const call = isAsync ? async () => consume(await fn()) : () => consume(fn());
  let t = performance.now();
  let calls = 0;
  do {
    await call();
    calls++;
  } while (performance.now() - t < WARM_MS || calls < 3);
  const perCall = (performance.now() - t) / calls;
  const reps = Math.max(1, Math.min(1e6, Math.ceil(SAMPLE_MS / perCall)));
  const samples = [];
  for (let s = 0; s < SAMPLES; s++) {
    t = performance.now();
    if (isAsync) for (let r = 0; r < reps; r++) consume(await fn());
    else for (let r = 0; r < reps; r++) consume(fn());
    samples.push(((performance.now() - t) * 1000) / reps);
  }
  return median(samples);
}

/**
 * Times every entry on one input, interleaved: round r runs the entries in an
 * order rotated by r. Returns Map name -> best-of-rounds µs.
 */
async function timeInterleaved(entries) {
  const best = new Map(entries.map((e) => [e.name, Infinity]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < entries.length; j++) {
      const e = entries[(j + r) % entries.length];
      best.set(e.name, Math.min(best.get(e.name), await measure(e.run, e.async)));
    }
  }
  return best;
}

// ------------------------------------------------------------ formatting ----

const fmtUs = (v) =>
  v === undefined || !Number.isFinite(v) ? '–' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3);
const fmtRatio = (v) => (v === undefined || !Number.isFinite(v) ? '–' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
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

const SOFTMAX_SIZES = [
  { label: '3', rows: 1, n: 3 },
  { label: '1000', rows: 1, n: 1000 },
  { label: '32000', rows: 1, n: 32000 },
  { label: '128256', rows: 1, n: 128256 },
  { label: '151936', rows: 1, n: 151936 },
  { label: '262144', rows: 1, n: 262144 },
  { label: '64×1024', rows: 64, n: 1024 },
];
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
  await benchSamplerFullChain({ simd, base });
}

/**
 * Issue 8: the basic chain (T 0.8, top-k 40, top-p 0.95) next to a full chain
 * with every other step on (top-n-sigma, XTC, mirostat v2, dynatemp, epsilon,
 * eta, DRY and no-repeat 3-gram over a 256-token history) at N = 151936, in
 * both presets: 'hf' runs the history steps, dynatemp and top-n-sigma over the
 * whole vocabulary before top-k; 'llama.cpp' cuts to top-k first.
 */
async function benchSamplerFullChain({ simd, base }) {
  const n = 151936;
  const x = normalScores(n, 0x5eed);
  const history = Array.from({ length: 256 }, (_, i) => (i * 7919 + (i % 3) * 13) % 1000);
  const basic = { temperature: 0.8, topK: 40, topP: 0.95 };
  const extra = {
    ...basic, topNSigma: 3, xtcProbability: 0.5, xtcThreshold: 0.1, mirostat: 2, mirostatTau: 5,
    dynatempRange: 0.3, epsilonCutoff: 1e-4, etaCutoff: 1e-4, dryMultiplier: 0.8, noRepeatNgramSize: 3, history,
  };
  const configs = [
    ['basic: T 0.8, top-k 40, top-p 0.95', basic],
    ['full chain, order hf', { ...extra, order: 'hf' }],
    ['full chain, order llama.cpp', { ...extra, order: 'llama.cpp' }],
  ];
  const entries = [];
  const samplers = [];
  for (const [sm, label] of [[simd, 'SIMD'], [base, 'baseline']]) {
    for (const [name, o] of configs) {
      const s = sm.createSampler({ seed: 42, ...o });
      samplers.push(s);
      entries.push({ name: `ours ${label} \`sample()\`, ${name}`, run: () => s.sample(x) });
    }
  }
  log(`sampler full chain N = ${n}: ${entries.length} entries × ${ROUNDS} rounds`);
  const best = await timeInterleaved(entries);
  for (const s of samplers) s.dispose();
  const columns = [{ label: String(n), elements: n }];
  out('### Sampling one token: every sampler step on (issue 8)');
  out();
  table(`Median µs per call (best of ${ROUNDS} rounds)`, columns, entries.map((e) => e.name), (r) => fmtUs(best.get(r)));
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

async function main() {
  const t0 = performance.now();
  ensureDependencies();
  ensureWasmBuild();
  const floorPath = buildFloor();
  const ONLY_SAMPLER = argv.has('--only-sampler');
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
  if (!argv.has('--no-sampler')) await benchSampler(peers);
  if (ONLY_SAMPLER) return;
  if (!argv.has('--no-startup')) reportStartup();
  reportSizes();
  log(`done in ${((performance.now() - t0) / 1000).toFixed(0)} s (sink ${sink > 0})`);
}

if (argv.has('--sizes')) sizesOnly();
else await main();
