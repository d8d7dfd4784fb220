// Cost growth: time per element against N, from 1 to 2^22, for ours
// and each peer, in one Node process; writes bench/growth.svg (log-log) and
// prints the table. Shows where call overhead ends and the throughput plateau
// begins.
//
//   node bench/growth.mjs [--max-log2=22] [--out=bench/growth.svg]
// Needs bench/node_modules (npm --prefix bench ci) and web/dist (npm run build).
import { writeFileSync } from 'node:fs';

import { load } from '../web/src/node.js';
import { setupOrt, setupTfjs, setupTransformers } from './peers.mjs';

const arg = (name, dflt) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt;
const MAX_LOG2 = Number(arg('max-log2', 22));
const OUT = arg('out', new URL('./growth.svg', import.meta.url).pathname);
const BUDGET_MS = 200; // per cell: enough calls to last this long, median of 5

// normal(0, 3) float32 scores from a fixed seed (mulberry32 + Box-Muller).
function scores(n, seed = 7) {
  let a = seed >>> 0;
  const u = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = 3 * Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  return x;
}

function obvious(x) {
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) if (x[i] > m) m = x[i];
  const y = new Float32Array(x.length);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += y[i] = Math.exp(x[i] - m);
  for (let i = 0; i < x.length; i++) y[i] /= s;
  return y;
}

/** Median µs per call over 5 samples of ~BUDGET_MS / 5 each. */
async function time(fn, isAsync) {
  let t = performance.now();
  let calls = 0;
  do {
    if (isAsync) await fn();
    else fn();
    calls++;
  } while (performance.now() - t < 10 || calls < 2);
  const reps = Math.max(1, Math.ceil(BUDGET_MS / 5 / ((performance.now() - t) / calls)));
  const samples = [];
  for (let s = 0; s < 5; s++) {
    t = performance.now();
    for (let r = 0; r < reps; r++) if (isAsync) await fn(); else fn();
    samples.push(((performance.now() - t) * 1000) / reps);
  }
  return samples.sort((p, q) => p - q)[2];
}

const sm = await load({ simd: true });
const tf = await setupTfjs().catch(() => null);
const ortPeer = await setupOrt().catch(() => null);
const hf = await setupTransformers().catch(() => null);

const series = [
  { name: 'softmax-wasm SIMD, out', color: '#0072B2', dash: '', run: (x, out) => sm.softmax(x, { out }) },
  { name: 'obvious JS', color: '#E69F00', dash: '6 3', run: (x) => obvious(x) },
];
if (tf) {
  series.push({
    name: 'TF.js wasm, tf.softmax + dataSync',
    color: '#009E73',
    dash: '2 2',
    run: (x, out, t) => {
      const y = tf.softmax(t);
      y.dataSync();
      y.dispose();
    },
  });
}
if (ortPeer) {
  const { ort, session } = ortPeer;
  series.push({
    name: 'onnxruntime-web session.run',
    color: '#CC79A7',
    dash: '8 3 2 3',
    async: true,
    run: async (x) => (await session.run({ x: new ort.Tensor('float32', x, [1, x.length]) })).y.data,
  });
}
if (hf) series.push({ name: 'transformers.js softmax', color: '#D55E00', dash: '1 3', run: (x) => hf.softmax(x) });
for (const s of series) s.points = [];

const sizes = Array.from({ length: MAX_LOG2 + 1 }, (_, k) => 2 ** k);
for (const n of sizes) {
  const x = scores(n);
  const out = new Float32Array(n);
  const t = tf ? tf.tensor(x, [1, n], 'float32') : null;
  const cells = [];
  for (const s of series) {
    const us = await time(() => s.run(x, out, t), s.async);
    s.points.push([n, (us * 1000) / n]);
    cells.push(`${((us * 1000) / n).toPrecision(3)}`);
  }
  t?.dispose();
  console.log(`N = 2^${Math.log2(n)}`.padEnd(10), cells.join('  '));
}

// ---- the SVG: log2 N on x, log10 ns per element on y ----
const W = 760, H = 470, L = 70, R = 20, T = 40, B = 120;
const all = series.flatMap((s) => s.points.map((p) => p[1]));
const yLo = Math.floor(Math.log10(Math.min(...all))), yHi = Math.ceil(Math.log10(Math.max(...all)));
const px = (n) => L + (Math.log2(n) / MAX_LOG2) * (W - L - R);
const py = (v) => T + (1 - (Math.log10(v) - yLo) / (yHi - yLo)) * (H - T - B);
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const parts = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  `<rect width="${W}" height="${H}" fill="#fff"/>`,
  `<text x="${L}" y="22" font-size="15" font-weight="bold">Softmax cost per element against N (Node ${process.versions.node}, one process)</text>`,
];
for (let e = yLo; e <= yHi; e++) {
  const y = py(10 ** e);
  parts.push(`<line x1="${L}" x2="${W - R}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
  parts.push(`<text x="${L - 8}" y="${y + 4}" text-anchor="end">${10 ** e >= 1 ? 10 ** e : (10 ** e).toFixed(-e)} ns</text>`);
}
for (let k = 0; k <= MAX_LOG2; k += 2) {
  const x = px(2 ** k);
  parts.push(`<line x1="${x}" x2="${x}" y1="${T}" y2="${H - B}" stroke="#eee"/>`);
  parts.push(`<text x="${x}" y="${H - B + 16}" text-anchor="middle">2^${k}</text>`);
}
parts.push(`<text x="${(L + W - R) / 2}" y="${H - B + 34}" text-anchor="middle">N (float32 scores, one row)</text>`);
series.forEach((s, i) => {
  const d = s.points.map((p, j) => `${j ? 'L' : 'M'}${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(' ');
  parts.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2.2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
  const ly = H - B + 54 + Math.floor(i / 2) * 18, lx = L + (i % 2) * 340;
  parts.push(`<line x1="${lx}" x2="${lx + 30}" y1="${ly - 4}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2.2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
  parts.push(`<text x="${lx + 38}" y="${ly}">${esc(s.name)}</text>`);
});
parts.push('</svg>');
writeFileSync(OUT, parts.join('\n') + '\n');
console.log(`wrote ${OUT}`);
process.exit(0);
