// The sampler steps beyond the basic filters in Node, both wasm builds: the golden sequences
// of tests/golden/sampler_steps.json (written by the native build, see
// tests/native/sampler_steps_golden.h) replayed draw for draw; hand-worked
// cases; every new option's bad input -> a TypeError / RangeError naming it.
import { readFileSync } from 'node:fs';

import { beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { goldenOptions, goldenScores } from './helpers.js';

const golden = JSON.parse(readFileSync(new URL('../golden/sampler_steps.json', import.meta.url), 'utf8'));
const support = (p) => [...p.keys()].filter((i) => p[i] > 0);
const logs = (p) => Float32Array.from(p, Math.log);

test('the steps golden file covers every further step, 1,000 draws per case', () => {
  expect(golden.cases.length).toBeGreaterThanOrEqual(14);
  const keys = new Set(golden.cases.flatMap((c) => Object.keys(c.options)));
  for (const k of ['topNSigma', 'xtcProbability', 'mirostat', 'dynatempRange', 'epsilonCutoff', 'etaCutoff', 'dryMultiplier', 'noRepeatNgramSize']) {
    expect(keys.has(k), k).toBe(true);
  }
  for (const c of golden.cases) expect(c.draws).toHaveLength(1000);
});

describe.each([
  { build: 'SIMD', simd: true },
  { build: 'baseline', simd: false },
])('$build build', ({ simd }) => {
  let sm;
  beforeAll(async () => {
    sm = await load({ simd });
  });

  test.each(golden.cases.map((c) => [c.name, c]))('golden: %s', (_, c) => {
    const x = goldenScores(c.scores);
    const o = goldenOptions(c);
    const s = sm.createSampler(o);
    const got = new Int32Array(c.draws.length);
    for (let i = 0; i < got.length; i++) {
      got[i] = s.sample(x);
      if (c.accept) s.accept(got[i]);
    }
    expect(Array.from(got)).toEqual(c.draws);
    // reset(seed) restores the streams (draws and XTC's coin), mirostat's mu and an empty history.
    s.reset(BigInt(c.seed));
    if (o.mirostat) expect(s.mirostatMu).toBe(2 * (o.mirostatTau ?? 5));
    if (o.history) s.accept(o.history);
    for (let i = 0; i < 100; i++) {
      const t = s.sample(x);
      expect(t).toBe(c.draws[i]);
      if (c.accept) s.accept(t);
    }
    s.dispose();
  });

  test('presets place every step; options echo the new values', () => {
    const s = sm.createSampler({ seed: 1, topNSigma: 1, drySequenceBreakers: [3, 1], dryMultiplier: 0.5 });
    expect(s.options.order).toEqual([
      'noRepeatNgram', 'dry', 'temperature', 'dynatemp', 'topNSigma', 'topK', 'topP', 'minP', 'typicalP',
      'epsilonCutoff', 'etaCutoff', 'xtc', 'mirostat',
    ]);
    expect(s.options.topNSigma).toBe(1);
    expect(s.options.dryBase).toBe(1.75);
    expect(s.options.drySequenceBreakers).toEqual([3, 1]);
    expect(s.options.xtcThreshold).toBe(0.1);
    expect(s.options.mirostatTau).toBe(5);
    const l = sm.createSampler({ seed: 1, order: 'llama.cpp' });
    expect(l.options.order).toEqual([
      'noRepeatNgram', 'dry', 'topNSigma', 'topK', 'typicalP', 'topP', 'minP', 'epsilonCutoff', 'etaCutoff',
      'xtc', 'temperature', 'dynatemp', 'mirostat',
    ]);
  });

  test('top-n-sigma: mean 2, std sqrt(2) over [0..4]: n = 1 keeps {3, 4}; masked entries do not count', () => {
    expect(support(sm.createSampler({ seed: 1, topNSigma: 1 }).probs([0, 1, 2, 3, 4]))).toEqual([3, 4]);
    expect(support(sm.createSampler({ seed: 1, topNSigma: 2 }).probs([-Infinity, 0, 1, 2, 3, 4]))).toEqual([3, 4, 5]);
  });

  test('XTC: probability 1 drops every entry above the least likely one reaching the threshold', () => {
    const x = logs([0.4, 0.3, 0.2, 0.1]);
    expect(support(sm.createSampler({ seed: 1, xtcProbability: 1, xtcThreshold: 0.19 }).probs(x))).toEqual([2, 3]);
    expect(support(sm.createSampler({ seed: 1, xtcProbability: 1, xtcThreshold: 0.09 }).probs(x))).toEqual([3]);
    expect(support(sm.createSampler({ seed: 1, xtcProbability: 1, xtcThreshold: 0.35 }).probs(x))).toEqual([0, 1, 2, 3]);
    expect(support(sm.createSampler({ seed: 1, xtcProbability: 0, xtcThreshold: 0.09 }).probs(x))).toEqual([0, 1, 2, 3]);
    expect(support(sm.createSampler({ seed: 1, xtcProbability: 1, xtcThreshold: 0.19, minKeep: 3 }).probs(x))).toEqual([0, 1, 2, 3]);
    // probs() does not spend the coin: it shows what the next sample() draws from.
    const s = sm.createSampler({ seed: 7, xtcProbability: 0.5, xtcThreshold: 0.19 });
    for (let i = 0; i < 200; i++) {
      const p = s.probs(x);
      expect(p[s.sample(x)]).toBeGreaterThan(0);
    }
  });

  test("DRY: llama.cpp's test_dry cases", () => {
    const p = sm.createSampler({ seed: 1, dryMultiplier: 1, dryBase: 1.1, dryAllowedLength: 2, dryPenaltyLastN: 5, history: [0, 1, 2, 0, 1] }).probs(logs([0.25, 0.25, 0.25, 0.25]));
    [0.296923, 0.296923, 0.109232, 0.296923].forEach((v, i) => expect(p[i]).toBeCloseTo(v, 5));
    const q = sm.createSampler({ seed: 1, dryMultiplier: 1, dryBase: 1.1, dryAllowedLength: 2, dryPenaltyLastN: 6, history: [0, 1, 3, 4, 0, 1], drySequenceBreakers: [3] }).probs(logs([0.2, 0.2, 0.2, 0.2, 0.2]));
    for (const v of q) expect(v).toBeCloseTo(0.2, 6);
  });

  test('no-repeat n-gram bans the continuations of the last n-1 tokens; all banned is a RangeError', () => {
    const x = [0, 0, 0, 0, 0];
    expect(support(sm.createSampler({ seed: 1, noRepeatNgramSize: 3, history: [1, 2, 3, 1, 2] }).probs(x))).toEqual([0, 1, 2, 4]);
    const s = sm.createSampler({ seed: 1, noRepeatNgramSize: 1, history: [1, 2] });
    expect(() => s.sample([-Infinity, 0, 0])).toThrow(/every entry.*noRepeatNgramSize/);
    expect(s.sample([0, 0, 0])).toBe(0);
  });

  test('mirostat: mu = 2 tau, updated after each draw by -log2 p(drawn) - tau, restored by reset()', () => {
    const x = Float32Array.from({ length: 300 }, (_, i) => -1.1 * Math.log(i + 1));
    const s = sm.createSampler({ seed: 3, mirostat: 2, mirostatTau: 3, mirostatEta: 0.2 });
    expect(s.mirostatMu).toBe(6);
    for (let i = 0; i < 50; i++) {
      const mu = s.mirostatMu;
      const p = s.probs(x);
      expect(s.mirostatMu).toBe(mu);
      const t = s.sample(x);
      expect(s.mirostatMu).toBeCloseTo(mu - 0.2 * (-Math.log2(p[t]) - 3), 5);
    }
    s.reset(3);
    expect(s.mirostatMu).toBe(6);
  });

  test('dynatemp: entropy 0 with T - range <= 0 is greedy; needs a finite temperature', () => {
    expect(support(sm.createSampler({ seed: 1, temperature: 0.3, dynatempRange: 0.4 }).probs([0, -1000, -2000]))).toEqual([0]);
    const p = sm.createSampler({ seed: 1, temperature: 1, dynatempRange: 0.5, dynatempExponent: 0 }).probs([2, 1, 0]);
    const z = 1 + Math.exp(-1 / 1.5) + Math.exp(-2 / 1.5);
    expect(p[0]).toBeCloseTo(1 / z, 6);
    // The dynatemp step applies the temperature: the order need not hold 'temperature'.
    expect(() => sm.createSampler({ seed: 1, temperature: 0.7, dynatempRange: 0.2, order: ['dynatemp'] })).not.toThrow();
  });

  test('epsilon and eta cutoffs (HF): p < epsilon goes; eta = min(e, sqrt(e) exp(-H))', () => {
    const x = logs([0.4, 0.3, 0.2, 0.1]);
    expect(support(sm.createSampler({ seed: 1, epsilonCutoff: 0.15 }).probs(x))).toEqual([0, 1, 2]);
    expect(support(sm.createSampler({ seed: 1, epsilonCutoff: 0.5, minKeep: 2 }).probs(x))).toEqual([0, 1]);
    expect(support(sm.createSampler({ seed: 1, etaCutoff: 0.2 }).probs(x))).toEqual([0, 1, 2]);
    expect(support(sm.createSampler({ seed: 1, etaCutoff: 0.05 }).probs(x))).toEqual([0, 1, 2, 3]);
  });

  test('bad input: every new option out of range or of the wrong type names it; the module keeps working', () => {
    const cases = [
      [{ topNSigma: -1 }, RangeError, 'topNSigma'],
      [{ topNSigma: Infinity }, RangeError, 'topNSigma'],
      [{ topNSigma: '1' }, TypeError, 'topNSigma'],
      [{ topNSigma: NaN }, RangeError, 'topNSigma'],
      [{ xtcProbability: 1.5 }, RangeError, 'xtcProbability'],
      [{ xtcProbability: -0.1 }, RangeError, 'xtcProbability'],
      [{ xtcProbability: null }, TypeError, 'xtcProbability'],
      [{ xtcThreshold: 2 }, RangeError, 'xtcThreshold'],
      [{ xtcThreshold: NaN }, RangeError, 'xtcThreshold'],
      [{ mirostat: 3 }, RangeError, 'mirostat'],
      [{ mirostat: 1.5 }, RangeError, 'mirostat'],
      [{ mirostat: -1 }, RangeError, 'mirostat'],
      [{ mirostat: true }, TypeError, 'mirostat'],
      [{ mirostatTau: -1 }, RangeError, 'mirostatTau'],
      [{ mirostatTau: Infinity }, RangeError, 'mirostatTau'],
      [{ mirostatEta: -0.1 }, RangeError, 'mirostatEta'],
      [{ mirostatEta: '0.1' }, TypeError, 'mirostatEta'],
      [{ dynatempRange: -0.5 }, RangeError, 'dynatempRange'],
      [{ dynatempRange: Infinity }, RangeError, 'dynatempRange'],
      [{ dynatempRange: 0.5, temperature: Infinity }, RangeError, 'dynatempRange'],
      [{ dynatempExponent: -1 }, RangeError, 'dynatempExponent'],
      [{ dynatempExponent: [] }, TypeError, 'dynatempExponent'],
      [{ epsilonCutoff: 1 }, RangeError, 'epsilonCutoff'],
      [{ epsilonCutoff: -0.1 }, RangeError, 'epsilonCutoff'],
      [{ epsilonCutoff: {} }, TypeError, 'epsilonCutoff'],
      [{ etaCutoff: 1.5 }, RangeError, 'etaCutoff'],
      [{ etaCutoff: NaN }, RangeError, 'etaCutoff'],
      [{ dryMultiplier: -1 }, RangeError, 'dryMultiplier'],
      [{ dryMultiplier: 1e39 }, RangeError, 'dryMultiplier'],
      [{ dryMultiplier: 'x' }, TypeError, 'dryMultiplier'],
      [{ dryBase: 0.5 }, RangeError, 'dryBase'],
      [{ dryBase: Infinity }, RangeError, 'dryBase'],
      [{ dryAllowedLength: -1 }, RangeError, 'dryAllowedLength'],
      [{ dryAllowedLength: 1.5 }, RangeError, 'dryAllowedLength'],
      [{ dryPenaltyLastN: -2 }, RangeError, 'dryPenaltyLastN'],
      [{ dryPenaltyLastN: 2 ** 31 }, RangeError, 'dryPenaltyLastN'],
      [{ drySequenceBreakers: 3 }, TypeError, 'drySequenceBreakers'],
      [{ drySequenceBreakers: [1, -1] }, RangeError, 'drySequenceBreakers[1]'],
      [{ drySequenceBreakers: [0.5] }, RangeError, 'drySequenceBreakers[0]'],
      [{ drySequenceBreakers: ['1'] }, TypeError, 'drySequenceBreakers[0]'],
      [{ noRepeatNgramSize: -1 }, RangeError, 'noRepeatNgramSize'],
      [{ noRepeatNgramSize: 2.5 }, RangeError, 'noRepeatNgramSize'],
      [{ noRepeatNgramSize: 2 ** 32 }, RangeError, 'noRepeatNgramSize'],
      [{ xtcProbability: 0.5, order: ['temperature'] }, RangeError, "order lacks 'xtc'"],
      [{ mirostat: 1, order: ['temperature', 'topK'] }, RangeError, "order lacks 'mirostat'"],
      [{ dryMultiplier: 1, order: 'llama.cpp', noRepeatNgramSize: 2 }, null, ''],
      [{ order: ['dry', 'dry'] }, RangeError, 'order'],
      [{ order: ['xtc', 'minp'] }, RangeError, 'order[1]'],
      [{ drySequenceBreaker: [1] }, TypeError, "unknown option 'drySequenceBreaker'"],
    ];
    for (const [o, E, name] of cases) {
      const make = () => sm.createSampler({ seed: 1, ...o });
      if (E === null) {
        expect(make, JSON.stringify(o)).not.toThrow();
        continue;
      }
      let err;
      try {
        make();
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(o)).toBeInstanceOf(E);
      expect(err.message, JSON.stringify(o)).toContain(name);
    }
    expect(sm.createSampler({ seed: 1, topNSigma: 1 }).sample([2, 1, 0])).toBe(0);
  });
});
