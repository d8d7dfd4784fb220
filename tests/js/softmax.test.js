// The softmax family of the JS API against the independent double-precision
// reference (tests/js/reference.js), for both wasm builds; then every bullet
// of DESIGN.md "Semantics" that concerns the softmax family.
import { readFileSync } from 'node:fs';

import { beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { BUILDS, badSums, logTol, mismatch, outOfUnit, probTol, probTolT } from './helpers.js';
import {
  mulberry32,
  normalArray,
  refArgmax,
  refLogSoftmax,
  refLogSumExp,
  refSoftmax,
  slices,
} from './reference.js';

const SIZES = [0, 1, 2, 3, ...Array.from({ length: 61 }, (_, i) => i + 4), 1000, 32000, 262144];
const TEMPERATURES = [0.3, 2, 10];
const inputs = (n, seed = n + 1) => normalArray(n, { seed, sd: 3 });

describe.each(BUILDS)('$build build', ({ simd }) => {
  let sm;
  beforeAll(async () => {
    sm = await load({ simd });
  });

  test('load() gives the requested build', () => {
    expect(sm.simd).toBe(simd);
  });

  describe('against the reference, normal(0, 3) inputs, T = 1', () => {
    test.each(SIZES)('softmax, n = %i', (n) => {
      const x = inputs(n);
      const y = sm.softmax(x);
      expect(y).toBeInstanceOf(Float32Array);
      expect(y.length).toBe(n);
      expect(mismatch(y, refSoftmax(x), probTol, 'softmax')).toBeNull();
      expect(outOfUnit(y)).toEqual([]);
      if (n > 0) expect(badSums(y, slices(n))).toEqual([]);
    });

    test.each(SIZES)('logSoftmax, n = %i', (n) => {
      const x = inputs(n);
      const y = sm.logSoftmax(x);
      expect(y).toBeInstanceOf(Float32Array);
      expect(mismatch(y, refLogSoftmax(x), logTol, 'logSoftmax')).toBeNull();
    });

    test.each(SIZES)('logSumExp, n = %i', (n) => {
      const x = inputs(n);
      const v = sm.logSumExp(x);
      expect(typeof v).toBe('number');
      const r = refLogSumExp(x)[0];
      if (n === 0) expect(v).toBe(-Infinity);
      else expect(Math.abs(v - r)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(r)));
    });

    test('Float32Array and Float64Array scores give the same result as number[]', () => {
      const x = inputs(777);
      const a = sm.softmax(x);
      expect(sm.softmax(Float32Array.from(x))).toEqual(a);
      expect(sm.softmax(Float64Array.from(x))).toEqual(a);
      expect(sm.logSoftmax(Float64Array.from(x))).toEqual(sm.logSoftmax(x));
    });
  });

  describe('temperature', () => {
    const sizes = [1, 2, 3, 5, 8, 17, 31, 64, 1000, 32000, 262144];
    test.each(TEMPERATURES)('softmax, logSoftmax, logSumExp at T = %s', (T) => {
      for (const n of sizes) {
        const x = inputs(n, 7 * n + 3);
        const y = sm.softmax(x, { temperature: T });
        expect(mismatch(y, refSoftmax(x, { temperature: T }), probTolT, `softmax n=${n}`)).toBeNull();
        expect(badSums(y, slices(n))).toEqual([]);
        expect(outOfUnit(y)).toEqual([]);
        const ly = sm.logSoftmax(x, { temperature: T });
        expect(mismatch(ly, refLogSoftmax(x, { temperature: T }), logTol, `logSoftmax n=${n}`)).toBeNull();
        const r = refLogSumExp(x, { temperature: T })[0];
        const v = sm.logSumExp(x, { temperature: T });
        expect(Math.abs(v - r), `logSumExp n=${n}`).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(r)));
      }
    });

    test('T = 1 passed explicitly is the default', () => {
      const x = inputs(100);
      expect(sm.softmax(x, { temperature: 1 })).toEqual(sm.softmax(x));
    });

    test('a lower temperature sharpens, a higher one flattens (max probability)', () => {
      const x = inputs(50, 99);
      const top = (T) => Math.max(...sm.softmax(x, { temperature: T }));
      expect(top(0.3)).toBeGreaterThan(top(1));
      expect(top(1)).toBeGreaterThan(top(2));
      expect(top(2)).toBeGreaterThan(top(10));
    });
  });

  describe('N-D tensors: shape and axis', () => {
    const cases = [
      { shape: [2, 3], axes: [0, 1, -1, -2] },
      { shape: [3, 4, 5], axes: [0, 1, 2, -1, -2, -3] },
      { shape: [2, 3, 4, 5], axes: [0, 1, 2, 3, -4] },
      { shape: [7, 1000], axes: [0, 1] },
      { shape: [1000, 7], axes: [0, -1] },
      { shape: [1, 5, 1], axes: [0, 1, 2] },
      { shape: [64, 33], axes: [0, 1] },
      { shape: [10], axes: [0, -1] },
    ];
    for (const { shape, axes } of cases) {
      test.each(axes)(`shape [${shape}] axis %i`, (axis) => {
        const len = shape.reduce((p, d) => p * d, 1);
        const x = inputs(len, len + axis + 50);
        const opts = { shape, axis };
        const y = sm.softmax(x, opts);
        expect(mismatch(y, refSoftmax(x, opts), probTol, 'softmax')).toBeNull();
        expect(badSums(y, slices(len, shape, axis))).toEqual([]);
        const ly = sm.logSoftmax(x, opts);
        expect(mismatch(ly, refLogSoftmax(x, opts), logTol, 'logSoftmax')).toBeNull();
        const lse = sm.logSumExp(x, opts);
        const rl = refLogSumExp(x, opts);
        if (shape.length === 1) {
          expect(typeof lse).toBe('number');
          expect(Math.abs(lse - rl[0])).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(rl[0])));
        } else {
          expect(lse).toBeInstanceOf(Float32Array);
          expect(lse.length).toBe(len / shape.at(axis));
          expect(mismatch(lse, rl, logTol, 'logSumExp')).toBeNull();
        }
        // With a temperature too.
        const yt = sm.softmax(x, { ...opts, temperature: 0.3 });
        expect(mismatch(yt, refSoftmax(x, { ...opts, temperature: 0.3 }), probTolT, 'softmax T=0.3')).toBeNull();
      });
    }

    test('the default axis is the last one', () => {
      const x = inputs(60, 5);
      expect(sm.softmax(x, { shape: [3, 4, 5] })).toEqual(sm.softmax(x, { shape: [3, 4, 5], axis: 2 }));
      expect(sm.softmax(x, { shape: [3, 4, 5] })).toEqual(sm.softmax(x, { shape: [3, 4, 5], axis: -1 }));
    });

    test('1-D scores accept axis 0 and -1', () => {
      const x = inputs(9, 5);
      expect(sm.softmax(x, { axis: 0 })).toEqual(sm.softmax(x));
      expect(sm.softmax(x, { axis: -1 })).toEqual(sm.softmax(x));
    });

    test('each row of a 2-D tensor equals the softmax of that row alone', () => {
      const x = inputs(4 * 50, 3);
      const y = sm.softmax(x, { shape: [4, 50] });
      for (let r = 0; r < 4; r++) expect(y.subarray(r * 50, r * 50 + 50)).toEqual(sm.softmax(x.slice(r * 50, r * 50 + 50)));
    });
  });

  describe('out', () => {
    test('softmax writes into out and returns the same array', () => {
      const x = inputs(1000, 11);
      const out = new Float32Array(1000).fill(42);
      const y = sm.softmax(x, { out });
      expect(y).toBe(out);
      expect(out).toEqual(sm.softmax(x));
      expect(mismatch(out, refSoftmax(x), probTol, 'out')).toBeNull();
    });

    test('logSoftmax and softmaxNaive write into out', () => {
      const x = inputs(33, 12).map((v) => v / 3);
      const out = new Float32Array(33).fill(-7);
      expect(sm.logSoftmax(x, { out })).toBe(out);
      expect(out).toEqual(sm.logSoftmax(x));
      const out2 = new Float32Array(33);
      expect(sm.softmaxNaive(x, { out: out2 })).toBe(out2);
      expect(out2).toEqual(sm.softmaxNaive(x));
    });

    test('out may be the scores array itself (in place)', () => {
      const x = Float32Array.from(inputs(500, 13));
      const expected = sm.softmax(x, { shape: [20, 25], axis: 0 });
      const y = sm.softmax(x, { shape: [20, 25], axis: 0, out: x });
      expect(y).toBe(x);
      expect(x).toEqual(expected);
    });

    test('out with N-D shape and axis, reused across calls', () => {
      const out = new Float32Array(60);
      for (const axis of [0, 1, 2]) {
        const x = inputs(60, 20 + axis);
        const y = sm.softmax(x, { shape: [3, 4, 5], axis, out });
        expect(y).toBe(out);
        expect(mismatch(out, refSoftmax(x, { shape: [3, 4, 5], axis }), probTol, `axis ${axis}`)).toBeNull();
      }
    });

    test('logSumExp of N-D scores writes one value per slice into out', () => {
      const x = inputs(60, 21);
      const out = new Float32Array(12);
      const v = sm.logSumExp(x, { shape: [3, 4, 5], axis: 1, out: new Float32Array(15) });
      expect(v.length).toBe(15);
      const w = sm.logSumExp(x, { shape: [3, 4, 5], out });
      expect(w).toBe(out);
      expect(mismatch(out, refLogSumExp(x, { shape: [3, 4, 5] }), logTol, 'lse')).toBeNull();
    });
  });

  describe('buffer(): scores and out in wasm memory', () => {
    test('a view of n elements; softmax & co. read it and write into it', () => {
      const x = inputs(1000, 71);
      const buf = sm.buffer(1000);
      expect(buf).toBeInstanceOf(Float32Array);
      expect(buf.length).toBe(1000);
      buf.set(x);
      expect(mismatch(sm.softmax(buf), refSoftmax(x), probTol, 'softmax(buf)')).toBeNull();
      expect(Array.from(buf)).toEqual(x.map(Math.fround)); // scores untouched
      expect(mismatch(sm.logSoftmax(buf, { shape: [10, 100], axis: 0 }), refLogSoftmax(x, { shape: [10, 100], axis: 0 }), logTol)).toBeNull();
      expect(Math.abs(sm.logSumExp(buf) - refLogSumExp(x)[0])).toBeLessThan(1e-5);
      expect(sm.argmax(buf)).toBe(refArgmax(x));
      expect(mismatch(sm.softmaxSteps(buf).probs, refSoftmax(x), probTol)).toBeNull();
      // in place
      const y = sm.softmax(buf, { out: buf, temperature: 2 });
      expect(y).toBe(buf);
      expect(mismatch(buf, refSoftmax(x, { temperature: 2 }), probTolT, 'in place')).toBeNull();
      // a view as out, scores a plain array
      const out = sm.buffer(1000);
      expect(sm.softmax(x, { out })).toBe(out);
      expect(mismatch(out, refSoftmax(x), probTol, 'out view')).toBeNull();
    });

    test('calls whose staging grows wasm memory still read the view (fresh module)', async () => {
      const wasmBinary = readFileSync(new URL(`../../web/dist/softmax-${simd ? 'simd' : 'base'}.wasm`, import.meta.url));
      const n = 100_000;
      const x = inputs(n, 72);
      const fresh = await load({ simd, wasmBinary });
      let buf = fresh.buffer(n);
      buf.set(x);
      const steps = fresh.softmaxSteps(buf); // 20 n bytes of results: more than buffer() reserved
      expect(mismatch(steps.probs, refSoftmax(x), probTol, 'softmaxSteps(buffer view)')).toBeNull();
      const fresh2 = await load({ simd, wasmBinary });
      buf = fresh2.buffer(n);
      buf.set(x);
      const l = fresh2.logSumExp(buf, { shape: [n, 1] }); // one double per slice: 8 n bytes
      expect(mismatch(l, refLogSumExp(x, { shape: [n, 1] }), logTol, 'logSumExp(buffer view)')).toBeNull();
    });

    test('a view that wasm memory growth detached is rejected, naming the argument', async () => {
      const wasmBinary = readFileSync(new URL(`../../web/dist/softmax-${simd ? 'simd' : 'base'}.wasm`, import.meta.url));
      const fresh = await load({ simd, wasmBinary });
      const buf = fresh.buffer(10);
      buf.set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const big = inputs(fresh.heapBytes / 2, 73); // more than memory holds now: it grows
      fresh.softmax(big);
      expect(buf.length).toBe(0);
      for (const f of ['softmax', 'logSoftmax', 'softmaxNaive', 'logSumExp', 'softmaxSteps', 'argmax']) {
        expect(() => fresh[f](buf), f).toThrow(/scores/);
      }
      expect(() => fresh.softmax([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], { out: buf })).toThrow(/out/);
      const again = fresh.buffer(10);
      again.set([2, 1, 0]);
      expect(mismatch(fresh.softmax(again.subarray(0, 3)), refSoftmax([2, 1, 0]), probTol)).toBeNull();
    });
  });

  describe('logSumExp', () => {
    test('a number for 1-D scores, a Float32Array (one per slice) for N-D', () => {
      const x = [1, 2, 3, 4, 5, 6];
      const v = sm.logSumExp(x);
      expect(typeof v).toBe('number');
      expect(v).toBeCloseTo(Math.log(Math.exp(1) + Math.exp(2) + Math.exp(3) + Math.exp(4) + Math.exp(5) + Math.exp(6)), 6);
      const rows = sm.logSumExp(x, { shape: [2, 3] });
      expect(rows).toBeInstanceOf(Float32Array);
      expect(rows.length).toBe(2);
      expect(rows[0]).toBeCloseTo(Math.log(Math.exp(1) + Math.exp(2) + Math.exp(3)), 5);
      expect(rows[1]).toBeCloseTo(Math.log(Math.exp(4) + Math.exp(5) + Math.exp(6)), 5);
      const cols = sm.logSumExp(x, { shape: [2, 3], axis: 0 });
      expect(cols.length).toBe(3);
      expect(cols[2]).toBeCloseTo(Math.log(Math.exp(3) + Math.exp(6)), 5);
      // shape [n] is still one slice: a number
      expect(typeof sm.logSumExp(x, { shape: [6] })).toBe('number');
    });

    test('no overflow for large scores: log(e^1000 + e^1000) = 1000 + ln 2', () => {
      expect(Math.abs(sm.logSumExp([1000, 1000]) - (1000 + Math.LN2))).toBeLessThan(1e-4);
      expect(Math.abs(sm.logSumExp([3e38, 3e38]) - (Math.fround(3e38) + Math.LN2))).toBeLessThanOrEqual(3e38 * 1e-6);
    });

    test('logSoftmax = x/T - logSumExp', () => {
      const x = inputs(100, 31);
      for (const T of [1, 0.3, 2]) {
        const l = sm.logSumExp(x, { temperature: T });
        const ly = sm.logSoftmax(x, { temperature: T });
        const ref = x.map((v) => Math.fround(v) / T - l);
        expect(mismatch(ly, ref, (r) => 2e-6 * Math.max(1, Math.abs(r)), `T=${T}`)).toBeNull();
      }
    });
  });

  describe('softmaxSteps', () => {
    const cases = [
      { x: [0.707, 0, 0.707], T: 1 },
      { x: [2, 1, 0], T: 0.5 },
      { x: [1000, 1001, 1002], T: 1 },
      { x: inputs(37, 41), T: 1 },
      { x: inputs(100, 42), T: 0.3 },
      { x: inputs(64, 43), T: 2 },
      { x: inputs(5, 44), T: 10 },
    ];
    test.each(cases.map((c, i) => ({ ...c, i })))('case $i (n = $x.length, T = $T): fields consistent with each other and the reference', ({ x, T }) => {
      const s = sm.softmaxSteps(x, { temperature: T });
      const n = x.length;
      for (const k of ['scaled', 'shifted', 'exps', 'probs', 'rawExps']) {
        expect(s[k], k).toBeInstanceOf(Float32Array);
        expect(s[k].length, k).toBe(n);
      }
      for (const k of ['max', 'sum', 'rawSum']) expect(typeof s[k], k).toBe('number');
      const xf = x.map(Math.fround);
      const Tf = Math.fround(T);
      const xmax = Math.max(...xf);
      const relOk = (g, r, tol) => g === r || Math.abs(g - r) <= tol * Math.abs(r);
      const bad = [];
      const check = (ok, what) => ok || bad.push(what);
      // scaled = x / T, rounded once to float32; max = max(scaled)
      expect(Array.from(s.scaled)).toEqual(xf.map((v) => Math.fround(v / Tf)));
      expect(s.max).toBe(Math.max(...s.scaled));
      for (let i = 0; i < n; i++) {
        const z = (xf[i] - xmax) / T; // reference shifted value, in double
        // shifted = scaled - max: every entry <= 0, the maximum at 0 (two float32 roundings)
        check(s.shifted[i] <= 0 && relOk(s.shifted[i], z, 2 ** -22), `shifted[${i}] = ${s.shifted[i]}, ref ${z}`);
        check(Math.abs(s.shifted[i] - (s.scaled[i] - s.max)) <= 2 ** -22 * Math.max(Math.abs(s.scaled[i]), Math.abs(s.max)), `shifted[${i}] vs scaled - max`);
        // exps = exp(shifted), in (0, 1]
        check(s.exps[i] <= 1 && relOk(s.exps[i], Math.exp(z), 2.5e-7 + Math.abs(z) * 2 ** -23), `exps[${i}] = ${s.exps[i]}, ref ${Math.exp(z)}`);
        // probs = exps / sum
        check(relOk(s.probs[i], s.exps[i] / s.sum, 2.5e-7), `probs[${i}] = ${s.probs[i]} vs exps / sum ${s.exps[i] / s.sum}`);
        // rawExps = exp(scaled): the textbook numbers
        const re = Math.exp(s.scaled[i]);
        if (Math.fround(re) === Infinity) check(s.rawExps[i] === Infinity, `rawExps[${i}] = ${s.rawExps[i]}, ref Infinity`);
        else if (s.rawExps[i] >= 1.2e-38) check(relOk(s.rawExps[i], re, 2.5e-7), `rawExps[${i}] = ${s.rawExps[i]}, ref ${re}`);
      }
      expect(bad).toEqual([]);
      expect(Math.max(...s.shifted)).toBe(0);
      // sum = sum of exps; rawSum = sum of rawExps
      expect(relOk(s.sum, s.exps.reduce((a, b) => a + b, 0), 1e-6)).toBe(true);
      expect(relOk(s.rawSum, s.rawExps.reduce((a, b) => a + b, 0), 1e-7)).toBe(true);
      // probs: the reference softmax, summing to 1, and the very bits of softmax()
      expect(mismatch(s.probs, refSoftmax(x, { temperature: T }), probTolT, 'probs')).toBeNull();
      expect(badSums(s.probs, slices(n))).toEqual([]);
      expect(s.probs).toEqual(sm.softmax(x, { temperature: T }));
      // the textbook division rawExps / rawSum gives the same probabilities (where it does not overflow)
      if (Number.isFinite(s.rawSum)) {
        s.rawExps.forEach((e, i) => {
          if (e >= 1.2e-38) {
            const p = s.probs[i];
            expect(Math.abs(e / s.rawSum - p), `raw/sum[${i}]`).toBeLessThanOrEqual(2 * probTolT(p) + Math.abs(s.scaled[i]) * 2 ** -23 * p);
          }
        });
      }
    });

    test('the textbook path overflows where the stable one does not: [1000, 1001, 1002]', () => {
      const s = sm.softmaxSteps([1000, 1001, 1002]);
      expect(Array.from(s.rawExps)).toEqual([Infinity, Infinity, Infinity]);
      expect(s.rawSum).toBe(Infinity);
      expect(Array.from(s.shifted)).toEqual([-2, -1, 0]);
      expect(mismatch(s.probs, refSoftmax([0, 1, 2]), probTol)).toBeNull();
    });

    test('softmaxSteps probabilities equal softmax within the accuracy bar', () => {
      const x = inputs(1000, 45);
      expect(mismatch(sm.softmaxSteps(x).probs, refSoftmax(x), probTol, 'probs')).toBeNull();
    });
  });

  describe('sigmoid, argmax, softmaxNaive', () => {
    test('sigmoid(z) === softmax([z, 0])[0] exactly, and matches 1 / (1 + e^-z)', () => {
      const rng = mulberry32(5);
      const zs = [0, -0, 1, -1, 2, -2, 0.5, 10, -10, 20, -20, 50, -50, 87, -87, 88.7, -88.7, 89, -89, 103, -103, 104, -104];
      zs.push(150, -150, 1e10, -1e10, 3.4e38, -3.4e38, Infinity, -Infinity, 1e-30, -1e-30, 1e-45);
      for (let i = 0; i < 2000; i++) zs.push((rng() - 0.5) * 2 * 10 ** (rng() * 4 - 1));
      for (const z of zs) {
        const s = sm.sigmoid(z);
        expect(typeof s).toBe('number');
        expect(s, `sigmoid(${z})`).toBe(sm.softmax([z, 0])[0]);
        const zf = Math.fround(z);
        const r = 1 / (1 + Math.exp(-zf));
        if (r >= 1e-30) expect(Math.abs(s - r), `sigmoid(${z}) vs reference`).toBeLessThanOrEqual(1e-6 * r);
        else expect(s).toBeLessThanOrEqual(1e-30);
      }
      expect(sm.sigmoid(NaN)).toBeNaN();
    });

    test('argmax is the first index of the maximum', () => {
      expect(sm.argmax([2, 1, 0])).toBe(0);
      expect(sm.argmax([0, 1, 2])).toBe(2);
      expect(sm.argmax([1, 3, 3])).toBe(1);
      expect(sm.argmax([-Infinity, -5, -Infinity])).toBe(1);
      expect(sm.argmax([-Infinity, -Infinity])).toBe(0);
      expect(sm.argmax([5])).toBe(0);
      expect(sm.argmax([1, Infinity, 2, Infinity])).toBe(1);
      for (const n of [2, 3, 7, 16, 17, 63, 64, 65, 1000, 32000]) {
        const x = inputs(n, 300 + n);
        expect(sm.argmax(x), `n=${n}`).toBe(refArgmax(x));
        expect(sm.argmax(Float32Array.from(x))).toBe(refArgmax(x));
        // ties: the first of equal maxima, wherever they sit relative to SIMD lanes
        const t = x.map((v) => Math.round(v));
        expect(sm.argmax(t), `ties n=${n}`).toBe(refArgmax(t));
        const m = Math.max(...t);
        const tied = t.map((v, i) => (i === n - 1 || i === Math.floor(n / 2) ? m + 1 : v));
        expect(sm.argmax(tied)).toBe(Math.floor(n / 2));
      }
    });

    test('softmaxNaive overflows to NaN for [1000, 1001, 1002]', () => {
      const y = sm.softmaxNaive([1000, 1001, 1002]);
      expect(y).toBeInstanceOf(Float32Array);
      expect(Array.from(y).every(Number.isNaN)).toBe(true);
    });

    test('softmaxNaive matches the reference for small inputs', () => {
      for (const n of [1, 2, 3, 4, 7, 8, 15, 16, 17, 33, 64]) {
        const x = normalArray(n, { seed: 500 + n, sd: 2 });
        const y = sm.softmaxNaive(x);
        expect(mismatch(y, refSoftmax(x), (r) => 1e-5 * r + 1e-36, `n=${n}`)).toBeNull();
        const yt = sm.softmaxNaive(x, { temperature: 2 });
        expect(mismatch(yt, refSoftmax(x, { temperature: 2 }), (r) => 1e-5 * r + 1e-36, `n=${n} T=2`)).toBeNull();
      }
      const y2 = sm.softmaxNaive([1, 2, 3, 4, 5, 6], { shape: [2, 3], axis: 0 });
      expect(mismatch(y2, refSoftmax([1, 2, 3, 4, 5, 6], { shape: [2, 3], axis: 0 }), (r) => 1e-5 * r, 'N-D')).toBeNull();
    });
  });

  describe('Semantics (DESIGN.md)', () => {
    test('T = 0 splits the mass equally among the maxima', () => {
      expect(Array.from(sm.softmax([1, 3, 3], { temperature: 0 }))).toEqual([0, 0.5, 0.5]);
      expect(Array.from(sm.softmax([2, 1, 0], { temperature: 0 }))).toEqual([1, 0, 0]);
      expect(Array.from(sm.softmax([5, 5, 5, 5], { temperature: 0 }))).toEqual([0.25, 0.25, 0.25, 0.25]);
      expect(Array.from(sm.softmax([-1, -Infinity, -1, -3], { temperature: 0 }))).toEqual([0.5, 0, 0.5, 0]);
      expect(Array.from(sm.softmax([0, 7, 1, 7, 7, 2], { temperature: 0 }))).toEqual(
        [0, 1, 0, 1, 1, 0].map((v) => Math.fround(v / 3)),
      );
      expect(Array.from(sm.logSoftmax([1, 3, 3], { temperature: 0 }))).toEqual([-Infinity, Math.fround(-Math.LN2), Math.fround(-Math.LN2)]);
      // per slice of an N-D tensor
      expect(Array.from(sm.softmax([1, 3, 3, 4, 0, 4], { shape: [2, 3], temperature: 0 }))).toEqual([0, 0.5, 0.5, 0.5, 0, 0.5]);
      // one-hot at every size, wherever the maximum sits
      for (const n of [1, 5, 16, 33, 1000]) {
        const x = inputs(n, 900 + n);
        const y = sm.softmax(x, { temperature: 0 });
        const hot = refArgmax(x);
        expect(Array.from(y)).toEqual(Array.from({ length: n }, (_, i) => (i === hot ? 1 : 0)));
      }
      // and T -> 0 from above tends to it
      const near = sm.softmax([1, 3, 3], { temperature: 1e-3 });
      expect(mismatch(near, [0, 0.5, 0.5], () => 1e-6)).toBeNull();
    });

    test('T = 0: logSumExp is the limit of log sum exp(x / T)', () => {
      expect(sm.logSumExp([1, 3, 3], { temperature: 0 })).toBe(Infinity);
      expect(sm.logSumExp([-1, -3], { temperature: 0 })).toBe(-Infinity);
      expect(Math.abs(sm.logSumExp([0, 0, -1], { temperature: 0 }) - Math.LN2)).toBeLessThan(1e-12);
    });

    test('T = Infinity is uniform over the entries that are not -Infinity', () => {
      const third = Math.fround(1 / 3);
      expect(Array.from(sm.softmax([1, 5, -Infinity, 2], { temperature: Infinity }))).toEqual([third, third, 0, third]);
      expect(Array.from(sm.softmax([1e30, -1e30, 0, 3], { temperature: Infinity }))).toEqual([0.25, 0.25, 0.25, 0.25]);
      expect(Array.from(sm.logSoftmax([1, 5, -Infinity, 2], { temperature: Infinity }))).toEqual([
        Math.fround(-Math.log(3)), Math.fround(-Math.log(3)), -Infinity, Math.fround(-Math.log(3)),
      ]);
      const x = inputs(1000, 77);
      expect(mismatch(sm.softmax(x, { temperature: Infinity }), new Float64Array(1000).fill(1e-3), (r) => 1e-6 * r)).toBeNull();
      expect(Math.abs(sm.logSumExp([1, 5, -Infinity, 2], { temperature: Infinity }) - Math.log(3))).toBeLessThan(1e-12);
      // and a large finite T tends to it
      expect(mismatch(sm.softmax([1, 5, 2], { temperature: 1e7 }), [1 / 3, 1 / 3, 1 / 3], () => 1e-6)).toBeNull();
    });

    test('-Infinity means masked: probability exactly 0', () => {
      const x = inputs(100, 78);
      for (let i = 0; i < 100; i += 3) x[i] = -Infinity;
      for (const T of [1, 0.3, 2]) {
        const y = sm.softmax(x, { temperature: T });
        const ly = sm.logSoftmax(x, { temperature: T });
        for (let i = 0; i < 100; i += 3) {
          expect(y[i]).toBe(0);
          expect(ly[i]).toBe(-Infinity);
        }
        expect(mismatch(y, refSoftmax(x, { temperature: T }), probTolT, `T=${T}`)).toBeNull();
        expect(mismatch(ly, refLogSoftmax(x, { temperature: T }), logTol, `log T=${T}`)).toBeNull();
        expect(badSums(y, slices(100))).toEqual([]);
      }
      // along axis 0 of a 2-D tensor
      const m = [1, -Infinity, 2, 3, 4, -Infinity];
      const y = sm.softmax(m, { shape: [2, 3], axis: 0 });
      expect(y[1]).toBe(0);
      expect(y[5]).toBe(0);
      expect(y[4]).toBe(1);
      expect(mismatch(y, refSoftmax(m, { shape: [2, 3], axis: 0 }), probTol)).toBeNull();
      expect(Array.from(sm.softmax([-Infinity, 0]))).toEqual([0, 1]);
    });

    test('+Infinity entries share all the mass equally, the rest get 0', () => {
      expect(Array.from(sm.softmax([1, Infinity, 3, Infinity]))).toEqual([0, 0.5, 0, 0.5]);
      expect(Array.from(sm.softmax([Infinity]))).toEqual([1]);
      expect(Array.from(sm.softmax([Infinity, -Infinity, 3e38]))).toEqual([1, 0, 0]);
      expect(Array.from(sm.softmax([Infinity, 1, Infinity, Infinity], { temperature: 2 }))).toEqual(
        [1, 0, 1, 1].map((v) => Math.fround(v / 3)),
      );
      expect(Array.from(sm.logSoftmax([1, Infinity, 3, Infinity]))).toEqual([-Infinity, Math.fround(-Math.LN2), -Infinity, Math.fround(-Math.LN2)]);
      expect(sm.logSumExp([1, Infinity, 3])).toBe(Infinity);
      // per slice
      expect(Array.from(sm.softmax([Infinity, 0, 0, 0], { shape: [2, 2] }))).toEqual([1, 0, 0.5, 0.5]);
    });

    describe('a slice of only -Infinity entries', () => {
      const all = [-Infinity, -Infinity, -Infinity, -Infinity];
      test("masked 'nan' (the default): NaN", () => {
        expect(Array.from(sm.softmax(all)).every(Number.isNaN)).toBe(true);
        expect(Array.from(sm.softmax(all, { masked: 'nan' })).every(Number.isNaN)).toBe(true);
        expect(Array.from(sm.logSoftmax(all)).every(Number.isNaN)).toBe(true);
        expect(sm.logSumExp(all)).toBe(-Infinity);
      });
      test("masked 'zeros': 0 (log: -Infinity)", () => {
        expect(Array.from(sm.softmax(all, { masked: 'zeros' }))).toEqual([0, 0, 0, 0]);
        expect(Array.from(sm.logSoftmax(all, { masked: 'zeros' }))).toEqual([-Infinity, -Infinity, -Infinity, -Infinity]);
      });
      test("masked 'uniform': 1/n (log: -ln n)", () => {
        expect(Array.from(sm.softmax(all, { masked: 'uniform' }))).toEqual([0.25, 0.25, 0.25, 0.25]);
        expect(Array.from(sm.softmax([-Infinity, -Infinity, -Infinity], { masked: 'uniform' }))).toEqual(
          [1, 1, 1].map(() => Math.fround(1 / 3)),
        );
        const l = Math.fround(-Math.log(4));
        expect(Array.from(sm.logSoftmax(all, { masked: 'uniform' }))).toEqual([l, l, l, l]);
      });
      test("masked 'throw': RangeError", () => {
        expect(() => sm.softmax(all, { masked: 'throw' })).toThrow(RangeError);
        expect(() => sm.logSoftmax(all, { masked: 'throw' })).toThrow(RangeError);
        expect(() => sm.softmax([1, 2, -Infinity, -Infinity], { shape: [2, 2], masked: 'throw' })).toThrow(RangeError);
        // not thrown when no slice is all -Infinity
        expect(Array.from(sm.softmax([-Infinity, 0], { masked: 'throw' }))).toEqual([0, 1]);
      });
      test('the policy applies to that slice only; the other slices are normal', () => {
        const x = [1, 2, 3, -Infinity, -Infinity, -Infinity, 0, -Infinity, 0];
        const ref = refSoftmax([1, 2, 3], {});
        for (const [masked, fillv] of [['zeros', 0], ['uniform', Math.fround(1 / 3)]]) {
          const y = sm.softmax(x, { shape: [3, 3], masked });
          expect(mismatch(y.subarray(0, 3), ref, probTol)).toBeNull();
          expect(Array.from(y.subarray(3, 6))).toEqual([fillv, fillv, fillv]);
          expect(Array.from(y.subarray(6))).toEqual([0.5, 0, 0.5]);
        }
        const y = sm.softmax(x, { shape: [3, 3] });
        expect(Array.from(y.subarray(3, 6)).every(Number.isNaN)).toBe(true);
        expect(Array.from(y.subarray(6))).toEqual([0.5, 0, 0.5]);
        expect(mismatch(y.subarray(0, 3), ref, probTol)).toBeNull();
        const l = sm.logSumExp(x, { shape: [3, 3] });
        expect(l[1]).toBe(-Infinity);
        expect(Math.abs(l[2] - Math.LN2)).toBeLessThan(1e-6);
      });
      test('softmaxSteps follows the masked option', () => {
        expect(Array.from(sm.softmaxSteps(all, { masked: 'uniform' }).probs)).toEqual([0.25, 0.25, 0.25, 0.25]);
        expect(Array.from(sm.softmaxSteps(all, { masked: 'zeros' }).probs)).toEqual([0, 0, 0, 0]);
        expect(Array.from(sm.softmaxSteps(all).probs).every(Number.isNaN)).toBe(true);
        expect(() => sm.softmaxSteps(all, { masked: 'throw' })).toThrow(RangeError);
      });
    });

    test('NaN in scores gives NaN for that slice only', () => {
      expect(Array.from(sm.softmax([1, NaN, 2])).every(Number.isNaN)).toBe(true);
      expect(Array.from(sm.logSoftmax([1, NaN, 2])).every(Number.isNaN)).toBe(true);
      expect(sm.logSumExp([1, NaN, 2])).toBeNaN();
      expect(Array.from(sm.softmax([NaN, -Infinity, Infinity])).every(Number.isNaN)).toBe(true);
      for (const T of [1, 0, Infinity, 2]) {
        expect(Array.from(sm.softmax([NaN, 1, 2], { temperature: T })).every(Number.isNaN), `T=${T}`).toBe(true);
      }
      // a NaN at every position of a longer vector (SIMD lanes and tail)
      for (const n of [5, 37]) {
        for (let k = 0; k < n; k++) {
          const x = inputs(n, 11);
          x[k] = NaN;
          expect(Array.from(sm.softmax(x)).every(Number.isNaN), `n=${n} NaN at ${k}`).toBe(true);
        }
      }
      // 2-D: rows (axis -1) and columns (axis 0)
      const x = [1, 2, 3, 4, NaN, 6, 7, 8, 9];
      const rows = sm.softmax(x, { shape: [3, 3] });
      expect(Array.from(rows.subarray(3, 6)).every(Number.isNaN)).toBe(true);
      expect(mismatch(rows.subarray(0, 3), refSoftmax([1, 2, 3]), probTol)).toBeNull();
      expect(mismatch(rows.subarray(6), refSoftmax([7, 8, 9]), probTol)).toBeNull();
      const cols = sm.softmax(x, { shape: [3, 3], axis: 0 });
      const r0 = refSoftmax([1, 4, 7]);
      const r2 = refSoftmax([3, 6, 9]);
      for (let i = 0; i < 3; i++) {
        expect(cols[3 * i + 1]).toBeNaN();
        expect(Math.abs(cols[3 * i] - r0[i])).toBeLessThanOrEqual(1e-6 * r0[i]);
        expect(Math.abs(cols[3 * i + 2] - r2[i])).toBeLessThanOrEqual(1e-6 * r2[i]);
      }
      const l = sm.logSumExp(x, { shape: [3, 3] });
      expect(l[1]).toBeNaN();
      expect(l[0]).toBeCloseTo(refLogSumExp([1, 2, 3])[0], 5);
    });

    test('empty scores: an empty Float32Array; logSumExp gives -Infinity', () => {
      for (const e of [[], new Float32Array(0), new Float64Array(0)]) {
        for (const f of ['softmax', 'logSoftmax', 'softmaxNaive']) {
          const y = sm[f](e);
          expect(y, f).toBeInstanceOf(Float32Array);
          expect(y.length, f).toBe(0);
        }
        expect(sm.logSumExp(e)).toBe(-Infinity);
        expect(sm.softmax(e, { temperature: 0 }).length).toBe(0);
      }
      expect(sm.softmax([], { shape: [0, 5] }).length).toBe(0);
      expect(sm.softmax([], { shape: [3, 0], axis: 0 }).length).toBe(0);
      // three empty slices: three -Infinity
      expect(Array.from(sm.logSumExp([], { shape: [3, 0] }))).toEqual([-Infinity, -Infinity, -Infinity]);
      expect(sm.logSumExp([], { shape: [0, 3] }).length).toBe(0);
      const s = sm.softmaxSteps([]);
      expect(s.probs.length).toBe(0);
    });

    test('inputs of +-3.4e38: outputs in [0, 1], each slice sums to 1', () => {
      const fixed = [
        [3.4e38, -3.4e38],
        [-3.4e38, -3.4e38],
        [3.4e38, 3.4e38, -3.4e38, 0],
        [3.4e38, 3.3e38, 1, -1],
        [-3.4e38, -3.4e38 + 1e32, -3.39e38],
      ];
      const rng = mulberry32(3);
      const mags = [3.4e38, 3e38, 1e38, 1e30, 1e3, 1, 0];
      for (let k = 0; k < 40; k++) {
        const n = 1 + Math.floor(rng() * 70);
        fixed.push(Array.from({ length: n }, () => (rng() < 0.5 ? -1 : 1) * mags[Math.floor(rng() * mags.length)] * (0.5 + rng() / 2)));
      }
      for (const x of fixed) {
        for (const T of [1, 0.3, 2, 10, 1e-3, 1e30]) {
          const y = sm.softmax(x, { temperature: T });
          expect(outOfUnit(y), `${x.slice(0, 4)}... T=${T}`).toEqual([]);
          expect(badSums(y, slices(x.length)), `${x.slice(0, 4)}... T=${T}`).toEqual([]);
          expect(mismatch(y, refSoftmax(x, { temperature: T }), probTolT, `T=${T}`)).toBeNull();
          const l = sm.logSumExp(x, { temperature: T });
          const r = refLogSumExp(x, { temperature: T })[0];
          expect(Math.abs(l - r), `logSumExp T=${T}`).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(r)));
        }
      }
      expect(Array.from(sm.softmax([3.4e38, -3.4e38, 0, 3.4e38]))).toEqual([0.5, 0, 0, 0.5]);
    });

    test('inputs of +-3.4e38: logSoftmax within 1e-6 * max(1, |ref|), -Infinity only where the reference overflows float32', () => {
      const cases = [
        [3.4e38, -3.4e38],
        [3.4e38, 3.3e38, 1, -1],
        [-3.4e38, -3.4e38 + 1e32, -3.39e38],
        [3e38, -3e38, 0],
      ];
      const rng = mulberry32(4);
      const mags = [3.4e38, 3e38, 1e38, 1e30, 1e3, 1, 0];
      for (let k = 0; k < 40; k++) {
        const n = 1 + Math.floor(rng() * 70);
        cases.push(Array.from({ length: n }, () => (rng() < 0.5 ? -1 : 1) * mags[Math.floor(rng() * mags.length)] * (0.5 + rng() / 2)));
      }
      const bad = [];
      for (const x of cases) {
        for (const T of [1, 0.3, 2, 10, 1e-3, 1e30]) {
          const m = mismatch(sm.logSoftmax(x, { temperature: T }), refLogSoftmax(x, { temperature: T }), logTol, `[${x.slice(0, 3)}${x.length > 3 ? ', ...' : ''}] T=${T}`);
          if (m) bad.push(m);
        }
      }
      expect(bad.length === 0 ? null : `${bad.length} cases fail, e.g.:\n${bad.slice(0, 4).join('\n')}`).toBeNull();
    });

    test('shift invariance: only the gaps matter', () => {
      // dyadic scores: x + c is exact in float32, so the gaps are identical and
      // the exact path (x - max by TwoSum) gives identical bits. The T = 1 fast
      // path for 256+ entries shifts by a multiple of ln 2 near the max instead,
      // so there the two agree within twice its exp bound, 2 x 2.5 ulp
      // (cpp/src/softmax.cpp fast_exp_sum, cpp/src/kernels/exp_rr2_p6.h).
      const rng = mulberry32(9);
      for (const n of [2, 3, 10, 33, 255, 256, 1000]) {
        const x = Array.from({ length: n }, () => Math.round((rng() - 0.5) * 160) / 8);
        const y = sm.softmax(x);
        for (const c of [10, -1000, 4096, 1e5]) {
          const shifted = sm.softmax(x.map((v) => v + c));
          if (n < 256) {
            expect(shifted, `n=${n} c=${c}`).toEqual(y);
          } else {
            y.forEach((p, i) => expect(Math.abs(shifted[i] - p), `n=${n} c=${c} i=${i}`).toBeLessThanOrEqual(5 * 2 ** -23 * p));
          }
          expect(sm.softmax(x.map((v) => v + c), { temperature: 0.3 })).toEqual(sm.softmax(x, { temperature: 0.3 }));
        }
      }
      // any scores: the result of x + c matches the reference of x
      for (const c of [10, -50, 1000]) {
        const x = inputs(500, 61);
        const shifted = x.map((v) => Math.fround(v) + c);
        // the shift itself rounds in float32: compare with the reference of what was passed
        expect(mismatch(sm.softmax(shifted), refSoftmax(shifted), probTol, `c=${c}`)).toBeNull();
        expect(mismatch(sm.softmax(shifted), refSoftmax(x), (r) => 1e-6 * r + Math.abs(c) * 2 ** -23 * r * 2, `vs x c=${c}`)).toBeNull();
      }
    });
  });
});
