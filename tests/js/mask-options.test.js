// Token masks where a newcomer or an adversary meets them outside a sampler:
//  1. sm.sample(scores, opts) takes opts.mask (a token bitmask), as
//     sampler.sample(scores, { mask }) does, and its errors name `sample`.
//  2. sm.applyTokenBitmask(scores, mask) masks float16 tensors ({ type:
//     'float16', data: Uint16Array of half bits, dims }): forbidden -> 0xFC00.
// Expectations come from an independent reference (PCG32 + inverse CDF in
// double, half-float decoding, bit tests written here) or from the documented
// equivalent call (createSampler(opts).sample(x, { mask })), never from
// recorded outputs of the library.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../web/src/node.js';

const BUILDS = [
  { build: 'SIMD', simd: true },
  { build: 'baseline', simd: false },
];

// ---- independent references -------------------------------------------------

/** pcg-c-basic's pcg32_srandom_r(seed, 54) / pcg32_random_r, in BigInt. */
function pcg32(seed, stream = 54n) {
  const M = 6364136223846793005n;
  const MASK = (1n << 64n) - 1n;
  const inc = ((stream << 1n) | 1n) & MASK;
  let state = 0n;
  const next = () => {
    const old = state;
    state = (old * M + inc) & MASK;
    const xs = Number((((old >> 18n) ^ old) >> 27n) & 0xffffffffn);
    const rot = Number(old >> 59n);
    return ((xs >>> rot) | (xs << ((32 - rot) & 31))) >>> 0;
  };
  next();
  state = (state + BigInt(seed)) & MASK;
  next();
  return {
    next,
    /** ((a >> 5) * 2^26 + (b >> 6)) / 2^53, as the README documents the draw. */
    uniform: () => {
      const a = next() >>> 5;
      const b = next() >>> 6;
      return (a * 67108864 + b) / 2 ** 53;
    },
  };
}

const allowedBy = (mask) => (i) => ((mask[i >> 5] >>> (i & 31)) & 1) === 1;

/** Softmax (T = 1, no filters) in double over the allowed, non -Infinity entries. */
function refProbs(values, allowed) {
  const n = values.length;
  const v = Array.from(values, (x) => Math.fround(x));
  const idx = [];
  for (let i = 0; i < n; i++) if (allowed(i) && v[i] !== -Infinity) idx.push(i);
  const m = Math.max(...idx.map((i) => v[i]));
  const p = new Float64Array(n);
  let s = 0;
  for (const i of idx) s += p[i] = Math.exp(v[i] - m);
  for (const i of idx) p[i] /= s;
  return { p, idx };
}

/** The index sample() draws at T = 1 with no filters, or undefined when u lies within 1e-6 of a CDF boundary. */
function refDraw(values, allowed, seed) {
  const { p, idx } = refProbs(values, allowed);
  const u = pcg32(seed).uniform();
  let cum = 0;
  for (const i of idx) {
    cum += p[i];
    if (Math.abs(cum - u) < 1e-6) return undefined;
    if (cum > u) return i;
  }
  return idx[idx.length - 1];
}

/** An IEEE half (bits) as a number. */
function half(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return sign * f * 2 ** -24;
  if (e === 31) return f ? NaN : sign * Infinity;
  return sign * (1 + f / 1024) * 2 ** (e - 15);
}

/** Deterministic pseudo-random numbers (xorshift32) for test data. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/** A finite half (bits) in about [-8, 8]. */
const randomHalf = (r) => ((r() < 0.5 ? 0x8000 : 0) | (Math.floor(r() * 0x4800) & 0x7fff)) & 0xffff;

