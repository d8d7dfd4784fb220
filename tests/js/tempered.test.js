// The tempered path (softmax / logSoftmax / logSumExp at T != 1 over 256+
// entries, and the samplers that use it), as a newcomer and an adversary would
// use the library. Every check compares with an independent float64
// computation (tests/js/reference.js, or the chain below), or with the other
// build, or with a documented identity; nothing here is a hard-coded output of
// the library. The last block holds the library to what its documents say
// (index.d.ts, the README's "Accuracy and reproducibility" and boundary rules).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { logTol, mismatch, probTolT } from './helpers.js';
import { mulberry32, normalArray, refLogSoftmax, refLogSumExp, refSoftmax } from './reference.js';

const f32 = Math.fround;

/** The first index where the float32 bits differ, or -1. */
function firstBitDiff(a, b) {
  if (a.length !== b.length) return 0;
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < ua.length; i++) if (ua[i] !== ub[i]) return i;
  return -1;
}

/** The distance to the next float32 up from |v| (v a float32). */
function ulp32(v) {
  const a = new Float32Array([Math.abs(v)]);
  const u = new Uint32Array(a.buffer);
  u[0] += 1;
  return a[0] - f32(Math.abs(v));
}

const lin = (n, a, b) => Float32Array.from({ length: n }, (_, i) => a + ((b - a) * i) / (n - 1));

// Temperatures at and around the tempered path's limits and around 1. The
// library rounds T to float32 first (README, "Rules at the boundary"), so the
// reference uses Math.fround(T).
const TEMPS = [
  2 ** -64, 2 ** -64 * (1 - 2 ** -24), 2 ** -64 * (1 + 2 ** -23), 2 ** -63,
  2 ** 64, 2 ** 64 * (1 - 2 ** -24), 2 ** 64 * (1 + 2 ** -23), 2 ** 63,
  0.9999999, 1.0000001, 1e-45, 1e-44, 1e-30, 3.4e38, 1e30, 0.5, 7, 0.3,
];
const LENGTHS = [255, 256, 257, 4099];

/** Inputs that probe the tempered path's branches for length n at temperature T. */
function dataSets(n, T) {
  const withAt = (base, entries) => {
    const a = base.slice();
    for (const [i, v] of entries) a[(i + n) % n] = v;
    return a;
  };
  return {
    within10T: lin(n, -10 * T, 0),
    within80T: lin(n, -80 * T, 0), // the unmasked kernel
    below80T: lin(n, -81 * T, 0), // the masked kernel, nothing flushed
    below200T: lin(n, -200 * T, 0), // the masked kernel, flushing
    normal: Float32Array.from(normalArray(n, { seed: n + 3, sd: 3 * Math.min(T, 1e30) })),
    negInf: withAt(lin(n, -5 * T, 0), [[1, -Infinity], [-1, -Infinity], [100, -Infinity]]),
    at2pow100: lin(n, 2 ** 100 - 2 ** 100 * Math.min(1, T / 1e20), 2 ** 100),
    atMinus2pow100: lin(n, -(2 ** 101), -(2 ** 100)),
    at2pow101: lin(n, 2 ** 101 * (1 - 1e-7), 2 ** 101),
    outlierFltMax: withAt(lin(n, -1, 1), [[7, 3.4e38]]),
    outlier2pow100: withAt(lin(n, -1, 1), [[7, 2 ** 100]]),
    outlier2pow100WithFltMin: withAt(lin(n, -1, 1), [[7, 2 ** 100], [9, -3.4e38]]),
    minusFltMax: withAt(lin(n, -1, 1), [[3, -3.4e38]]),
    allEqual: new Float32Array(n).fill(1.5),
    denormals: lin(n, -1e-38, 1e-38),
  };
}

const lseTol = (r) => 1e-6 * Math.max(1, Math.abs(r));

let S; // the SIMD build
let B; // the baseline build
beforeAll(async () => {
  S = await load({ simd: true });
  B = await load({ simd: false });
});

