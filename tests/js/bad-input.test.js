// Bad-input matrix: every public function and option against wrong
// types, special values, sizes and misuse. Each case expects the documented
// result or a TypeError / RangeError whose message names the argument; after
// each case the module must still compute softmax([2, 1, 0]) (double reference,
// 1e-6). Both wasm builds.
//
// Sizes: 2^26 elements (256 MiB of float32) run for the main entry points. "More
// than wasm memory holds" uses a plain array whose length is set to 2^29 (no
// elements are allocated, so the check costs nothing) and, for typed arrays, a
// Float32Array of 2^29 elements (2 GiB of JS memory; wasm32 memory is at most
// 2 GiB here) on a fresh, unshared module instance.
import { readFileSync } from 'node:fs';

import { afterEach, beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { BUILDS } from './helpers.js';

const LN2 = Math.fround(Math.log(2));
const REF_210 = (() => {
  const e = [2, 1, 0].map((v) => Math.exp(v - 2));
  const s = e.reduce((a, b) => a + b);
  return e.map((v) => v / s);
})();

// Bit patterns, every NaN as one (the sign and payload of a NaN are not part of the contract).
const bits = (a) => Array.from(new Uint32Array(Float32Array.from(a).buffer), (b, i) => (Number.isNaN(a[i]) ? 'NaN' : b));
const sameBits = (a, b) => expect(bits(a)).toEqual(bits(b));

/** A module instance of its own (not the memoised one): for cases that may damage it. */
async function fresh(simd) {
  const file = new URL(`../../web/dist/softmax-${simd ? 'simd' : 'base'}.wasm`, import.meta.url);
  return load({ simd, module: await WebAssembly.compile(readFileSync(file)) });
}

/** The entry points that take scores, each as (sm, scores) -> result. Samplers are made per call. */
const FNS = {
  softmax: (sm, x) => sm.softmax(x),
  logSoftmax: (sm, x) => sm.logSoftmax(x),
  logSumExp: (sm, x) => sm.logSumExp(x),
  softmaxNaive: (sm, x) => sm.softmaxNaive(x),
  softmaxSteps: (sm, x) => sm.softmaxSteps(x),
  argmax: (sm, x) => sm.argmax(x),
  'sampler.sample': (sm, x) => withSampler(sm, (s) => s.sample(x)),
  'sampler.sampleMany': (sm, x) => withSampler(sm, (s) => s.sampleMany(x, 3)),
  'sampler.probs': (sm, x) => withSampler(sm, (s) => s.probs(x)),
  'sm.sample': (sm, x) => sm.sample(x, { seed: 7 }),
};
const SAMPLERS = ['sampler.sample', 'sampler.sampleMany', 'sampler.probs', 'sm.sample'];

function withSampler(sm, f) {
  const s = sm.createSampler({ seed: 7 });
  try {
    return f(s);
  } finally {
    s.dispose();
  }
}

const typeError = (re) => ({ throws: TypeError, re });
const rangeError = (re) => ({ throws: RangeError, re });
const allNaN = (y) => expect(Array.from(y).every(Number.isNaN)).toBe(true);
const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
const tooLong = [];
tooLong.length = 2 ** 29;

/**
 * scores cases: name -> [input, expectation per function (or 'all')]. An
 * expectation is { throws, re } or a function checking the result.
 */
const SCORE_CASES = {
  'a string': ['2, 1, 0', { all: typeError(/scores/) }],
  'an object': [{ 0: 2, 1: 1, length: 2 }, { all: typeError(/scores/) }],
  null: [null, { all: typeError(/scores/) }],
  undefined: [undefined, { all: typeError(/scores/) }],
  'a BigInt': [2n, { all: typeError(/scores/) }],
  'an array of BigInt': [[2n, 1n], { all: typeError(/scores\[0\]/) }],
  'an array with a string': [[2, '1'], { all: typeError(/scores\[1\]/) }],
  'a sparse array': [sparse, { all: typeError(/scores\[1\]/) }],
  'an Int32Array': [new Int32Array([2, 1, 0]), { all: typeError(/scores/) }],
  'a Uint8Array': [new Uint8Array([2, 1, 0]), { all: typeError(/scores/) }],
  'a DataView': [new DataView(new ArrayBuffer(8)), { all: typeError(/scores/) }],
  'NaN first': [
    [NaN, 1],
    {
      softmax: allNaN,
      logSoftmax: allNaN,
      logSumExp: (v) => expect(v).toBeNaN(),
      softmaxNaive: allNaN,
      softmaxSteps: (st) => allNaN(st.probs),
      argmax: (i) => expect(i).toBe(0),
      samplers: rangeError(/scores\[0\] is NaN/),
    },
  ],
  'NaN second': [[1, NaN], { argmax: (i) => expect(i).toBe(1), samplers: rangeError(/scores\[1\] is NaN/), softmax: allNaN }],
  '+Infinity': [
    [Infinity, 1, Infinity],
    {
      softmax: (y) => sameBits(y, [0.5, 0, 0.5]),
      logSoftmax: (y) => sameBits(y, [-LN2, -Infinity, -LN2]),
      logSumExp: (v) => expect(v).toBe(Infinity),
      softmaxNaive: (y) => sameBits(y, [NaN, 0, NaN]), // exp overflows: Infinity / Infinity, as the course shows
      softmaxSteps: (st) => sameBits(st.probs, [0.5, 0, 0.5]),
      argmax: (i) => expect(i).toBe(0),
      'sampler.sample': (i) => expect([0, 2]).toContain(i),
      'sampler.sampleMany': (a) => expect(Array.from(a).every((i) => i === 0 || i === 2)).toBe(true),
      'sampler.probs': (p) => sameBits(p, [0.5, 0, 0.5]),
      'sm.sample': (i) => expect([0, 2]).toContain(i),
    },
  ],
  '-Infinity (masked)': [
    [-Infinity, 0],
    {
      softmax: (y) => sameBits(y, [0, 1]),
      logSoftmax: (y) => sameBits(y, [-Infinity, 0]),
      logSumExp: (v) => expect(v).toBe(0),
      softmaxNaive: (y) => sameBits(y, [0, 1]),
      softmaxSteps: (st) => sameBits(st.probs, [0, 1]),
      argmax: (i) => expect(i).toBe(1),
      'sampler.sample': (i) => expect(i).toBe(1),
      'sampler.sampleMany': (a) => sameBits(a, [1, 1, 1]),
      'sampler.probs': (p) => sameBits(p, [0, 1]),
      'sm.sample': (i) => expect(i).toBe(1),
    },
  ],
  'all -Infinity': [
    [-Infinity, -Infinity],
    {
      softmax: allNaN, // masked: 'nan' is the default, as PyTorch
      logSoftmax: allNaN,
      logSumExp: (v) => expect(v).toBe(-Infinity),
      softmaxNaive: allNaN,
      softmaxSteps: (st) => allNaN(st.probs),
      argmax: (i) => expect(i).toBe(0),
      samplers: rangeError(/-Infinity/),
    },
  ],
  'negative zero': [
    [-0, 0],
    {
      softmax: (y) => sameBits(y, [0.5, 0.5]),
      logSoftmax: (y) => sameBits(y, [-LN2, -LN2]),
      logSumExp: (v) => expect(v).toBeCloseTo(Math.log(2), 12),
      softmaxNaive: (y) => sameBits(y, [0.5, 0.5]),
      softmaxSteps: (st) => sameBits(st.probs, [0.5, 0.5]),
      argmax: (i) => expect(i).toBe(0),
      'sampler.probs': (p) => sameBits(p, [0.5, 0.5]),
      'sampler.sample': (i) => expect([0, 1]).toContain(i),
    },
  ],
  empty: [
    [],
    {
      softmax: (y) => expect(y).toEqual(new Float32Array(0)),
      logSoftmax: (y) => expect(y).toEqual(new Float32Array(0)),
      logSumExp: (v) => expect(v).toBe(-Infinity),
      softmaxNaive: (y) => expect(y).toEqual(new Float32Array(0)),
      softmaxSteps: (st) => expect(st.probs).toEqual(new Float32Array(0)),
      argmax: rangeError(/scores is empty/),
      samplers: rangeError(/scores is empty/),
    },
  ],
  'empty Float64Array': [new Float64Array(0), { softmax: (y) => expect(y.length).toBe(0), samplers: rangeError(/scores is empty/) }],
  'length 1': [
    [5],
    {
      softmax: (y) => sameBits(y, [1]),
      logSoftmax: (y) => sameBits(y, [0]),
      logSumExp: (v) => expect(v).toBe(5),
      softmaxNaive: (y) => sameBits(y, [1]),
      softmaxSteps: (st) => sameBits(st.probs, [1]),
      argmax: (i) => expect(i).toBe(0),
      'sampler.sample': (i) => expect(i).toBe(0),
      'sampler.sampleMany': (a) => sameBits(a, [0, 0, 0]),
      'sampler.probs': (p) => sameBits(p, [1]),
      'sm.sample': (i) => expect(i).toBe(0),
    },
  ],
  '+-FLT_MAX (finite: the max trick keeps it exact)': [
    [3.4028234663852886e38, -3.4028234663852886e38, 3.4028234663852886e38],
    {
      softmax: (y) => sameBits(y, [0.5, 0, 0.5]),
      logSoftmax: (y) => sameBits(y, [-LN2, -Infinity, -LN2]),
      argmax: (i) => expect(i).toBe(0),
      'sampler.probs': (p) => sameBits(p, [0.5, 0, 0.5]),
    },
  ],
  'more elements than wasm memory holds (array length 2^29)': [tooLong, { all: rangeError(/scores has 536870912 elements/) }],
};

function expectCase(exp, run) {
  if (exp === undefined) return false;
  if (typeof exp === 'function') {
    exp(run());
    return true;
  }
  let err;
  try {
    run();
  } catch (e) {
    err = e;
  }
  expect(err, 'expected an error').toBeInstanceOf(exp.throws);
  expect(err.message).toMatch(exp.re);
  return true;
}

function expectHealthy(sm) {
  const y = sm.softmax([2, 1, 0]);
  for (let i = 0; i < 3; i++) expect(Math.abs(y[i] - REF_210[i])).toBeLessThanOrEqual(1e-6);
}

describe.each(BUILDS)('bad input ($build build)', ({ simd }) => {
  let sm;
  beforeAll(async () => {
    sm = await load({ simd });
  });
  afterEach(() => expectHealthy(sm));

  // scores x entry point
  const rows = [];
  for (const [name, [input, exps]] of Object.entries(SCORE_CASES)) {
    for (const fn of Object.keys(FNS)) {
      const exp = exps[fn] ?? (SAMPLERS.includes(fn) ? exps.samplers : undefined) ?? exps.all;
      if (exp !== undefined) rows.push([name, fn, input, exp]);
    }
  }
  test.each(rows)('scores %s -> %s', (_name, fn, input, exp) => {
    expect(expectCase(exp, () => FNS[fn](sm, input))).toBe(true);
  });

  test('2^26 elements: softmax, logSoftmax, logSumExp, argmax and a greedy sampler', () => {
    const n = 2 ** 26;
    const x = new Float32Array(n);
    const k = 12345678;
    x[k] = 10;
    const pk = Math.exp(10) / (n - 1 + Math.exp(10));
    const y = sm.softmax(x);
    expect(y.length).toBe(n);
    expect(Math.abs(y[k] - pk)).toBeLessThanOrEqual(1e-6 * pk);
    expect(Math.abs(y[0] - pk / Math.exp(10))).toBeLessThanOrEqual(1e-6 * y[0]);
    const ly = sm.logSoftmax(x, { out: y });
    expect(ly).toBe(y);
    expect(Math.abs(ly[k] - Math.log(pk))).toBeLessThanOrEqual(1e-6 * Math.abs(Math.log(pk)));
    expect(Math.abs(sm.logSumExp(x) - Math.log(n - 1 + Math.exp(10)))).toBeLessThanOrEqual(1e-6);
    expect(sm.argmax(x)).toBe(k);
    // The sampler keeps about 40 bytes per entry (logits, candidates, keys, sums):
    // 2^26 entries need more than the 2 GiB of wasm memory, so a named RangeError
    // is the documented outcome; if it fits, the greedy pick must be k.
    let picked;
    try {
      picked = sm.sample(x, { temperature: 0, seed: 1 });
    } catch (e) {
      expect(e).toBeInstanceOf(RangeError);
      expect(e.message).toMatch(/scores do not fit in wasm memory/);
    }
    if (picked !== undefined) expect(picked).toBe(k);
  });

  // options of the softmax family
  const FAMILY = ['softmax', 'logSoftmax', 'softmaxNaive', 'logSumExp', 'softmaxSteps'];
  const OPTION_CASES = [
    ['options a number', 5, typeError(/options must be an object/)],
    ['options null', null, typeError(/options must be an object/)],
    ['options an array', [1], typeError(/options must be an object/)],
    ['an unknown option', { temprature: 2 }, typeError(/unknown option 'temprature'/)],
    ['temperature a string', { temperature: '2' }, typeError(/temperature/)],
    ['temperature null', { temperature: null }, typeError(/temperature/)],
    ['temperature a BigInt', { temperature: 2n }, typeError(/temperature/)],
    ['temperature NaN', { temperature: NaN }, rangeError(/temperature/)],
    ['temperature -1', { temperature: -1 }, rangeError(/temperature/)],
    ['temperature -Infinity', { temperature: -Infinity }, rangeError(/temperature/)],
  ];
  const rowsOpt = [];
  for (const fn of FAMILY) for (const [name, opts, exp] of OPTION_CASES) rowsOpt.push([fn, name, opts, exp]);
  test.each(rowsOpt)('%s: %s', (fn, _name, opts, exp) => {
    expect(expectCase(exp, () => sm[fn]([2, 1, 0], opts))).toBe(true);
  });

  test.each(['softmax', 'logSoftmax', 'softmaxNaive', 'logSumExp'])('%s: shape, axis, out and masked misuse', (fn) => {
    const x = [1, 2, 3, 4, 5, 6];
    const cases = [
      [{ shape: [4, 2] }, rangeError(/shape \[4, 2\] holds 8 elements but scores has 6/)],
      [{ shape: [2, -3] }, rangeError(/shape\[1\]/)],
      [{ shape: [2, 3.5] }, rangeError(/shape\[1\]/)],
      [{ shape: [2, '3'] }, typeError(/shape\[1\] must be a non-negative integer, got string/)],
      [{ shape: [] }, rangeError(/shape/)],
      [{ shape: '2,3' }, typeError(/shape/)],
      [{ shape: [2, 3], axis: 2 }, rangeError(/axis 2 is out of range/)],
      [{ shape: [2, 3], axis: -3 }, rangeError(/axis -3 is out of range/)],
      [{ shape: [2, 3], axis: 0.5 }, rangeError(/axis/)],
      [{ shape: [2, 3], axis: '0' }, typeError(/axis/)],
      [{ axis: 1 }, rangeError(/axis 1 is out of range for 1-D/)],
      [{ shape: [2, 3], axis: NaN }, rangeError(/axis/)],
    ];
    if (fn === 'softmaxNaive') {
      // The textbook formula has no masked policy: an all -Infinity slice is 0 / 0.
      cases.push([{ masked: 'zeros' }, typeError(/unknown option 'masked'/)]);
    }
    if (fn !== 'logSumExp') {
      cases.push([{ out: new Float64Array(6) }, typeError(/out must be a Float32Array/)]);
      cases.push([{ out: [0, 0, 0, 0, 0, 0] }, typeError(/out must be a Float32Array/)]);
      cases.push([{ out: new Float32Array(5) }, rangeError(/out has length 5, expected 6/)]);
      if (fn !== 'softmaxNaive') {
        cases.push([{ masked: 'ignore' }, rangeError(/masked must be one of/)]);
        cases.push([{ masked: null }, rangeError(/masked/)]);
      }
    } else {
      cases.push([{ out: new Float32Array(1) }, typeError(/out is only for N-D/)]);
      cases.push([{ masked: 'zeros' }, typeError(/unknown option 'masked'/)]);
      cases.push([{ shape: [2, 3], out: new Float32Array(3) }, rangeError(/out has length 3, expected 2/)]);
    }
    for (const [opts, exp] of cases) {
      expect(expectCase(exp, () => sm[fn](x, opts)), JSON.stringify(opts)).toBe(true);
      expectHealthy(sm);
    }
  });

  test('documented results: T = -0 is the T = 0 limit, masked policies, N-D with a zero dimension', () => {
    sameBits(sm.softmax([2, 1, 0], { temperature: -0 }), [1, 0, 0]);
    sameBits(sm.softmax([2, 2, 0], { temperature: 0 }), [0.5, 0.5, 0]);
    sameBits(sm.softmax([1, 2, 3], { temperature: Infinity }), [1 / 3, 1 / 3, 1 / 3]);
    sameBits(sm.softmax([-Infinity, -Infinity], { masked: 'zeros' }), [0, 0]);
    sameBits(sm.softmax([-Infinity, -Infinity], { masked: 'uniform' }), [0.5, 0.5]);
    expect(() => sm.softmax([-Infinity, -Infinity], { masked: 'throw' })).toThrow(RangeError);
    expect(() => sm.softmax([-Infinity, -Infinity], { masked: 'throw' })).toThrow(/all -Infinity/);
    expect(sm.softmax([], { shape: [3, 0], axis: 0 })).toEqual(new Float32Array(0));
    expect(sm.softmax([], { shape: [2 ** 28, 0], axis: 0 })).toEqual(new Float32Array(0));
    expect(Array.from(sm.logSumExp([], { shape: [0, 4], axis: 0 }))).toEqual([-Infinity, -Infinity, -Infinity, -Infinity]);
  });

  test('sigmoid: types and special values', () => {
    for (const z of ['1', 1n, null, undefined, {}, [1]]) {
      expect(() => sm.sigmoid(z)).toThrow(TypeError);
      expect(() => sm.sigmoid(z)).toThrow(/z must be a number/);
    }
    expect(sm.sigmoid(NaN)).toBeNaN();
    expect(sm.sigmoid(Infinity)).toBe(1);
    expect(sm.sigmoid(-Infinity)).toBe(0);
    expect(sm.sigmoid(-0)).toBe(0.5);
    expect(sm.sigmoid(3.4028234663852886e38)).toBe(1);
    expect(sm.sigmoid(1e300)).toBe(1); // rounds to float32 +Infinity
  });

  test('createSampler: every option out of range or of the wrong type is named', () => {
    const cases = [
      [5, typeError(/options must be an object/)],
      [{ topk: 3 }, typeError(/unknown option 'topk'/)],
      [{ temperature: -1 }, rangeError(/temperature/)],
      [{ temperature: NaN }, rangeError(/temperature/)],
      [{ temperature: '1' }, typeError(/temperature/)],
      [{ topK: -1 }, rangeError(/topK/)],
      [{ topK: 1.5 }, rangeError(/topK/)],
      [{ topK: 2n }, typeError(/topK/)],
      [{ topP: 0 }, rangeError(/topP/)],
      [{ topP: 1.5 }, rangeError(/topP/)],
      [{ topP: NaN }, rangeError(/topP/)],
      [{ minP: -0.1 }, rangeError(/minP/)],
      [{ minP: 2 }, rangeError(/minP/)],
      [{ typicalP: 0 }, rangeError(/typicalP/)],
      [{ minKeep: 0 }, rangeError(/minKeep/)],
      [{ repetitionPenalty: 0 }, rangeError(/repetitionPenalty/)],
      [{ repetitionPenalty: Infinity }, rangeError(/repetitionPenalty/)],
      [{ frequencyPenalty: NaN }, rangeError(/frequencyPenalty/)],
      [{ presencePenalty: Infinity }, rangeError(/presencePenalty/)],
      [{ penaltyLastN: -2 }, rangeError(/penaltyLastN/)],
      [{ seed: -1 }, rangeError(/seed/)],
      [{ seed: 1.5 }, rangeError(/seed/)],
      [{ seed: 2n ** 64n }, rangeError(/seed/)],
      [{ seed: '1' }, typeError(/seed/)],
      [{ order: 'vllm' }, rangeError(/order/)],
      [{ order: ['topK', 'topK'] }, rangeError(/order/)],
      [{ order: 5 }, typeError(/order/)],
      [{ topK: 3, order: ['temperature'] }, rangeError(/order lacks 'topK'/)],
      [{ logitBias: { x: 1 } }, rangeError(/logitBias/)],
      [{ logitBias: { 1: NaN } }, rangeError(/logitBias\[1\]/)],
      [{ logitBias: { 1: Infinity } }, rangeError(/logitBias\[1\]/)],
      [{ logitBias: [1, 2] }, typeError(/logitBias/)],
      [{ history: [-1] }, rangeError(/history\[0\]/)],
      [{ history: [1.5] }, rangeError(/history\[0\]/)],
      [{ history: 'abc' }, typeError(/history/)],
    ];
    for (const [opts, exp] of cases) {
      expect(expectCase(exp, () => sm.createSampler(opts)), String(JSON.stringify(opts, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)))).toBe(true);
      expect(expectCase(exp, () => sm.sample([2, 1, 0], opts))).toBe(true);
    }
  });

  test('sampler misuse: bad counts and indices, logitBias outside the vocabulary, a disposed sampler', () => {
    const s = sm.createSampler({ seed: 3 });
    expect(expectCase(rangeError(/n must be >= 0/), () => s.sampleMany([2, 1, 0], -1))).toBe(true);
    expect(expectCase(rangeError(/n must be an integer/), () => s.sampleMany([2, 1, 0], 1.5))).toBe(true);
    expect(expectCase(typeError(/n must be a number/), () => s.sampleMany([2, 1, 0], '3'))).toBe(true);
    expect(s.sampleMany([2, 1, 0], 0)).toEqual(new Int32Array(0));
    expect(expectCase(rangeError(/tokens must be|tokens\[0\]/), () => s.accept(-1))).toBe(true);
    expect(expectCase(rangeError(/seed/), () => s.reset(-5))).toBe(true);
    s.dispose();
    for (const [name, call] of [
      ['sample', () => s.sample([2, 1, 0])],
      ['sampleMany', () => s.sampleMany([2, 1, 0], 2)],
      ['probs', () => s.probs([2, 1, 0])],
      ['reset', () => s.reset(1)],
      ['accept', () => s.accept(1)],
    ]) {
      expect(expectCase(typeError(/disposed/), call), name).toBe(true);
    }
    expect(() => s.dispose()).not.toThrow(); // twice: a no-op
    expect(s.disposed).toBe(true);
    const b = sm.createSampler({ seed: 3, logitBias: { 5: 1 } });
    expect(expectCase(rangeError(/logitBias index 5 is outside the vocabulary/), () => b.sample([2, 1, 0]))).toBe(true);
    expect(b.sample([2, 1, 0, 0, 0, -Infinity])).toBeGreaterThanOrEqual(0); // the same sampler keeps working
    b.dispose();
  });
});