function errorOf(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

function expectError(f, Type, re) {
  const e = errorOf(f);
  expect(e, `expected ${Type.name} ${re}`).toBeInstanceOf(Type);
  expect(e.message).toMatch(re);
  return e;
}

const SCORES = Float32Array.from({ length: 100 }, (_, i) => 2 * Math.sin(i * 1.3) + (i % 7) / 3);
const MASK = new Uint32Array([0x0f0f0f0f, 0xaaaaaaaa, 0x12345678, 0x0000ffff]); // 4 words for 100 tokens

describe.each(BUILDS)('$build build', ({ simd }) => {
  let sm;
  beforeAll(async () => {
    sm = await load({ simd });
    expect(sm.simd).toBe(simd);
  });

  /** The module still answers correctly and holds no sampler of ours. */
  function expectHealthy(live = 0) {
    expect(sm.liveSamplers).toBe(live);
    const p = sm.softmax([2, 1, 0]);
    const r = refProbs([2, 1, 0], () => true).p;
    for (let i = 0; i < 3; i++) expect(Math.abs(p[i] - r[i])).toBeLessThan(1e-6);
    const s = sm.createSampler({ seed: 5 });
    const want = s.sample(SCORES, { mask: MASK });
    s.dispose();
    expect(sm.sample(SCORES, { seed: 5, mask: MASK })).toBe(want);
    expect(sm.liveSamplers).toBe(live);
  }

  describe('sm.sample with opts.mask', () => {
    test('the reference PCG32 reproduces pcg32-demo (sanity of the test reference)', () => {
      const g = pcg32(42n);
      expect(Array.from({ length: 6 }, () => g.next())).toEqual([0xa15c02b7, 0x7b47f409, 0xba1d3330, 0x83d2f293, 0xbfa4784b, 0xcbed606e]);
    });

    test('draws: the independent reference and createSampler(...).sample(x, { mask }) agree with sm.sample, seed by seed', () => {
      const allowed = allowedBy(MASK);
      const i32 = new Int32Array(MASK.buffer.slice(0));
      let compared = 0;
      for (let seed = 0; seed < 300; seed++) {
        const s = sm.createSampler({ seed });
        const viaSampler = s.sample(SCORES, { mask: MASK });
        s.dispose();
        const got = sm.sample(SCORES, { seed, mask: MASK });
        expect(got, `seed ${seed}`).toBe(viaSampler);
        expect(allowed(got), `seed ${seed}: token ${got} is forbidden`).toBe(true);
        expect(sm.sample(SCORES, { seed: BigInt(seed), mask: i32 }), `seed ${seed}n, Int32Array`).toBe(got);
        expect(sm.sample(SCORES, { seed, mask: [MASK] }), `seed ${seed}, a list of one mask`).toBe(got);
        const ref = refDraw(SCORES, allowed, seed);
        if (ref !== undefined) {
          compared++;
          expect(got, `seed ${seed}: reference`).toBe(ref);
        }
      }
      expect(compared).toBeGreaterThan(280);
      expect(sm.liveSamplers).toBe(0);
    });

    test('with filters, sm.sample(x, { ...opts, mask }) = createSampler(opts).sample(x, { mask }) = the draw from x with -Infinity at forbidden tokens', () => {
      const r = rng(7);
      const x = Float32Array.from({ length: 1000 }, () => (r() - 0.5) * 12);
      const mask = Uint32Array.from({ length: 40 }, () => (r() * 2 ** 32) >>> 0); // 40 words: 8 more than needed
      mask[39] = 0xffffffff; // bits past the vocabulary must be ignored
      const allowed = allowedBy(mask);
      const minusInf = Float32Array.from(x, (v, i) => (allowed(i) ? v : -Infinity));
      const optionSets = [{}, { topK: 5 }, { topP: 0.5 }, { minP: 0.2, temperature: 0.7 }, { topK: 50, topP: 0.9, temperature: 1.3 }, { typicalP: 0.6 }];
      for (const o of optionSets) {
        for (let seed = 0; seed < 40; seed++) {
          const s = sm.createSampler({ seed, ...o });
          const want = s.sample(x, { mask });
          s.dispose();
          const got = sm.sample(x, { seed, ...o, mask });
          expect(got, `${JSON.stringify(o)} seed ${seed}`).toBe(want);
          expect(allowed(got)).toBe(true);
          expect(sm.sample(minusInf, { seed, ...o }), `${JSON.stringify(o)} seed ${seed}: as if -Infinity`).toBe(got);
        }
      }
      expect(sm.liveSamplers).toBe(0);
    });

    test('temperature 0 with a mask: the first maximum among the allowed tokens', () => {
      const x = [5, 9, 1, 9, 7, 7, 3];
      for (const [mask, want] of [
        [new Uint32Array([0b1111111]), 1],
        [new Uint32Array([0b1110101]), 4],
        [new Uint32Array([0b0001000]), 3],
        [new Int32Array([0b1000100]), 6],
      ]) {
        expect(sm.sample(x, { seed: 1, temperature: 0, mask })).toBe(want);
      }
    });

    test('bad masks: RangeError / TypeError naming sample and mask; no sampler leaks, the module keeps working', () => {
      const x = new Float32Array(40).fill(1); // needs 2 words
      const cases = [
        [new Uint32Array(1).fill(0xffffffff), RangeError, /^sample: mask has 1 words?/],
        [new Uint32Array(0), RangeError, /^sample: mask/],
        [new Uint32Array(2), RangeError, /^sample: mask allows no token/],
        [new Uint32Array([0, 0, 0xffffffff]), RangeError, /^sample: mask allows no token/], // only bits past the vocabulary
        [new Uint32Array([0, 0xffffff00]), RangeError, /^sample: mask allows no token/], // bits 40.. of word 1 are past vocab 40
        [new Uint8Array(8).fill(255), TypeError, /^sample: mask must be a Uint32Array or an Int32Array/],
        [new Float32Array(2), TypeError, /^sample: mask must be/],
        [new BigUint64Array(2), TypeError, /^sample: mask must be/],
        [new DataView(new ArrayBuffer(8)), TypeError, /^sample: mask must be/],
        [[0xffffffff, 0xffffffff], TypeError, /^sample: mask must be/],
        ['0b1', TypeError, /^sample: mask must be/],
        [null, TypeError, /^sample: mask must be/],
        [0xffffffff, TypeError, /^sample: mask must be/],
        [[new Uint32Array(1)], RangeError, /^sample: mask\[0\] has 1 words?/],
        [[new Uint32Array(2).fill(0xffffffff), new Uint32Array(2).fill(0xffffffff)], RangeError, /^sample: mask has 2 rows/],
        [[new Uint8Array(8)], TypeError, /^sample: mask\[0\] must be/],
      ];
      for (const [mask, Type, re] of cases) {
        expectError(() => sm.sample(x, { seed: 1, mask }), Type, re);
        expect(sm.liveSamplers).toBe(0);
      }
      // A detached mask.
      const gone = new Uint32Array(2).fill(0xffffffff);
      structuredClone(gone.buffer, { transfer: [gone.buffer] });
      expectError(() => sm.sample(x, { seed: 1, mask: gone }), TypeError, /^sample: mask is a detached/);
      // The allowed tokens are all -Infinity.
      const y = Float32Array.from({ length: 40 }, (_, i) => (i < 20 ? -Infinity : 1));
      expectError(() => sm.sample(y, { seed: 1, mask: new Uint32Array([0xfffff, 0]) }), RangeError, /^sample: every entry of scores is -Infinity/);
      expectHealthy();
    });

    test('every error of sm.sample names sample, the function called, never Sampler.sample or createSampler', () => {
      const bad = [
        () => sm.sample([], { seed: 1, mask: new Uint32Array(1) }),
        () => sm.sample([NaN, 1], { seed: 1, mask: new Uint32Array([3]) }),
        () => sm.sample('2, 1', { seed: 1, mask: new Uint32Array([3]) }),
        () => sm.sample([1, 2], { seed: 1, topP: 2, mask: new Uint32Array([3]) }),
        () => sm.sample([1, 2], { seed: 1, logitBias: { 5: 1 }, mask: new Uint32Array([3]) }),
        () => sm.sample([1, 2], { seed: -1 }),
        () => sm.sample([1, 2], { seed: 2n ** 64n }),
        () => sm.sample([1, 2], { seed: 1, history: [-1] }),
        () => sm.sample([1, 2], { seed: 1, order: ['nope'] }),
        () => sm.sample([1, 2], 'opts'),
        () => sm.sample({ data: new Float32Array(4), dims: [2, 2] }, { seed: 1, mask: new Uint32Array([3]) }),
        () => sm.sample({ type: 'float16', data: new Uint16Array(4), dims: [2, 2] }, { seed: 1 }),
        () => sm.sample([1, 2], { seed: 1, mask: new Uint32Array(1) }),
        () => sm.sample([1, 2], { seed: 1, masks: new Uint32Array([3]) }),
      ];
      for (const f of bad) {
        const e = errorOf(f);
        expect(e, String(f)).toBeInstanceOf(Error);
        expect(e.message, String(f)).toMatch(/^sample: /);
        expect(e.message).not.toMatch(/Sampler\.sample|createSampler/);
      }
      expectHealthy();
    });

    test('unknown options: the message names sample, suggests mask for its misspellings and lists mask', () => {
      for (const k of ['masks', 'Mask', 'mask_']) {
        expectError(() => sm.sample(SCORES, { seed: 1, [k]: MASK }), TypeError, new RegExp(`^sample: unknown option '${k}' \\(did you mean 'mask'\\?\\)`));
      }
      const e = expectError(() => sm.sample(SCORES, { seed: 1, tempreature: 1 }), TypeError, /^sample: unknown option 'tempreature' \(did you mean 'temperature'\?\)/);
      expect(e.message).toMatch(/known: .*\bmask\b/);
      // A call option is not a createSampler option.
      expectError(() => sm.createSampler({ seed: 1, mask: MASK }), TypeError, /^createSampler: unknown option 'mask'/);
      expect(sm.liveSamplers).toBe(0);
    });

    test("unknown options: the bitmask names of XGrammar (token_bitmask) and of this library's own API (tokenBitmask, bitmask) suggest mask", () => {
      for (const k of ['token_bitmask', 'tokenBitmask', 'bitmask']) {
        expectError(() => sm.sample(SCORES, { seed: 1, [k]: MASK }), TypeError, new RegExp(`^sample: unknown option '${k}' \\(did you mean 'mask'\\?\\)`));
      }
    });

    test('options with getters: each getter is read exactly once, and the result is that of the plain options', () => {
      const reads = {};
      const o = {};
      for (const [k, v] of Object.entries({ seed: 11n, topK: 20, temperature: 0.9, mask: MASK })) {
        Object.defineProperty(o, k, {
          enumerable: true,
          get() {
            reads[k] = (reads[k] ?? 0) + 1;
            return v;
          },
        });
      }
      const got = sm.sample(SCORES, o);
      expect(reads).toEqual({ seed: 1, topK: 1, temperature: 1, mask: 1 });
      expect(got).toBe(sm.sample(SCORES, { seed: 11n, topK: 20, temperature: 0.9, mask: MASK }));
      expect(allowedBy(MASK)(got)).toBe(true);
    });

    test('a mask getter that answers differently the second time is asked once: its first answer is both checked and used', () => {
      let n = 0;
      const o = {
        seed: 3,
        get mask() {
          n++;
          return n === 1 ? MASK : new Uint32Array(1); // a second read would get a too-short mask
        },
      };
      expect(sm.sample(SCORES, o)).toBe(sm.sample(SCORES, { seed: 3, mask: MASK }));
      expect(n).toBe(1);
    });

    test('a list of one mask whose element is a getter: read once', () => {
      let reads = 0;
      const list = [];
      Object.defineProperty(list, 0, {
        enumerable: true,
        get() {
          reads++;
          return MASK;
        },
      });
      expect(sm.sample(SCORES, { seed: 4, mask: list })).toBe(sm.sample(SCORES, { seed: 4, mask: MASK }));
      expect(reads).toBe(1);
    });

    test('a getter that throws: its error reaches the caller unchanged; nothing leaks, the module keeps working', () => {
      const boom = new Error('boom');
      for (const key of ['mask', 'seed', 'topK']) {
        const o = { seed: 1, mask: MASK };
        Object.defineProperty(o, key, {
          enumerable: true,
          get() {
            throw boom;
          },
        });
        expect(errorOf(() => sm.sample(SCORES, o))).toBe(boom);
        expectHealthy();
      }
    });

    test('a getter in the options that calls sm.sample re-entrantly: the nested call is a TypeError naming both (README: no nested calls)', () => {
      // Caught inside the getter: the nested call is rejected and the outer call is right.
      let inner;
      const o = {
        seed: 6,
        mask: MASK,
        get topK() {
          try {
            inner = sm.sample([1, 2, 3], { seed: 1 });
          } catch (e) {
            inner = e;
          }
          return 10;
        },
      };
      const got = sm.sample(SCORES, o);
      expect(got).toBe(sm.sample(SCORES, { seed: 6, mask: MASK, topK: 10 }));
      expect(inner).toBeInstanceOf(TypeError);
      expect(String(inner?.message)).toMatch(/^sample: called while sample was reading its arguments/);
      // Not caught: the outer call fails with it.
      const o2 = {
        seed: 6,
        get mask() {
          sm.sample([1, 2, 3], { seed: 1 });
          return MASK;
        },
      };
      expectError(() => sm.sample(SCORES, o2), TypeError, /^sample: called while sample was reading its arguments/);
      // Any method of the module, as for createSampler.
      const o3 = {
        seed: 6,
        get mask() {
          sm.softmax([1, 2]);
          return MASK;
        },
      };
      expectError(() => sm.sample(SCORES, o3), TypeError, /^softmax: called while sample was reading its arguments/);
      expectHealthy();
    });

    test('control: the same re-entrant getter in createSampler, or in the scores of sm.sample, is rejected', () => {
      const o = {
        seed: 6,
        get topK() {
          sm.sample([1, 2, 3], { seed: 1 });
          return 10;
        },
      };
      expectError(() => sm.createSampler(o), TypeError, /^sample: called while createSampler was reading its arguments/);
      const x = Array.from(SCORES);
      Object.defineProperty(x, 3, {
        get() {
          sm.sample([1, 2, 3], { seed: 1 });
          return 0.5;
        },
      });
      expectError(() => sm.sample(x, { seed: 1, mask: MASK }), TypeError, /^sample: called while sample was reading its arguments/);
      expectHealthy();
    });

    test('a buffer() view as scores, with an option getter that calls sm.buffer(): the nested call is rejected, not the view', () => {
      const b = sm.buffer(100);
      b.set(SCORES);
      const o = {
        seed: 8,
        get mask() {
          sm.buffer(100);
          return MASK;
        },
      };
      expectError(() => sm.sample(b, o), TypeError, /^buffer: called while sample was reading its arguments/);
    });

    test('Proxy options: each key read once through the get trap; same draw as the plain object', () => {
      const target = { seed: 21, topP: 0.8, mask: MASK };
      const gets = {};
      const p = new Proxy(target, {
        get(t, k, r) {
          gets[String(k)] = (gets[String(k)] ?? 0) + 1;
          return Reflect.get(t, k, r);
        },
      });
      const got = sm.sample(SCORES, p);
      expect(gets).toEqual({ seed: 1, topP: 1, mask: 1 });
      expect(got).toBe(sm.sample(SCORES, { seed: 21, topP: 0.8, mask: MASK }));
    });

    test('frozen and null-prototype options: accepted, same draw', () => {
      const want = sm.sample(SCORES, { seed: 9, mask: MASK, temperature: 1.5 });
      expect(sm.sample(SCORES, Object.freeze({ seed: 9, mask: MASK, temperature: 1.5 }))).toBe(want);
      expect(sm.sample(SCORES, Object.freeze(Object.assign(Object.create(null), { seed: 9, mask: MASK, temperature: 1.5 })))).toBe(want);
      const hidden = { seed: 9, temperature: 1.5 };
      Object.defineProperty(hidden, 'mask', { value: MASK }); // not enumerable: still an option
      expect(sm.sample(SCORES, hidden)).toBe(want);
      expect(sm.sample(Object.freeze(Array.from(SCORES)), Object.freeze({ seed: 9, mask: MASK, temperature: 1.5 }))).toBe(want);
      // mask: undefined is no mask.
      expect(sm.sample(SCORES, { seed: 9, mask: undefined })).toBe(sm.sample(SCORES, { seed: 9 }));
    });

    test('BigInt seeds: the same draw as the number, the reference at the top of the range; out of range is a RangeError naming sample and seed', () => {
      const allowed = allowedBy(MASK);
      for (const seed of [0n, 1n, 2n ** 32n + 5n, 2n ** 53n - 1n, 2n ** 63n, 2n ** 64n - 1n]) {
        const s = sm.createSampler({ seed });
        const want = s.sample(SCORES, { mask: MASK });
        s.dispose();
        const got = sm.sample(SCORES, { seed, mask: MASK });
        expect(got).toBe(want);
        const ref = refDraw(SCORES, allowed, seed);
        if (ref !== undefined) expect(got, `seed ${seed}`).toBe(ref);
        if (seed <= 2n ** 53n - 1n) expect(sm.sample(SCORES, { seed: Number(seed), mask: MASK })).toBe(got);
      }
      expectError(() => sm.sample(SCORES, { seed: 2n ** 64n, mask: MASK }), RangeError, /^sample: seed/);
      expectError(() => sm.sample(SCORES, { seed: -1n, mask: MASK }), RangeError, /^sample: seed/);
      expectError(() => sm.sample(SCORES, { seed: 1.5, mask: MASK }), RangeError, /^sample: seed/);
      expectHealthy();
    });

    test('a float16 [1, seq, vocab] tensor with a mask: the last position, as createSampler, and the reference', () => {
      const r = rng(3);
      const vocab = 70;
      const seq = 3;
      const bits = Uint16Array.from({ length: seq * vocab }, () => randomHalf(r));
      const t = { type: 'float16', data: bits, dims: [1, seq, vocab] };
      const mask = new Uint32Array([0x00ff00ff, 0xf0f0f0f0, 0x3f]);
      const allowed = allowedBy(mask);
      const last = Array.from(bits.subarray((seq - 1) * vocab), half);
      for (let seed = 0; seed < 60; seed++) {
        const s = sm.createSampler({ seed });
        const want = s.sample(t, { mask });
        s.dispose();
        const got = sm.sample(t, { seed, mask });
        expect(got).toBe(want);
        expect(allowed(got)).toBe(true);
        const ref = refDraw(last, allowed, seed);
        if (ref !== undefined) expect(got, `seed ${seed}`).toBe(ref);
      }
    });
  });

  describe('applyTokenBitmask on float16 tensors', () => {
    test('[batch, seq, vocab] with a mask longer than needed: every row masked, forbidden -> 0xFC00, the rest untouched, the argument returned', () => {
      const r = rng(11);
      const [batch, seq, vocab] = [2, 3, 45];
      const orig = Uint16Array.from({ length: batch * seq * vocab }, () => randomHalf(r));
      const data = orig.slice();
      const mask = new Uint32Array([0x9e3779b9, 0x00001fff | 0xffffe000, 0xffffffff, 0xffffffff]); // 4 words, 2 needed; bits 45.. set
      const allowed = allowedBy(mask);
      const t = { type: 'float16', data, dims: [batch, seq, vocab] };
      expect(sm.applyTokenBitmask(t, mask)).toBe(t);
      expect(t.data).toBe(data);
      const want = Array.from(orig, (h, i) => (allowed(i % vocab) ? h : 0xfc00));
      expect(Array.from(data)).toEqual(want);
      expect(half(0xfc00)).toBe(-Infinity);
      // The same positions as the Float32Array path, on the decoded values.
      const f32 = Float32Array.from(orig, half);
      sm.applyTokenBitmask({ data: f32, dims: [batch, seq, vocab] }, mask);
      for (let i = 0; i < f32.length; i++) expect(f32[i] === -Infinity, `entry ${i}`).toBe(data[i] === 0xfc00);
    });

    test('NaN, +Infinity, -0, the largest half and subnormals: forbidden -> 0xFC00, allowed bits kept exactly', () => {
      const special = [0x7e00, 0xfe00, 0x7c01, 0x7fff, 0x7c00, 0x8000, 0x0000, 0x7bff, 0xfbff, 0x0001, 0x83ff, 0xfc00];
      const vocab = special.length;
      for (const mask of [new Uint32Array([0b101010101010]), new Uint32Array([0b010101010101]), new Int32Array([-1]), new Uint32Array([0])]) {
        const data = Uint16Array.from(special);
        sm.applyTokenBitmask({ type: 'float16', data, dims: [1, vocab] }, mask);
        const allowed = allowedBy(mask);
        expect(Array.from(data)).toEqual(special.map((h, i) => (allowed(i) ? h : 0xfc00)));
      }
    });

    test('an Int32Array mask with bit 31 (a negative word) allows token 31', () => {
      const data = new Uint16Array(33).fill(0x3c00);
      sm.applyTokenBitmask({ type: 'float16', data, dims: [33] }, new Int32Array([1 << 31, 1]));
      expect(Array.from(data, (h, i) => [i, h]).filter(([, h]) => h !== 0xfc00).map(([i]) => i)).toEqual([31, 32]);
    });

    test('a Uint16Array at an offset of a buffer shared with other views: only its own bytes change, the other views see it', () => {
      const ab = new ArrayBuffer(64);
      const bytes = new Uint8Array(ab).fill(0xab);
      const data = new Uint16Array(ab, 6, 20); // bytes 6..45
      data.fill(0x4000); // 2.0
      const alias = new Uint16Array(ab, 6, 20);
      const mask = new Uint32Array([0b1001]);
      sm.applyTokenBitmask({ type: 'float16', data, dims: [2, 10] }, mask);
      const allowed = allowedBy(mask);
      expect(Array.from(alias)).toEqual(Array.from({ length: 20 }, (_, i) => (allowed(i % 10) ? 0x4000 : 0xfc00)));
      for (let b = 0; b < 64; b++) if (b < 6 || b >= 46) expect(bytes[b], `byte ${b}`).toBe(0xab);
      // A subarray of a larger tensor: only that part is written.
      const big = new Uint16Array(30).fill(0x3c00);
      sm.applyTokenBitmask({ type: 'float16', data: big.subarray(10, 20), dims: [10] }, new Uint32Array([0]));
      expect(Array.from(big)).toEqual(Array.from({ length: 30 }, (_, i) => (i >= 10 && i < 20 ? 0xfc00 : 0x3c00)));
    });

    test('sampling from the masked tensor: probability only on allowed tokens, the values of the reference softmax; draws = sm.sample with the mask', () => {
      const r = rng(5);
      const [seq, vocab] = [2, 90];
      const orig = Uint16Array.from({ length: seq * vocab }, () => randomHalf(r));
      orig[vocab + 3] = 0x7c00; // +Infinity, forbidden below
      orig[vocab + 4] = 0x7e00; // NaN, forbidden below
      const mask = new Uint32Array([0xffffffe0, 0x0f0f0f0f, 0x03ffffff]); // tokens 0..4 forbidden
      const allowed = allowedBy(mask);
      expect(allowed(3) || allowed(4)).toBe(false);
      const data = orig.slice();
      const t = { type: 'float16', data, dims: [1, seq, vocab] };
      sm.applyTokenBitmask(t, mask);
      const s = sm.createSampler({ seed: 1 });
      const p = s.probs(t);
      s.dispose();
      const ref = refProbs(Array.from(orig.subarray(vocab), half), allowed).p;
      for (let i = 0; i < vocab; i++) {
        expect(p[i] > 0, `token ${i}`).toBe(allowed(i));
        expect(Math.abs(p[i] - ref[i]), `token ${i}`).toBeLessThanOrEqual(1e-6 * ref[i] + 1e-30);
      }
      const unmasked = { type: 'float16', data: orig.slice(), dims: [1, seq, vocab] };
      unmasked.data[vocab + 4] = 0x3c00; // the NaN would be an error without the mask
      for (let seed = 0; seed < 100; seed++) {
        const a = sm.sample(t, { seed });
        expect(allowed(a)).toBe(true);
        expect(sm.sample(unmasked, { seed, mask })).toBe(a);
      }
    });

    test('an allowed +Infinity takes all the mass after masking', () => {
      const data = Uint16Array.from([0x3c00, 0x7c00, 0x4000, 0x7c00, 0x4200]);
      sm.applyTokenBitmask({ type: 'float16', data, dims: [5] }, new Uint32Array([0b10111]));
      expect(Array.from(data)).toEqual([0x3c00, 0x7c00, 0x4000, 0xfc00, 0x4200]);
      for (let seed = 0; seed < 20; seed++) expect(sm.sample({ type: 'float16', data, dims: [5] }, { seed })).toBe(1);
    });

    test.skipIf(typeof globalThis.Float16Array !== 'function')('a Float16Array tensor (where Node has it): forbidden -> -Infinity', () => {
      const data = new globalThis.Float16Array([1, 2, 3, 4, 5]);
      sm.applyTokenBitmask({ type: 'float16', data, dims: [5] }, new Uint32Array([0b10101]));
      expect(Array.from(data)).toEqual([1, -Infinity, 3, -Infinity, 5]);
    });

    test('bad input leaves the half bits untouched: a short mask, a wrong mask type, half bits without type float16', () => {
      const orig = new Uint16Array(40).fill(0x3c00);
      const data = orig.slice();
      const t = { type: 'float16', data, dims: [40] };
      expectError(() => sm.applyTokenBitmask(t, new Uint32Array(1)), RangeError, /^applyTokenBitmask: mask has 1 words?/);
      expectError(() => sm.applyTokenBitmask(t, new Uint16Array(4)), TypeError, /^applyTokenBitmask: mask must be/);
      expectError(() => sm.applyTokenBitmask(t, [1, 1]), TypeError, /^applyTokenBitmask: mask must be/);
      expectError(() => sm.applyTokenBitmask(t), TypeError, /^applyTokenBitmask: mask is missing/);
      expectError(() => sm.applyTokenBitmask({ data, dims: [40] }, new Uint32Array(2)), TypeError, /^applyTokenBitmask: scores\.data/);
      expectError(() => sm.applyTokenBitmask({ type: 'bfloat16', data, dims: [40] }, new Uint32Array(2)), TypeError, /^applyTokenBitmask: scores is a tensor of type 'bfloat16'/);
      expectError(() => sm.applyTokenBitmask({ type: 'float16', data, dims: [41] }, new Uint32Array(2)), RangeError, /^applyTokenBitmask: scores\.dims/);
      expect(Array.from(data)).toEqual(Array.from(orig));
      expectHealthy();
    });

    test('a Uint16Array view of wasm memory is masked in place, as documented (not a copy)', () => {
      const b = sm.buffer(8); // 32 bytes of wasm memory
      const data = new Uint16Array(b.buffer, b.byteOffset, 16);
      data.fill(0x3c00);
      const t = { type: 'float16', data, dims: [16] };
      expect(sm.applyTokenBitmask(t, new Uint32Array([0xff]))).toBe(t);
      expect(Array.from(data)).toEqual(Array.from({ length: 16 }, (_, i) => (i < 8 ? 0x3c00 : 0xfc00)));
    });

    test('half bits detached by a getter in the mask list: a TypeError naming scores, as for a Float32Array (README: Rules at the boundary)', () => {
      const detaching = (view) => {
        const list = [];
        Object.defineProperty(list, 0, {
          enumerable: true,
          get() {
            if (view.length) structuredClone(view.buffer, { transfer: [view.buffer] });
            return new Uint32Array([1]);
          },
        });
        return list;
      };
      const f32 = new Float32Array(8).fill(1);
      expectError(() => sm.applyTokenBitmask(f32, detaching(f32)), TypeError, /^applyTokenBitmask: scores was detached during the call/);
      const data = new Uint16Array(8).fill(0x3c00);
      expectError(() => sm.applyTokenBitmask({ type: 'float16', data, dims: [8] }, detaching(data)), TypeError, /^applyTokenBitmask: scores(\.data)? was detached during the call/);
      expectHealthy();
    });
  });
});

describe('both builds agree', () => {
  test('sm.sample with masks (tensors, filters, seeds) and applyTokenBitmask on half bits give the same results in the SIMD and the baseline build', async () => {
    const [a, b] = await Promise.all([load({ simd: true }), load({ simd: false })]);
    expect(a.simd).toBe(true);
    expect(b.simd).toBe(false);
    const r = rng(99);
    const vocab = 300;
    const x = Float32Array.from({ length: vocab }, () => (r() - 0.5) * 10);
    const mask = Uint32Array.from({ length: 10 }, () => (r() * 2 ** 32) >>> 0);
    const bits = Uint16Array.from({ length: 2 * vocab }, () => randomHalf(r));
    const t = { type: 'float16', data: bits, dims: [1, 2, vocab] };
    for (const o of [{}, { topK: 10 }, { topP: 0.7, temperature: 0.8 }, { minP: 0.1 }]) {
      for (let seed = 0; seed < 30; seed++) {
        expect(a.sample(x, { seed, ...o, mask })).toBe(b.sample(x, { seed, ...o, mask }));
        expect(a.sample(t, { seed: BigInt(seed), ...o, mask })).toBe(b.sample(t, { seed: BigInt(seed), ...o, mask }));
      }
    }
    const ha = bits.slice();
    const hb = bits.slice();
    a.applyTokenBitmask({ type: 'float16', data: ha, dims: [2, vocab] }, mask);
    b.applyTokenBitmask({ type: 'float16', data: hb, dims: [2, vocab] }, mask);
    expect(Array.from(ha)).toEqual(Array.from(hb));
    const ea = errorOf(() => a.sample(x, { seed: 1, mask: new Uint32Array(10) }));
    const eb = errorOf(() => b.sample(x, { seed: 1, mask: new Uint32Array(10) }));
    expect(ea?.message).toBe(eb?.message);
    expect(ea?.message).toMatch(/^sample: mask/);
  });
});
