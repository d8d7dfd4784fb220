// The worked examples of the course text (../shared/course/*.txt), listed once in
// web/demo/course-examples.js (inputs and the course's numbers), computed here by
// both wasm builds and compared at the course's rounding. Properties the course
// states in words (never negative, order kept) are checked on random inputs.
import { beforeAll, describe, expect, test } from 'vitest';

import { EXAMPLES, matches, runExamples } from '../../web/demo/course-examples.js';
import { load } from '../../web/src/node.js';
import { BUILDS } from './helpers.js';
import { mulberry32, normalGen } from './reference.js';

describe('the list of worked examples', () => {
  test('every check names a computed value and a rule the course states', () => {
    const ids = new Set();
    let n = 0;
    for (const ex of EXAMPLES) {
      expect(ids.has(ex.id), `duplicate id ${ex.id}`).toBe(false);
      ids.add(ex.id);
      for (const c of ex.checks) {
        n++;
        expect(['course', 'ours']).toContain(c.source);
        expect(typeof c.course).toBe('string');
        expect(c.expected === 'NaN' || /^(>=|<=|>|<|=)?\s*-?[\d.e-]+$/.test(c.expected), `${ex.id}/${c.key}: ${c.expected}`).toBe(true);
      }
    }
    expect(EXAMPLES.length).toBe(15);
    expect(n).toBeGreaterThanOrEqual(80);
  });

  test('the matching rule rejects what the course does not print', () => {
    expect(matches(0.4012, '0.401', 3)).toBe(true);
    expect(matches(0.4016, '0.401', 3)).toBe(false); // rounds to 0.402
    expect(matches(NaN, '0.401', 3)).toBe(false);
    expect(matches(NaN, 'NaN', 0)).toBe(true);
    expect(matches(0.5, 'NaN', 0)).toBe(false);
    expect(matches(0, '>0', 0)).toBe(false);
    expect(matches(0, '>=0', 0)).toBe(true);
    expect(matches(999, '=1000', 0)).toBe(false);
    expect(matches(2e-6, '<1e-6', 7)).toBe(false);
    expect(matches(Infinity, '1', 5)).toBe(false);
  });
});

describe.each(BUILDS)('$build build', ({ simd }) => {
  let sm;
  beforeAll(async () => {
    sm = await load({ simd });
  });

  // One test per worked example, each number against the course's.
  for (const ex of EXAMPLES) {
    test(`${ex.title}: ${ex.checks.length} numbers match the course`, () => {
      const values = ex.compute(sm, ex.inputs);
      for (const c of ex.checks) {
        const v = Number(values[c.key]);
        expect(matches(v, c.expected, c.digits), `${c.label}: course ${c.course} (${c.expected}), computed ${v}`).toBe(true);
        // the same value nudged past the course's rounding must fail: the check can fail
        if (/^-?[\d.]+$/.test(c.expected)) expect(matches(v + 10 ** -c.digits, c.expected, c.digits)).toBe(false);
      }
    });
  }

  test('runExamples checks every number once, all matching', () => {
    const all = runExamples(sm);
    expect(all.length).toBe(EXAMPLES.reduce((n, ex) => n + ex.checks.length, 0));
    expect(all.filter((r) => !r.ok).map((r) => `${r.example.id}/${r.check.key}`)).toEqual([]);
  });

  test('softmax never outputs a negative chance', () => {
    const g = normalGen(mulberry32(17), 0, 30);
    for (let k = 0; k < 50; k++) {
      const x = Array.from({ length: 20 }, g);
      expect(Array.from(sm.softmax(x)).every((p) => p >= 0)).toBe(true);
    }
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

  test('the ours-reference numbers are double-precision softmax rounded (independent of the wasm)', () => {
    const ref = (z, t = 1) => {
      const s = z.map((v) => v / t);
      const m = Math.max(...s);
      const e = s.map((v) => Math.exp(v - m));
      const tot = e.reduce((a, b) => a + b, 0);
      return e.map((v) => v / tot);
    };
    const byId = Object.fromEntries(EXAMPLES.map((e) => [e.id, e]));
    const exp = (id, key) => Number(byId[id].checks.find((c) => c.key === key).expected);
    expect(ref([2, 0, -1])[0].toFixed(3)).toBe(exp('abc', 'a').toFixed(3));
    expect(ref([2, 0, -1])[2].toFixed(3)).toBe(exp('abc', 'c').toFixed(3));
    expect(ref([2, 0, -1], 0.3)[0].toFixed(3)).toBe(exp('abc', 'cold').toFixed(3));
    expect(ref([2, 1, 0.1, -1])[3].toFixed(3)).toBe(exp('four', 'b3').toFixed(3));
    expect(ref([2, 1, 0], 0.5)[2].toFixed(3)).toBe(exp('temperature', 'a2').toFixed(3));
  });
});
