// Property tests (fast-check) of the JS API: each property runs
// SMX_PROP_RUNS times (default 1,000; CI runs 1,000), on the SIMD build unless
// the property is about the builds. A failure prints fast-check's shrunk
// counterexample and the seed to replay it (SMX_PROP_SEED).
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';

const RUNS = Number(process.env.SMX_PROP_RUNS ?? 1000);
const SEED = process.env.SMX_PROP_SEED === undefined ? undefined : Number(process.env.SMX_PROP_SEED);
const params = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

let sm; // SIMD build
let base; // baseline build
beforeAll(async () => {
  sm = await load({ simd: true });
  base = await load({ simd: false });
});

const f32 = (v) => Math.fround(v);
/** Finite float32 scores in a range where exp does not underflow everything. */
const score = fc.float({ min: f32(-60), max: f32(60), noNaN: true, noDefaultInfinity: true });
const scores = (minLength = 1, maxLength = 80) => fc.array(score, { minLength, maxLength });
/** Any float32, NaN and +-Infinity included. */
const anyFloat = fc.float();
const temperature = fc.float({ min: f32(0.05), max: f32(50), noNaN: true, noDefaultInfinity: true });

const bits = (a) => Array.from(new Uint32Array(Float32Array.from(a).buffer));
const sameBits = (a, b) => a.length === b.length && bits(a).every((v, i) => v === bits(b)[i]);

