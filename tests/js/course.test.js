// The worked examples of the course text (../shared/course/*.txt), each with
// the course's own rounded numbers, compared at the course's rounding.
import { beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { BUILDS } from './helpers.js';
import { mulberry32, normalGen } from './reference.js';

/** Rounds every value to `d` decimals (as the course's round(v, d)). */
const round = (values, d) => Array.from(values, (v) => Math.round(v * 10 ** d) / 10 ** d);

describe.each(BUILDS)('$build build', ({ simd }) => {
  let sm;
  beforeAll(async () => {
    sm = await load({ simd });
  });

  test('[0.707, 0, 0.707] -> 0.401, 0.198, 0.401; e^0.707 ~ 2.028, sum ~ 5.056', () => {
    expect(round(sm.softmax([0.707, 0, 0.707]), 3)).toEqual([0.401, 0.198, 0.401]);
    const s = sm.softmaxSteps([0.707, 0, 0.707]);
    expect(round(s.rawExps, 3)).toEqual([2.028, 1, 2.028]);
    expect(round([s.rawSum], 3)).toEqual([5.056]);
    expect(round([s.rawExps[0] / s.rawSum, s.rawExps[1] / s.rawSum], 3)).toEqual([0.401, 0.198]);
    expect(round(s.probs, 3)).toEqual([0.401, 0.198, 0.401]);
    // "They add to 1. The middle score was smallest, so it got the smallest share."
    expect(Math.abs(s.probs.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-6);
  });

  test('[2, 0, -1] at T = 1: A takes most, B a little, C almost none', () => {
    const [a, b, c] = sm.softmax([2, 0, -1]);
    expect(a).toBeGreaterThan(0.8);
    expect(b).toBeLessThan(a);
    expect(b).toBeGreaterThan(c);
    expect(c).toBeLessThan(0.05);
    expect(round([a, b, c], 3)).toEqual([0.844, 0.114, 0.042]);
  });

  test('[2, 0, -1] at T = 0.3: A takes nearly everything', () => {
    const [a, b, c] = sm.softmax([2, 0, -1], { temperature: 0.3 });
    expect(a).toBeGreaterThan(0.99);
    expect(b + c).toBeLessThan(0.01);
  });

  test('three equal scores -> 1/3 each', () => {
    for (const z of [0, 1, -5, 2.5]) expect(round(sm.softmax([z, z, z]), 3)).toEqual([0.333, 0.333, 0.333]);
    for (const p of sm.softmax([7, 7, 7])) expect(Math.abs(p - 1 / 3)).toBeLessThan(1e-7);
  });

  test('one score much larger than the others takes almost all the pile', () => {
    const [big, ...rest] = sm.softmax([20, 1, 0, 2]);
    expect(big).toBeGreaterThan(0.9999);
    expect(rest.every((p) => p < 1e-7)).toBe(true);
  });

  test('softmax never outputs a negative chance', () => {
    const g = normalGen(mulberry32(17), 0, 30);
    for (let k = 0; k < 50; k++) {
      const x = Array.from({ length: 20 }, g);
      expect(Array.from(sm.softmax(x)).every((p) => p >= 0)).toBe(true);
    }
  });

  test('[2, 1, 0] -> 0.665, 0.245, 0.090 (about 67%, 24%, 9%)', () => {
    const p = sm.softmax([2, 1, 0]);
    expect(round(p, 3)).toEqual([0.665, 0.245, 0.09]);
    expect(round(Array.from(p, (v) => v * 100), 0)).toEqual([67, 24, 9]);
  });

  test('[2, 1, 0] at T = 0.5 (scores [4, 2, 0]): the top jumps to 0.867', () => {
    expect(round(sm.softmax([2, 1, 0], { temperature: 0.5 }), 3)[0]).toBe(0.867);
    expect(round(sm.softmax([4, 2, 0]), 3)[0]).toBe(0.867);
  });

  test('[2, 1, 0] at T = 2 (scores [1, 0.5, 0]) -> 0.506, 0.307, 0.186', () => {
    expect(round(sm.softmax([2, 1, 0], { temperature: 2 }), 3)).toEqual([0.506, 0.307, 0.186]);
    expect(round(sm.softmax([1, 0.5, 0]), 3)).toEqual([0.506, 0.307, 0.186]);
  });

  test('[ln 2, 0, 0] -> 0.5, 0.25, 0.25 (exponentials [2, 1, 1])', () => {
    expect(round(sm.softmax([Math.LN2, 0, 0]), 3)).toEqual([0.5, 0.25, 0.25]);
    expect(round(sm.softmaxSteps([Math.LN2, 0, 0]).rawExps, 3)).toEqual([2, 1, 1]);
  });

  test('only the gaps matter: [1, 3] and [11, 13] both give 0.119, 0.881', () => {
    expect(round(sm.softmax([1, 3]), 3)).toEqual([0.119, 0.881]);
    expect(round(sm.softmax([11, 13]), 3)).toEqual([0.119, 0.881]);
  });

  test('[1000, 1001, 1002]: naive -> NaN, stable -> 0.09, 0.2447, 0.6652', () => {
    expect(Array.from(sm.softmaxNaive([1000, 1001, 1002])).map(Number.isNaN)).toEqual([true, true, true]);
    const stable = sm.softmax([1000, 1001, 1002]);
    expect(round(stable, 4)).toEqual([0.09, 0.2447, 0.6652]);
    // the probabilities of [0, 1, 2]: the worked example's numbers in reverse order
    expect(round(sm.softmax([0, 1, 2]), 4)).toEqual([0.09, 0.2447, 0.6652]);
    expect(round(sm.softmax([2, 1, 0]), 4)).toEqual([0.6652, 0.2447, 0.09]);
  });

  test('[2, 1, 0.1, -1] at T = 0.3: the top gets 0.964', () => {
    expect(round(sm.softmax([2, 1, 0.1, -1], { temperature: 0.3 }), 3)[0]).toBe(0.964);
  });

  test('[2, 1, 0.1, -1] at T = 3 -> 0.382, 0.274, 0.203, 0.141', () => {
    expect(round(sm.softmax([2, 1, 0.1, -1], { temperature: 3 }), 3)).toEqual([0.382, 0.274, 0.203, 0.141]);
  });

  test('sigmoid(2) = softmax([2, 0])[0] = 0.881', () => {
    expect(round([sm.sigmoid(2)], 3)).toEqual([0.881]);
    expect(round([sm.softmax([2, 0])[0]], 3)).toEqual([0.881]);
  });

  test('temperature never changes the order; the top score stays on top', () => {
    const rng = mulberry32(2024);
    const g = normalGen(rng, 0, 3);
    for (let k = 0; k < 200; k++) {
      const n = 2 + Math.floor(rng() * 40);
      const x = Array.from({ length: n }, () => Math.fround(g()));
      const order = x.map((_, i) => i).sort((i, j) => x[j] - x[i]); // descending scores
      for (const T of [0.05 + rng() * 0.95, 1, 1 + rng() * 20, 0.3, 3]) {
        const p = sm.softmax(x, { temperature: T });
        for (let r = 1; r < n; r++) {
          expect(p[order[r - 1]], `n=${n} T=${T}`).toBeGreaterThanOrEqual(p[order[r]]);
        }
        expect(sm.argmax(p), `n=${n} T=${T}`).toBe(sm.argmax(x));
      }
    }
  });

  test('greedy choice (T -> 0, argmax) of [2, 1, 0] is the first candidate', () => {
    expect(sm.argmax([2, 1, 0])).toBe(0);
    expect(Array.from(sm.softmax([2, 1, 0], { temperature: 0 }))).toEqual([1, 0, 0]);
    expect(sm.softmax([2, 1, 0], { temperature: 0.01 })[0]).toBeGreaterThan(0.9999);
  });
});