describe('load: options', () => {
  test.each([
    [5, TypeError, /options must be an object/],
    [{ simd: 'yes' }, TypeError, /simd must be 'auto', true or false/],
    [{ smid: true }, TypeError, /unknown option 'smid'/],
    [{ wasmBinary: 'abc' }, TypeError, /wasmBinary/],
    [{ module: {} }, TypeError, /module must be a WebAssembly.Module/],
    [{ locateFile: 'x.wasm' }, TypeError, /locateFile must be a function/],
  ])('load(%j) rejects with a named argument', async (opts, type, re) => {
    await expect(load(opts)).rejects.toThrow(type);
    await expect(load(opts)).rejects.toThrow(re);
    expectHealthy(await load());
  });
});

// More than wasm memory holds, from typed arrays and from an empty tensor's
// slice count: each on a fresh module instance, since a failure here may leave
// an instance unable to grow its memory.
describe('beyond wasm memory (fresh instances)', () => {
  test('a Float32Array of 2^29 elements -> RangeError naming scores', async () => {
    const sm = await fresh(true);
    let x = new Float32Array(2 ** 29);
    try {
      expect(expectCase(rangeError(/scores/), () => sm.softmax(x))).toBe(true);
    } finally {
      x = null;
      expectHealthy(sm);
    }
  });

  test('a Float32Array of 2^29 elements: the sampler names scores', async () => {
    const sm = await fresh(false);
    const x = new Float32Array(2 ** 29);
    expect(expectCase(rangeError(/scores has 536870912 elements/), () => sm.sample(x, { seed: 1 }))).toBe(true);
    expectHealthy(sm);
  });

  test("sm.sample's errors name sample, the function called, not the Sampler inside it", async () => {
    const sm = await fresh(true);
    const cases = [[[]], [[NaN, 1]], ['2, 1, 0'], [[1, 2], { topP: 2 }], [[2, 1], { logitBias: { 5: 1 } }]];
    for (const [x, o] of cases) {
      let err;
      try {
        sm.sample(x, { seed: 1, ...o });
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(x)).toBeInstanceOf(Error);
      expect(err.message, err.message).toMatch(/^sample: /);
    }
    // A sampler's own calls keep their name.
    const s = sm.createSampler({ seed: 1 });
    expect(() => s.sample([])).toThrow(/^Sampler\.sample: /);
    s.dispose();
    expect(() => s.sample([1])).toThrow(/^Sampler\.sample: the sampler is disposed/);
    expectHealthy(sm);
  });

  test('logSumExp of an empty [0, 2^30] tensor along axis 0 -> RangeError, not a wasm trap', async () => {
    const sm = await fresh(true);
    expect(expectCase(rangeError(/shape|memory|slices/), () => sm.logSumExp([], { shape: [0, 2 ** 30], axis: 0 }))).toBe(true);
    // The instance must still grow its memory afterwards.
    expect(sm.softmax(new Float32Array(2 ** 20)).length).toBe(2 ** 20);
  });
});