describe(`properties (${RUNS} runs each)`, () => {
  test('shift invariance: softmax(x + c) = softmax(x) within 1e-6', () => {
    // Quarter integers and an integer shift: x + c is exact in float32, so only the library rounds.
    const quarters = fc.array(fc.integer({ min: -200, max: 200 }).map((q) => q / 4), { minLength: 1, maxLength: 64 });
    fc.assert(
      fc.property(quarters, fc.integer({ min: -100000, max: 100000 }), (x, c) => {
        const a = sm.softmax(x);
        const b = sm.softmax(x.map((v) => v + c));
        for (let i = 0; i < x.length; i++) if (!(Math.abs(a[i] - b[i]) <= 1e-6)) return false;
        return true;
      }),
      params,
    );
  });

  // Within the accuracy contract (1e-6 relative, plus one float32 rounding of
  // (x - max) / T: |ln p| 2^-23): scores closer than that rounding can come out
  // in the wrong order by an ulp or two ([0.10797762, 0, -3.7e-9] at T = 0.05;
  // [1.9e-6, 59.9994, 0] at T = 1.74: p[0] < p[2] by 1.7e-6 relative); a gap of
  // 1e-4 in x / T must order strictly.
  test('temperature keeps the order: x_i < x_j -> p_i <= p_j (within the accuracy), strictly for a gap of 1e-4 / T', () => {
    fc.assert(
      fc.property(scores(2, 64), temperature, (x, t) => {
        const p = sm.softmax(x, { temperature: t });
        const xs = x.map(f32);
        for (let i = 0; i < xs.length; i++) {
          for (let j = 0; j < xs.length; j++) {
            if (!(xs[i] < xs[j])) continue;
            const rel = p[j] > 0 ? 1e-6 + Math.abs(Math.log(p[j])) * 2 ** -23 : 0;
            if (!(p[i] <= p[j] * (1 + rel) + 1e-36)) return false; // 1e-36: below FLT_MIN the output flushes
            if ((xs[j] - xs[i]) / f32(t) > 1e-4 && p[j] >= 1e-30 && !(p[i] < p[j])) return false;
          }
        }
        return true;
      }),
      params,
    );
  });

  test('T -> 0 approaches one-hot on the unique maximum (and T = 0 is one-hot)', () => {
    fc.assert(
      fc.property(scores(2, 40), (x) => {
        const xs = x.map(f32);
        const max = Math.max(...xs);
        const k = xs.indexOf(max);
        const second = Math.max(...xs.filter((_, i) => i !== k));
        fc.pre(max > second); // a unique maximum
        const gap = max - second;
        const hot = sm.softmax(x, { temperature: 0 });
        if (hot[k] !== 1 || hot.some((v, i) => i !== k && v !== 0)) return false;
        // As T shrinks, p_max grows towards 1: at T = gap / 40 the rest is below n e^-40.
        let prev = 0;
        for (const t of [gap * 4, gap, gap / 4, gap / 40]) {
          const p = sm.softmax(x, { temperature: t });
          if (!(p[k] >= prev - 1e-6)) return false;
          prev = p[k];
        }
        return prev >= 1 - 1e-6;
      }),
      params,
    );
  });

  test('logSoftmax = log(softmax) where softmax is a normal float32', () => {
    fc.assert(
      fc.property(scores(1, 64), temperature, (x, t) => {
        const p = sm.softmax(x, { temperature: t });
        const lp = sm.logSoftmax(x, { temperature: t });
        for (let i = 0; i < x.length; i++) {
          if (!(lp[i] <= 0)) return false;
          if (p[i] >= 1.2e-38 && !(Math.abs(lp[i] - Math.log(p[i])) <= 4e-6 * Math.max(1, Math.abs(lp[i])))) return false;
        }
        return true;
      }),
      params,
    );
  });

  test('softmax([z, 0])[0] = sigmoid(z), bitwise, for every float32 z', () => {
    fc.assert(
      fc.property(anyFloat, (z) => sameBits([sm.softmax([z, 0])[0]], [sm.sigmoid(z)])),
      params,
    );
  });

  test('batched = row by row (bitwise), along the last axis', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(anyFloat, { minLength: 240, maxLength: 240 }),
        temperature,
        (rows, cols, pool, t) => {
          const x = pool.slice(0, rows * cols);
          const all = sm.softmax(x, { shape: [rows, cols], temperature: t });
          for (let r = 0; r < rows; r++) {
            const row = sm.softmax(x.slice(r * cols, (r + 1) * cols), { temperature: t });
            if (!sameBits(all.subarray(r * cols, (r + 1) * cols), row)) return false;
          }
          return true;
        },
      ),
      params,
    );
  });

  test('out aliasing: out === input (a Float32Array) is written in place and returned', () => {
    fc.assert(
      fc.property(fc.array(anyFloat, { minLength: 0, maxLength: 100 }), temperature, (x, t) => {
        const input = Float32Array.from(x);
        const want = sm.softmax(Float32Array.from(x), { temperature: t });
        const got = sm.softmax(input, { out: input, temperature: t });
        const lin = Float32Array.from(x);
        const lwant = sm.logSoftmax(Float32Array.from(x), { temperature: t });
        const lgot = sm.logSoftmax(lin, { out: lin, temperature: t });
        return got === input && sameBits(got, want) && lgot === lin && sameBits(lgot, lwant);
      }),
      params,
    );
  });

  test('N-D: softmax along an axis = moving the axis last, softmax, moving it back (bitwise)', () => {
    const shapeArb = fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(shapeArb, fc.integer({ min: -4, max: 3 }), fc.array(anyFloat, { minLength: 625, maxLength: 625 }), (shape, ax, pool) => {
        const nd = shape.length;
        fc.pre(ax >= -nd && ax < nd);
        const a = ax < 0 ? ax + nd : ax;
        const size = shape.reduce((p, d) => p * d, 1);
        const x = pool.slice(0, size);
        const strides = shape.map((_, i) => shape.slice(i + 1).reduce((p, d) => p * d, 1));
        const perm = [...shape.keys()].filter((i) => i !== a).concat([a]); // axis last
        const tshape = perm.map((i) => shape[i]);
        // Element of the transposed tensor at flat index f -> index in x.
        const source = (f) => {
          let rest = f;
          let src = 0;
          for (let k = nd - 1; k >= 0; k--) {
            const c = rest % tshape[k];
            rest = Math.floor(rest / tshape[k]);
            src += c * strides[perm[k]];
          }
          return src;
        };
        const xt = Array.from({ length: size }, (_, f) => x[source(f)]);
        const yt = sm.softmax(xt, { shape: tshape, axis: -1 });
        const back = new Float32Array(size);
        for (let f = 0; f < size; f++) back[source(f)] = yt[f];
        return sameBits(sm.softmax(x, { shape, axis: ax }), back);
      }),
      params,
    );
  });

  test('both builds agree bitwise: softmax, logSoftmax, logSumExp, softmaxNaive', () => {
    fc.assert(
      fc.property(fc.array(anyFloat, { minLength: 0, maxLength: 200 }), fc.oneof(temperature, fc.constantFrom(0, 1, Infinity)), (x, t) => {
        const o = { temperature: t };
        return (
          sameBits(sm.softmax(x, o), base.softmax(x, o)) &&
          sameBits(sm.logSoftmax(x, o), base.logSoftmax(x, o)) &&
          sameBits(sm.softmaxNaive(x, o), base.softmaxNaive(x, o)) &&
          Object.is(sm.logSumExp(x, o), base.logSumExp(x, o))
        );
      }),
      params,
    );
  });

  test('sampler: same seed, same indices (and both builds agree); each index has probs > 0', () => {
    const opts = fc.record({
      seed: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      temperature: fc.oneof(temperature, fc.constantFrom(0, 1, Infinity)),
      topK: fc.integer({ min: 0, max: 10 }),
      topP: fc.oneof(fc.constant(1), fc.double({ min: 0.05, max: 1, noNaN: true })),
      minP: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.5, noNaN: true })),
    });
    fc.assert(
      fc.property(opts, scores(1, 100), fc.integer({ min: 1, max: 20 }), (o, x, n) => {
        const a = sm.createSampler(o);
        const b = sm.createSampler(o);
        const c = base.createSampler(o);
        try {
          const p = a.probs(x);
          const ia = a.sampleMany(x, n);
          const ib = b.sampleMany(x, n);
          const ic = c.sampleMany(x, n);
          a.reset(o.seed);
          const replay = Array.from({ length: n }, () => a.sample(x));
          return (
            sameBits(ia, ib) && sameBits(ia, ic) && replay.every((v, i) => v === ia[i]) &&
            Array.from(ia).every((i) => i >= 0 && i < x.length && p[i] > 0)
          );
        } finally {
          a.dispose();
          b.dispose();
          c.dispose();
        }
      }),
      params,
    );
  });
});

test('the properties can fail: a wrong claim is caught', () => {
  // Guards against a vacuous harness (fc.pre rejecting everything, or properties never run).
  expect(() =>
    fc.assert(
      fc.property(scores(2, 10), (x) => sm.softmax(x)[0] === 0.5),
      { numRuns: 100, seed: 1 },
    ),
  ).toThrow(/Property failed/);
});