describe('tempered path: accuracy against the float64 reference, bits across builds', () => {
  test('load() gives the two builds', () => {
    expect(S.simd).toBe(true);
    expect(B.simd).toBe(false);
  });

  test('softmax, logSoftmax, logSumExp over lengths 255..4099 and edge temperatures', () => {
    const bad = [];
    let checked = 0;
    for (const n of LENGTHS) {
      for (const T of TEMPS) {
        for (const [name, x] of Object.entries(dataSets(n, T))) {
          const label = `${name} n=${n} T=${T}`;
          const opt = { temperature: T };
          const ro = { temperature: f32(T) };
          const p = S.softmax(x, opt);
          const pb = B.softmax(x, opt);
          const lp = S.logSoftmax(x, opt);
          const lpb = B.logSoftmax(x, opt);
          const lse = S.logSumExp(x, opt);
          const lseb = B.logSumExp(x, opt);
          const m1 = mismatch(p, refSoftmax(x, ro), probTolT, `softmax ${label}`);
          const m2 = mismatch(lp, refLogSoftmax(x, ro), logTol, `logSoftmax ${label}`);
          const r3 = refLogSumExp(x, ro)[0];
          if (m1) bad.push(m1);
          if (m2) bad.push(m2);
          if (!(Math.abs(lse - r3) <= lseTol(r3)) && lse !== r3) bad.push(`logSumExp ${label}: ${lse}, expected ${r3}`);
          if (firstBitDiff(p, pb) >= 0) bad.push(`softmax bits SIMD != baseline ${label} at ${firstBitDiff(p, pb)}`);
          if (firstBitDiff(lp, lpb) >= 0) bad.push(`logSoftmax bits SIMD != baseline ${label}`);
          if (!Object.is(lse, lseb)) bad.push(`logSumExp SIMD ${lse} != baseline ${lseb} ${label}`);
          checked++;
        }
      }
    }
    expect(checked).toBe(LENGTHS.length * TEMPS.length * 15);
    expect(bad).toEqual([]);
  });

  test('random fuzz: T log-uniform in [2^-70, 2^70], centres up to 2^105, -Infinity and -FLT_MAX entries', () => {
    const rng = mulberry32(1234);
    const bad = [];
    for (let it = 0; it < 800; it++) {
      const n = 250 + Math.floor(rng() * 300);
      const T = f32(2 ** (rng() * 140 - 70));
      const centre = (rng() < 0.5 ? 1 : -1) * 2 ** (rng() * 110 - 5) * (rng() < 0.2 ? 0 : 1);
      const spread = T * 2 ** (rng() * 12 - 3);
      const x = Float32Array.from({ length: n }, () => centre - rng() * spread);
      if (rng() < 0.3) x[Math.floor(rng() * n)] = -Infinity;
      if (rng() < 0.2) x[Math.floor(rng() * n)] = -3.4e38;
      const o = { temperature: T };
      const label = `T=${T} centre=${centre} spread=${spread} n=${n}`;
      const a = S.softmax(x, o);
      const m = mismatch(a, refSoftmax(x, o), probTolT, label);
      if (m) bad.push(m);
      if (firstBitDiff(a, B.softmax(x, o)) >= 0) bad.push(`bits ${label}`);
      const lse = S.logSumExp(x, o);
      const r = refLogSumExp(x, o)[0];
      if (!(Math.abs(lse - r) <= lseTol(r)) && lse !== r) bad.push(`logSumExp ${label}: ${lse} vs ${r}`);
      if (!Object.is(lse, B.logSumExp(x, o))) bad.push(`logSumExp bits ${label}`);
    }
    expect(bad).toEqual([]);
  });

  test('N = 2^18 (normal and one max over many equal entries) within the promised bound', () => {
    const n = 2 ** 18;
    const normal = Float32Array.from(normalArray(n, { seed: 9, sd: 3 }));
    const flat = new Float32Array(n).fill(-12.4);
    flat[0] = 0;
    const bad = [];
    for (const [name, x] of [['normal', normal], ['flat', flat]]) {
      for (const T of [0.7, 0.9999999, 1.0000001, 3]) {
        const a = S.softmax(x, { temperature: T });
        const m = mismatch(a, refSoftmax(x, { temperature: f32(T) }), probTolT, `${name} T=${T}`);
        if (m) bad.push(m);
        if (firstBitDiff(a, B.softmax(x, { temperature: T })) >= 0) bad.push(`bits ${name} T=${T}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('tempered path: exactness promises', () => {
  test('a one-hot slice is exactly 1, tied maxima exactly 1/2, the max log-probability exactly 0', () => {
    for (const sm of [S, B]) {
      for (const T of [0.5, 2 ** -64, 1.0000001, 0.9999999, 1e-3]) {
        for (const n of [256, 257, 4099]) {
          const x = new Float32Array(n).fill(-1000);
          x[n - 5] = 3; // in the scalar tail for 257 and 4099
          const ref = refSoftmax(x, { temperature: f32(T) });
          expect(ref[n - 5]).toBe(1);
          expect(sm.softmax(x, { temperature: T })[n - 5]).toBe(1);
          expect(sm.logSoftmax(x, { temperature: T })[n - 5]).toBe(0);
          x[1] = 3;
          const p = sm.softmax(x, { temperature: T });
          expect([p[1], p[n - 5]]).toEqual([0.5, 0.5]);
        }
      }
    }
  });

  test('the largest exponential is 1: softmax(max) * sum(exp((x - max)/T)) == 1 within one rounding', () => {
    // p_max = 1 / S, rounded once (plus the scale): check against the float64 S.
    for (const sm of [S, B]) {
      for (const T of [0.3, 2, 2 ** -60, 2 ** 60]) {
        const x = Float32Array.from(normalArray(1000, { seed: 4, sd: 2 * T }));
        const r = refSoftmax(x, { temperature: f32(T) });
        let k = 0;
        for (let i = 1; i < x.length; i++) if (x[i] > x[k]) k = i;
        const p = sm.softmax(x, { temperature: T })[k];
        expect(Math.abs(p - r[k]) / r[k]).toBeLessThan(1e-6);
      }
    }
  });

  test('shift invariance is bit-exact where the shift is exact', () => {
    for (const sm of [S, B]) {
      const x = Float32Array.from({ length: 300 }, (_, i) => Math.round(Math.sin(i) * 1000) / 64);
      const y = x.map((v) => v + 4096);
      for (const T of [0.3, 7, 2 ** -20, 1.0000001]) {
        expect(firstBitDiff(sm.softmax(x, { temperature: T }), sm.softmax(y, { temperature: T }))).toBe(-1);
      }
    }
  });

  test('255 -> 256 entries (path switch) by one -Infinity pad changes nothing beyond the tolerance', () => {
    for (const T of [0.3, 3, 2 ** -64, 2 ** 64]) {
      const x = Float32Array.from(normalArray(255, { seed: 2, sd: 3 * T }));
      const padded = new Float32Array(256).fill(-Infinity);
      padded.set(x);
      const a = S.softmax(x, { temperature: T });
      const b = S.softmax(padded, { temperature: T });
      const r = refSoftmax(x, { temperature: f32(T) });
      expect(b[255]).toBe(0);
      expect(mismatch(b.subarray(0, 255), r, probTolT, `padded T=${T}`)).toBeNull();
      expect(mismatch(a, r, probTolT, `unpadded T=${T}`)).toBeNull();
      const l1 = S.logSumExp(x, { temperature: T });
      const l2 = S.logSumExp(padded, { temperature: T });
      expect(Math.abs(l1 - l2)).toBeLessThanOrEqual(2 * lseTol(l1));
    }
  });

  test('+Infinity entries share the mass, NaN poisons its slice, all -Infinity follows masked', () => {
    for (const sm of [S, B]) {
      const x = Float32Array.from(normalArray(300, { seed: 5 }));
      x[3] = Infinity;
      x[200] = Infinity;
      const p = sm.softmax(x, { temperature: 0.5 });
      expect(p[3]).toBe(0.5);
      expect(p[200]).toBe(0.5);
      expect(p.reduce((s, v) => s + v, 0)).toBe(1);
      const y = new Float32Array(600).fill(-Infinity);
      for (let i = 300; i < 600; i++) y[i] = Math.sin(i);
      y[450] = NaN;
      const q = sm.softmax(y, { temperature: 0.5, shape: [2, 300], masked: 'zeros' });
      expect(q.subarray(0, 300).every((v) => v === 0)).toBe(true);
      expect(q.subarray(300).every((v) => Number.isNaN(v))).toBe(true);
    }
  });
});

describe('tempered path: log identities, shapes, in-place out', () => {
  test('logSoftmax = log(softmax); logSumExp = max / T + log(sum exp((x - max) / T)); logSoftmax = x / T - logSumExp', () => {
    const bad = [];
    for (const sm of [S, B]) {
      for (const T of [0.3, 1.0000001, 2 ** -64, 2 ** 64, 50]) {
        for (const n of [256, 1000]) {
          const x = Float32Array.from(normalArray(n, { seed: n, sd: 4 * T }));
          const p = sm.softmax(x, { temperature: T });
          const lp = sm.logSoftmax(x, { temperature: T });
          const lse = sm.logSumExp(x, { temperature: T });
          const Tf = f32(T);
          const max = Math.max(...x);
          let s = 0;
          for (const v of x) s += Math.exp((v - max) / Tf);
          const lseRef = max / Tf + Math.log(s);
          if (!(Math.abs(lse - lseRef) <= lseTol(lseRef))) bad.push(`lse T=${T} n=${n}: ${lse} vs ${lseRef}`);
          for (let i = 0; i < n; i++) {
            if (p[i] >= 1.2e-38 && !(Math.abs(lp[i] - Math.log(p[i])) <= 4e-6 * Math.max(1, Math.abs(lp[i])))) {
              bad.push(`log(softmax) T=${T} n=${n} [${i}]: ${lp[i]} vs ${Math.log(p[i])}`);
              break;
            }
            const viaLse = x[i] / Tf - lse; // double: exact enough for the check
            if (!(Math.abs(lp[i] - viaLse) <= 2e-6 * Math.max(1, Math.abs(viaLse), Math.abs(x[i] / Tf)))) {
              bad.push(`x/T - lse T=${T} n=${n} [${i}]: ${lp[i]} vs ${viaLse}`);
              break;
            }
          }
        }
      }
    }
    expect(bad).toEqual([]);
  });

  test('N-D shapes and axes, strided slices of 256+, in-place out in wasm memory', () => {
    const bad = [];
    const layouts = [
      [[3, 300], 0], [[300, 3], 0], [[2, 257, 3], 1], [[2, 257, 3], -2], [[4099, 1], 0], [[256, 256], 0], [[256, 256], 1],
    ];
    for (const [shape, axis] of layouts) {
      const n = shape.reduce((a, b) => a * b, 1);
      const x = Float32Array.from(normalArray(n, { seed: n, sd: 4 }));
      x[5] = -Infinity;
      for (const T of [0.5, 3, 2 ** -64 * 1e18]) {
        const o = { temperature: T, shape, axis };
        const ro = { temperature: f32(T), shape, axis };
        const label = `[${shape}] axis ${axis} T=${T}`;
        for (const sm of [S, B]) {
          const p = sm.softmax(x, o);
          const m1 = mismatch(p, refSoftmax(x, ro), probTolT, `softmax ${label}`);
          const m2 = mismatch(sm.logSoftmax(x, o), refLogSoftmax(x, ro), logTol, `logSoftmax ${label}`);
          const m3 = mismatch(sm.logSumExp(x, o), refLogSumExp(x, ro), lseTol, `logSumExp ${label}`);
          for (const m of [m1, m2, m3]) if (m) bad.push(m);
          const buf = sm.buffer(n);
          buf.set(x);
          const r = sm.softmax(buf, { ...o, out: buf });
          if (r !== buf) bad.push(`out not returned ${label}`);
          if (firstBitDiff(r, p) >= 0) bad.push(`in place differs ${label}`);
          const js = x.slice();
          sm.logSoftmax(js, { ...o, out: js });
          if (firstBitDiff(js, sm.logSoftmax(x, o)) >= 0) bad.push(`logSoftmax in place (JS array) differs ${label}`);
        }
        // overlapping scores and out in wasm memory: as if the scores were copied first
        const big = S.buffer(n + 1);
        big.set(x);
        S.softmax(big.subarray(0, n), { ...o, out: big.subarray(1, n + 1) });
        if (firstBitDiff(big.subarray(1, n + 1), S.softmax(x, o)) >= 0) bad.push(`overlap ${label}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

// ---- the sampler --------------------------------------------------------------

/**
 * A float64 chain over the steps of HF's or llama.cpp's order: temperature
 * (or dynatemp), topK, topP, minP, typicalP, epsilonCutoff, etaCutoff, with
 * minKeep; the definitions, not the library's code. Log-probabilities are
 * (x - max) / T - log(sum), finite where p underflows (as HF's log_softmax).
 * `ambiguous` when a cut lies within rounding of its threshold.
 */
const ORDERS = {
  hf: ['temperature', 'topK', 'topP', 'minP', 'typicalP', 'epsilonCutoff', 'etaCutoff'],
  'llama.cpp': ['topK', 'typicalP', 'topP', 'minP', 'epsilonCutoff', 'etaCutoff', 'temperature'],
};
function refChain(x, o) {
  const l = Array.from(x, f32);
  const n = l.length;
  const minKeep = o.minKeep ?? 1;
  let cand = [...Array(n).keys()].filter((i) => l[i] !== -Infinity);
  let T = 1;
  let ambiguous = false;
  const logProbs = (c, t) => {
    const m = Math.max(...c.map((i) => l[i]));
    const z = c.map((i) => (l[i] - m) / t);
    const ls = Math.log(z.reduce((a, v) => a + Math.exp(v), 0));
    return z.map((v) => v - ls);
  };
  const probs = (c, t) => logProbs(c, t).map(Math.exp);
  const entropy = (c, t) => {
    const lp = logProbs(c, t);
    return -lp.reduce((a, v) => a + Math.exp(v) * v, 0);
  };
  const byLogit = (c) => [...c].sort((a, b) => l[b] - l[a] || a - b);
  const keepAtLeast = (sorted, k) => sorted.slice(0, Math.max(k, Math.min(minKeep, sorted.length))).sort((a, b) => a - b);
  const massCut = (ps, p) => {
    let cum = 0;
    for (let j = 0; j < ps.length; j++) {
      cum += ps[j];
      if (Math.abs(cum - (p - 1e-6)) < 1e-5) ambiguous = true;
      if (cum >= p - 1e-6) return j + 1;
    }
    return ps.length;
  };
  const threshold = (th) => {
    const ps = probs(cand, T);
    const kept = cand.filter((_, j) => {
      if (Math.abs(ps[j] - th) < 1e-4 * th) ambiguous = true;
      return ps[j] >= th;
    });
    cand = kept.length >= Math.min(minKeep, cand.length) ? kept : keepAtLeast(byLogit(cand), 0);
  };
  for (const step of ORDERS[o.order ?? 'hf']) {
    if (step === 'temperature') {
      if (o.dynatempRange > 0) {
        const h = entropy(cand, 1);
        const lo = Math.max(0, o.temperature - o.dynatempRange);
        const hi = o.temperature + o.dynatempRange;
        T = f32(lo + (hi - lo) * Math.pow(h / Math.log(cand.length), o.dynatempExponent ?? 1));
      } else if (o.temperature !== undefined) {
        T = f32(o.temperature);
      }
    } else if (step === 'topK' && o.topK > 0) {
      cand = keepAtLeast(byLogit(cand), o.topK);
    } else if (cand.length <= 1) {
      continue;
    } else if (step === 'topP' && o.topP !== undefined && o.topP < 1) {
      const s = byLogit(cand);
      cand = keepAtLeast(s, massCut(probs(s, T), o.topP));
    } else if (step === 'minP' && o.minP > 0) {
      const ps = probs(cand, T);
      const pm = Math.max(...ps);
      const kept = cand.filter((_, j) => {
        if (Math.abs(ps[j] / pm - o.minP) < 1e-5) ambiguous = true;
        return ps[j] >= o.minP * pm * (1 - 1e-6);
      });
      cand = kept.length >= Math.min(minKeep, cand.length) ? kept : keepAtLeast(byLogit(cand), 0);
    } else if (step === 'typicalP' && o.typicalP !== undefined && o.typicalP < 1) {
      const lp = logProbs(cand, T);
      const h = -lp.reduce((a, v) => a + Math.exp(v) * v, 0);
      const key = new Map(cand.map((i, j) => [i, Math.abs(-lp[j] - h)]));
      const pm = new Map(cand.map((i, j) => [i, Math.exp(lp[j])]));
      const s = [...cand].sort((a, b) => key.get(a) - key.get(b) || a - b);
      const k = Math.max(massCut(s.map((i) => pm.get(i)), o.typicalP), Math.min(minKeep, s.length));
      if (k < s.length && Math.abs(key.get(s[k - 1]) - key.get(s[k])) < 1e-4 * Math.max(1, key.get(s[k]))) ambiguous = true;
      cand = s.slice(0, k).sort((a, b) => a - b);
    } else if (step === 'epsilonCutoff' && o.epsilonCutoff > 0) {
      threshold(o.epsilonCutoff);
    } else if (step === 'etaCutoff' && o.etaCutoff > 0) {
      threshold(Math.min(o.etaCutoff, Math.sqrt(o.etaCutoff) * Math.exp(-entropy(cand, T))));
    }
  }
  const out = new Float64Array(n);
  const ps = probs(cand, T);
  cand.forEach((i, j) => (out[i] = ps[j]));
  return { probs: out, ambiguous };
}

function samplerProbs(sm, x, o, call) {
  const s = sm.createSampler({ seed: 3, ...o });
  try {
    return call ? s.probs(x, call) : s.probs(x);
  } finally {
    s.dispose();
  }
}

describe('samplers on the tempered path', () => {
  test('probs() with temperature alone is softmax at that temperature, bit for bit', () => {
    const bad = [];
    for (const n of LENGTHS) {
      for (const T of [0.7, 1.3, 2 ** -64, 2 ** 64, 0.9999999, 1.0000001, 1e-30, 50]) {
        const x = Float32Array.from(normalArray(n, { seed: n, sd: 3 * Math.min(T, 1e6) }));
        for (const sm of [S, B]) {
          const p = samplerProbs(sm, x, { temperature: T });
          const d = firstBitDiff(p, sm.softmax(x, { temperature: T }));
          if (d >= 0) bad.push(`n=${n} T=${T} simd=${sm.simd} at ${d}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  test('probs() against the float64 chain: temperature + typicalP / etaCutoff / epsilonCutoff / dynatempRange / topP / minP / topK, both orders, minKeep, token masks', () => {
    const rng = mulberry32(99);
    const pick = (a) => a[Math.floor(rng() * a.length)];
    const bad = [];
    let decided = 0;
    const ITER = 400;
    for (let it = 0; it < ITER; it++) {
      const n = pick([255, 256, 257, 300, 1000, 4099]);
      const T = pick([0.5, 0.9999999, 1.0000001, 2, 0.1, 10, 2 ** -64, 2 ** 64, 2 ** -60, 2 ** 60]);
      const x = Float32Array.from(normalArray(n, { seed: it, sd: pick([1, T, 3 * T]) }));
      if (rng() < 0.3) for (let k = 0; k < 5; k++) x[Math.floor(rng() * n)] = -Infinity;
      const o = { temperature: T, order: pick(['hf', 'hf', 'llama.cpp']), minKeep: pick([1, 1, 1, 3, 20]) };
      if (rng() < 0.5) o.typicalP = pick([0.2, 0.5, 0.9, 0.99]);
      if (rng() < 0.4) o.etaCutoff = pick([1e-4, 1e-3, 0.02]);
      if (rng() < 0.2) o.epsilonCutoff = pick([1e-4, 3e-3]);
      if (rng() < 0.3) o.topP = pick([0.5, 0.9]);
      if (rng() < 0.3) o.minP = pick([0.01, 0.1]);
      if (rng() < 0.2) o.topK = pick([5, 256, 500]);
      if (rng() < 0.3 && T < 1e3 && T > 1e-3) o.dynatempRange = pick([0.3, 0.8]);
      let mask;
      if (rng() < 0.3) {
        mask = new Uint32Array(Math.ceil(n / 32));
        for (let i = 0; i < n; i++) if (rng() < 0.7) mask[i >> 5] |= 1 << (i & 31);
      }
      const call = mask ? { mask } : undefined;
      const ps = samplerProbs(S, x, o, call);
      const pb = samplerProbs(B, x, o, call);
      const label = `${JSON.stringify(o)} n=${n} mask=${!!mask}`;
      if (firstBitDiff(ps, pb) >= 0) bad.push(`bits SIMD != baseline ${label}`);
      const xr = mask ? x.map((v, i) => ((mask[i >> 5] >>> (i & 31)) & 1 ? v : -Infinity)) : x;
      const r = refChain(xr, o);
      if (r.ambiguous) continue;
      decided++;
      // a step's cut can add one renormalisation's rounding: 4x the softmax bar
      const m = mismatch(ps, r.probs, (v) => 4 * probTolT(v) + 1e-12, label);
      if (m) bad.push(m);
    }
    expect(decided).toBeGreaterThan(ITER * 0.8);
    expect(bad).toEqual([]);
  });

  test('sample / sampleMany / sampleBatch / logprobs give the same results in both builds', () => {
    const x = Float32Array.from(normalArray(4 * 1000, { seed: 8, sd: 3 }));
    for (const o of [{ temperature: 0.7 }, { temperature: 0.7, typicalP: 0.8 }, { temperature: 2 ** -60, etaCutoff: 1e-3 }, { temperature: 1.3, dynatempRange: 0.5 }, { temperature: 0.6, topK: 256 }]) {
      const run = (sm) => {
        const s = sm.createSampler({ seed: 42, ...o });
        try {
          const lp = s.logprobs(x.subarray(0, 1000), 8);
          return [s.sampleMany(x.subarray(0, 1000), 300), s.sampleBatch(x, [4, 1000]), lp.indices, lp.after, lp.before, s.sample(x.subarray(1000, 2000))];
        } finally {
          s.dispose();
        }
      };
      const a = run(S);
      const b = run(B);
      a.forEach((v, i) => {
        if (typeof v === 'number') expect(v).toBe(b[i]);
        else expect(firstBitDiff(v, b[i]), `${JSON.stringify(o)} part ${i}`).toBe(-1);
      });
    }
  });
});

describe('bad input at the temperature', () => {
  const x = Float32Array.from({ length: 300 }, (_, i) => Math.sin(i));

  test('errors name temperature and the runtime keeps working', () => {
    const cases = [
      [NaN, RangeError], [-1, RangeError], [-1e-46, RangeError], [-Infinity, RangeError],
      ['1', TypeError], [null, TypeError], [1n, TypeError], [{}, TypeError], [[1], TypeError],
    ];
    for (const sm of [S, B]) {
      for (const [T, E] of cases) {
        for (const fn of ['softmax', 'logSoftmax', 'logSumExp', 'softmaxSteps']) {
          expect(() => sm[fn](x, { temperature: T }), `${fn} ${String(T)}`).toThrow(E);
          expect(() => sm[fn](x, { temperature: T })).toThrow(/temperature/);
        }
        expect(() => sm.createSampler({ seed: 1, temperature: T })).toThrow(E);
        expect(() => sm.createSampler({ seed: 1, temperature: T })).toThrow(/temperature/);
        expect(() => sm.sample(x, { temperature: T })).toThrow(/temperature/);
      }
      expect(() => sm.createSampler({ temperature: 3.5e38, dynatempRange: 1 })).toThrow(/temperature/);
      expect(() => sm.createSampler({ typicalP: NaN })).toThrow(/typicalP/);
      expect(() => sm.createSampler({ etaCutoff: 1 })).toThrow(/etaCutoff/);
      expect(() => sm.createSampler({ dynatempRange: -1 })).toThrow(/dynatempRange/);
      // still alive, and still right
      const p = sm.softmax(x, { temperature: 0.5 });
      expect(mismatch(p, refSoftmax(x, { temperature: 0.5 }), probTolT)).toBeNull();
      expect(sm.liveSamplers).toBe(0);
    }
  });

  test('temperatures that round to 0 or Infinity in float32 are the greedy and uniform limits', () => {
    for (const sm of [S, B]) {
      const p0 = sm.softmax(x, { temperature: 1e-46 });
      let k = 0;
      for (let i = 1; i < x.length; i++) if (x[i] > x[k]) k = i;
      expect(p0[k]).toBe(1);
      const pInf = sm.softmax(x, { temperature: 1e39 });
      expect(pInf.every((v) => v === f32(1 / 300))).toBe(true);
    }
  });
});

// ---- what the documents say ---------------------------------------------------

describe('documented contracts', () => {
  let validate;
  beforeAll(() => {
    validate = WebAssembly.validate;
  });
  afterAll(() => {
    WebAssembly.validate = validate;
  });

  test('index.d.ts SoftmaxSteps.probs: exps * float(1 / sum) under 256 entries, within |shifted| 2^-23 + 3 ulp of exps / sum at T != 1 over 256+', () => {
    const x = Float32Array.from({ length: 300 }, (_, i) => Math.sin(i * 1.7) * 5);
    for (const T of [0.3, 0.5, 3]) {
      const st = S.softmaxSteps(x, { temperature: T });
      for (let i = 0; i < x.length; i++) {
        const q = st.exps[i] / st.sum;
        const bound = Math.abs(st.shifted[i]) * 2 ** -23 * q + 3 * ulp32(f32(q));
        expect(Math.abs(st.probs[i] - q), `T=${T} [${i}]`).toBeLessThanOrEqual(bound);
      }
      expect(st.probs).toEqual(S.softmax(x, { temperature: T }));
      const st2 = S.softmaxSteps(x.subarray(0, 255), { temperature: T });
      for (let i = 0; i < 255; i++) {
        expect(st2.probs[i]).toBe(f32(st2.exps[i] * f32(1 / st2.sum)));
      }
    }
  });

  test('README: exponentials below 2^-126 flush to 0, at (x - max) / T < -87.34 on the exact path and below about -87.7 on the tempered path', () => {
    for (const sm of [S, B]) {
      for (const T of [0.5, 3]) {
        const x = new Float32Array(300).fill(-1000 * T);
        x[0] = 0;
        x[1] = f32(-87.5 * T); // exp(-87.5) = 9.98e-39 < 2^-126
        x[2] = f32(-88.5 * T); // below every path's floor
        const r = refSoftmax(x, { temperature: T });
        const short = sm.softmax(x.subarray(0, 3), { temperature: T }); // exact path
        const long = sm.softmax(x, { temperature: T }); // tempered path
        expect(short[1]).toBe(0);
        expect(short[2]).toBe(0);
        expect(long[2]).toBe(0);
        expect(Math.abs(long[1] - r[1]), `T=${T}: tempered keeps ${long[1]}`).toBeLessThanOrEqual((1e-6 + 87.5 * 2 ** -23) * r[1] + 2 ** -149);
      }
    }
  });

  test('README: temperature rounds to float32 first: up to ~7e-46 it is 0 (greedy), 1e-45 is the least float32, from ~3.4028236e38 Infinity (uniform)', () => {
    const x = [0, -1.4e-45];
    const greedy = S.softmax(x, { temperature: 0 });
    expect(Array.from(greedy)).toEqual([1, 0]);
    expect(Array.from(S.softmax(x, { temperature: 7e-46 }))).toEqual(Array.from(greedy));
    // 1e-45 rounds to 2^-149: (x - max) / T = -1, not the greedy limit.
    const p = S.softmax(x, { temperature: 1e-45 });
    const e = Math.exp(-1);
    expect(Math.abs(p[0] - 1 / (1 + e))).toBeLessThan(1e-6);
    expect(Array.from(S.softmax([1, 2, -Infinity], { temperature: 3.5e38 }))).toEqual([0.5, 0.5, 0]);
  });

  test('load({ simd: true }) without the saturating conversions says what is missing', async () => {
    // The probe of wasm-feature-detect's saturatedFloatToInt (i32.trunc_sat_f32_s).
    const sat = [0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 12, 1, 10, 0, 67, 0, 0, 0, 0, 252, 0, 26, 11];
    WebAssembly.validate = (bytes) => {
      const u = new Uint8Array(bytes);
      if (u.length === sat.length && u.every((v, i) => v === sat[i])) return false;
      return validate(bytes);
    };
    let err;
    try {
      await load({ simd: true });
    } catch (e) {
      err = e;
    } finally {
      WebAssembly.validate = validate;
    }
    expect(err).toBeInstanceOf(RangeError);
    // The engine has SIMD here: the message must not say it has none.
    expect(err.message).toMatch(/saturat|trunc_sat|float-to-int/i);
    expect(S.softmax([1, 2], { temperature: 0.5 })[1]).toBeGreaterThan(0.5);
  });
});
