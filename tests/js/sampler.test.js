// The JS Sampler (web/src/sampler.js) for both wasm builds: every filter
// against the independent sort-based double reference (tests/js/
// sampler-reference.js), the course example, sampleMany, logprobs, batches,
// seeds, dispose, and every bad input -> a TypeError / RangeError naming it,
// after which the sampler keeps working.
import { beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { refSamplerProbs, rng } from './sampler-reference.js';

const STEPS = ['temperature', 'topK', 'topP', 'minP', 'typicalP'];

function randomCase(r, iter) {
  const sizes = [1, 2, 3, 5, 10, 17, 64, 100, 333, 1000, 3000];
  const n = sizes[iter % sizes.length];
  const ties = r() < 0.3;
  const masks = r() < 0.3;
  const sd = r() < 0.5 ? 1 : 4;
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const g = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r()) * sd;
    x[i] = ties ? Math.round(g * 2) / 2 : g;
    if (masks && r() < 0.3) x[i] = -Infinity;
  }
  if (masks) x[Math.floor(r() * n)] = 0.25;
  const o = {};
  if (r() < 0.5) o.temperature = [0.5, 0.75, 1.5, 2, 0, Infinity][Math.floor(r() * 6)];
  if (r() < 0.5) o.topK = 1 + Math.floor(r() * (n + 3));
  if (r() < 0.5) o.topP = 0.05 + 0.95 * r();
  if (r() < 0.4) o.minP = 0.3 * r();
  if (r() < 0.4) o.typicalP = 0.05 + 0.95 * r();
  if (r() < 0.3) o.minKeep = 1 + Math.floor(r() * 5);
  const ord = Math.floor(r() * 3);
  if (ord === 1) o.order = 'llama.cpp';
  if (ord === 2) o.order = [...STEPS].sort(() => r() - 0.5);
  if (r() < 0.2) {
    Object.assign(o, { repetitionPenalty: 1.5, frequencyPenalty: 0.25, presencePenalty: -0.25, penaltyLastN: 4 });
    o.history = Array.from({ length: 6 }, () => Math.floor(r() * n));
  }
  if (r() < 0.2) o.logitBias = { [Math.floor(r() * n)]: 1.5 };
  return { x, o };
}

function expectClose(got, ref, label) {
  let bad = null;
  let sum = 0;
  for (let i = 0; i < ref.length && bad === null; i++) {
    const g = got[i];
    const e = ref[i];
    sum += g;
    if ((g === 0 || e === 0) && !(g === 0 && e < 1e-37)) bad = `${label} [${i}]: support differs, got ${g}, expected ${e}`;
    else if (Math.abs(g - e) > 2e-6 + 2e-5 * e) bad = `${label} [${i}]: got ${g}, expected ${e}`;
  }
  expect(bad).toBe(null);
  expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
}

describe.each([
  { build: 'SIMD', simd: true },
  { build: 'baseline', simd: false },
])('$build build', ({ simd }) => {
  let sm;
  beforeAll(async () => {
    sm = await load({ simd });
  });

  test('every filter and order matches the sort-based reference on random inputs', () => {
    const r = rng(simd ? 11 : 12);
    let checked = 0;
    for (let iter = 0; iter < 400; iter++) {
      const { x, o } = randomCase(r, iter);
      const ref = refSamplerProbs(x, o);
      if (ref.ambiguous || ref.probs.every((p) => p === 0)) continue;
      const s = sm.createSampler({ ...o, seed: iter });
      expectClose(s.probs(x), ref.probs, `iter ${iter} ${JSON.stringify(o)}`);
      const t = s.sample(x);
      expect(ref.probs[t]).toBeGreaterThan(0);
      s.dispose();
      checked++;
    }
    expect(checked).toBeGreaterThan(330);
  });

  test('typical with minKeep where most probabilities underflow: the order comes from the logits, not from p = 0', () => {
    // Logits 1e3 apart: at T = 1 every p but the top one underflows to 0 in
    // double, so -log p would be Infinity for all of them (a tie broken by
    // index); typical's order is |-log p - H| = |x - mu| / T, finite.
    const x = Float32Array.from([2000, 5000, 1000, 4000, 3000, 0], (v) => v);
    const o = { typicalP: 0.5, minKeep: 3, order: 'llama.cpp', temperature: 2 ** 64 };
    const ref = refSamplerProbs(x, o);
    const p = sm.createSampler({ ...o, seed: 1 }).probs(x);
    expectClose(p, ref.probs, JSON.stringify(o));
    // H = 0 and mu = 5000: the three nearest 5000 (4000, 3000 after the top) are kept.
    expect([...p.keys()].filter((i) => p[i] > 0)).toEqual([1, 3, 4]);
  });

  test('llama.cpp top-p case: probs {0.1, 0.2, 0.3, 0.4}, top-p 0.7 keeps {0.4, 0.3}', () => {
    const x = Float32Array.from([0.1, 0.2, 0.3, 0.4], Math.log);
    const p = sm.createSampler({ topP: 0.7, seed: 1 }).probs(x);
    expect(p[0]).toBe(0);
    expect(p[1]).toBe(0);
    expect(p[2]).toBeCloseTo(0.3 / 0.7, 6);
    expect(p[3]).toBeCloseTo(0.4 / 0.7, 6);
  });

  test("'hf' and 'llama.cpp' orders differ where temperature meets top-p / min-p", () => {
    const x = [2, 1, 0];
    const support = (p) => [...p.keys()].filter((i) => p[i] > 0);
    expect(support(sm.createSampler({ temperature: 2, topP: 0.6, seed: 1 }).probs(x))).toEqual([0, 1]);
    expect(support(sm.createSampler({ temperature: 2, topP: 0.6, order: 'llama.cpp', seed: 1 }).probs(x))).toEqual([0]);
    expect(support(sm.createSampler({ temperature: 3, minP: 0.5, seed: 1 }).probs(x))).toEqual([0, 1, 2]);
    expect(support(sm.createSampler({ temperature: 3, minP: 0.5, order: 'llama.cpp', seed: 1 }).probs(x))).toEqual([0]);
  });

  test('top-k ties by lower index; masked entries are never drawn; greedy takes the first maximum', () => {
    const p = sm.createSampler({ topK: 2, seed: 1 }).probs([1, 2, 2, 2, 0]);
    expect([...p.keys()].filter((i) => p[i] > 0)).toEqual([1, 2]);
    const s = sm.createSampler({ seed: 3 });
    const d = s.sampleMany([-Infinity, 0, -Infinity, 1], 5000);
    expect(d.every((t) => t === 1 || t === 3)).toBe(true);
    const g = sm.createSampler({ temperature: 0, seed: 4 }).sampleMany([1, 3, 3, 2], 100);
    expect(g.every((t) => t === 1)).toBe(true);
  });

  test('course example: at [2, 1, 0] the second about 24%, the third about 9%; greedy always the first', () => {
    const d = sm.createSampler({ seed: 2718 }).sampleMany([2, 1, 0], 100000);
    const f = [0, 0, 0];
    for (const t of d) f[t] += 1 / d.length;
    const z = Math.E ** 2 + Math.E + 1;
    expect(Math.abs(f[1] - Math.E / z)).toBeLessThan(5 * Math.sqrt(0.2447 * 0.7553 / 1e5));
    expect(Math.abs(f[2] - 1 / z)).toBeLessThan(5 * Math.sqrt(0.09 * 0.91 / 1e5));
    expect(f[1]).toBeCloseTo(0.24, 1);
    expect(f[2]).toBeCloseTo(0.09, 1);
    expect(sm.createSampler({ temperature: 0 }).sampleMany([2, 1, 0], 1000).every((t) => t === 0)).toBe(true);
  });

  test('seeds: same seed same indices (number or BigInt), the 64-bit high half matters, sampleMany = repeated sample', () => {
    const x = Float32Array.from({ length: 500 }, (_, i) => Math.sin(i) * 3);
    const a = sm.createSampler({ seed: 5, topP: 0.9 });
    const b = sm.createSampler({ seed: 5n, topP: 0.9 });
    const c = sm.createSampler({ seed: 2n ** 32n + 5n, topP: 0.9 });
    const many = b.sampleMany(x, 300);
    const one = Int32Array.from({ length: 300 }, () => a.sample(x));
    expect(one).toEqual(many);
    expect(c.sampleMany(x, 300)).not.toEqual(many);
    a.reset(5);
    expect(a.sample(x)).toBe(many[0]);
    expect(a.seed).toBe(5n);
    const r1 = sm.createSampler();
    const r2 = sm.createSampler();
    expect(typeof r1.seed).toBe('bigint');
    expect(r1.seed).not.toBe(r2.seed);
    expect(sm.sample(x, { seed: 9 })).toBe(sm.createSampler({ seed: 9 }).sample(x));
  });

  test('accept() feeds the penalties; reset() clears the history', () => {
    const s = sm.createSampler({ seed: 1, presencePenalty: 1, penaltyLastN: -1 });
    const x = [0, 0];
    expect(s.probs(x)[0]).toBeCloseTo(0.5, 6);
    s.accept(0);
    expect(s.probs(x)[0]).toBeCloseTo(1 / (1 + Math.E), 6);
    s.accept([1, 1]);
    expect(s.probs(x)[0]).toBeCloseTo(0.5, 6);
    s.reset(1);
    s.accept(1);
    expect(s.probs(x)[0]).toBeCloseTo(Math.E / (1 + Math.E), 6);
    s.reset();
    expect(s.probs(x)[0]).toBeCloseTo(0.5, 6);
    const h = sm.createSampler({ seed: 1, repetitionPenalty: 2, history: [0, 1] });
    const p = h.probs([2, -1, 0]);
    const e = [Math.exp(1), Math.exp(-2), 1];
    const z = e[0] + e[1] + e[2];
    e.forEach((v, i) => expect(p[i]).toBeCloseTo(v / z, 6));
  });

  test('logitBias adds, -Infinity bans', () => {
    const s = sm.createSampler({ seed: 1, logitBias: { 0: -Infinity, 2: Math.log(3) } });
    const p = s.probs([5, 0, 0]);
    expect(p[0]).toBe(0);
    expect(p[2] / p[1]).toBeCloseTo(3, 5);
    const m = sm.createSampler({ seed: 1, logitBias: new Map([[1, -Infinity]]) });
    expect(m.probs([0, 0])[1]).toBe(0);
  });

  test('logprobs: top-k indices with log-probabilities before and after the filters', () => {
    const x = [0.5, 3, -Infinity, 3, 1, 2];
    const s = sm.createSampler({ seed: 1, topK: 2, temperature: 0.5 });
    const r = s.logprobs(x, 10);
    expect(Array.from(r.indices)).toEqual([1, 3, 5, 4, 0, 2]);
    const z = Math.log(x.reduce((a, v) => a + Math.exp(v), 0));
    for (let j = 0; j < 5; j++) expect(r.before[j]).toBeCloseTo(x[r.indices[j]] - z, 5);
    expect(r.before[5]).toBe(-Infinity);
    expect(r.after[0]).toBeCloseTo(Math.log(0.5), 6);
    expect(r.after[1]).toBeCloseTo(Math.log(0.5), 6);
    expect(Array.from(r.after.slice(2))).toEqual([-Infinity, -Infinity, -Infinity, -Infinity]);
    expect(s.logprobs(x, 2).indices).toEqual(Int32Array.from([1, 3]));
  });

  test('sampleBatch: one index per row, as sample() row by row', () => {
    const rows = 5;
    const vocab = 200;
    const x = Float32Array.from({ length: rows * vocab }, (_, i) => Math.cos(i * 0.37) * 4);
    const a = sm.createSampler({ seed: 8, topK: 20 });
    const b = sm.createSampler({ seed: 8, topK: 20 });
    const got = a.sampleBatch(x, [rows, vocab]);
    expect(got).toBeInstanceOf(Int32Array);
    for (let r = 0; r < rows; r++) expect(got[r]).toBe(b.sample(x.subarray(r * vocab, (r + 1) * vocab)));
    x[3 * vocab + 4] = NaN;
    expect(() => a.sampleBatch(x, [rows, vocab])).toThrow(/scores\[604\] \(row 3, entry 4\) is NaN/);
    expect(() => a.sampleBatch(x, [rows, vocab + 1])).toThrow(RangeError);
    expect(() => a.sampleBatch(x, rows)).toThrow(TypeError);
    expect(a.sampleBatch(new Float32Array(0), [0, 5])).toEqual(new Int32Array(0));
  });

  test('dispose: later use throws, dispose twice is fine, Symbol.dispose when the engine has it', () => {
    const s = sm.createSampler({ seed: 1 });
    s.dispose();
    s.dispose();
    expect(s.disposed).toBe(true);
    for (const call of [() => s.sample([1]), () => s.probs([1]), () => s.sampleMany([1], 2), () => s.accept(1), () => s.reset(1)]) {
      expect(call).toThrow(/disposed/);
    }
    if (typeof Symbol.dispose === 'symbol') {
      const t = sm.createSampler({ seed: 1 });
      t[Symbol.dispose]();
      expect(t.disposed).toBe(true);
    }
  });

  describe('bad input names the argument, and the sampler keeps working', () => {
    const badOptions = [
      [{ temperature: -1 }, RangeError, 'temperature'],
      [{ temperature: NaN }, RangeError, 'temperature'],
      [{ temperature: '1' }, TypeError, 'temperature'],
      [{ topK: -1 }, RangeError, 'topK'],
      [{ topK: 1.5 }, RangeError, 'topK'],
      [{ topK: Infinity }, RangeError, 'topK'],
      [{ topK: '3' }, TypeError, 'topK'],
      [{ topP: 0 }, RangeError, 'topP must be in (0, 1], got 0'],
      [{ topP: 1.5 }, RangeError, 'topP must be in (0, 1], got 1.5'],
      [{ topP: NaN }, RangeError, 'topP'],
      [{ topP: null }, TypeError, 'topP'],
      [{ minP: -0.1 }, RangeError, 'minP'],
      [{ minP: 1.1 }, RangeError, 'minP'],
      [{ typicalP: 0 }, RangeError, 'typicalP'],
      [{ typicalP: 2 }, RangeError, 'typicalP'],
      [{ minKeep: 0 }, RangeError, 'minKeep'],
      [{ minKeep: 2.5 }, RangeError, 'minKeep'],
      [{ repetitionPenalty: 0 }, RangeError, 'repetitionPenalty'],
      [{ repetitionPenalty: Infinity }, RangeError, 'repetitionPenalty'],
      [{ frequencyPenalty: NaN }, RangeError, 'frequencyPenalty'],
      [{ frequencyPenalty: 'x' }, TypeError, 'frequencyPenalty'],
      [{ presencePenalty: -Infinity }, RangeError, 'presencePenalty'],
      [{ penaltyLastN: -2 }, RangeError, 'penaltyLastN'],
      [{ penaltyLastN: 1.5 }, RangeError, 'penaltyLastN'],
      [{ seed: -1 }, RangeError, 'seed'],
      [{ seed: 1.5 }, RangeError, 'seed'],
      [{ seed: 2n ** 64n }, RangeError, 'seed'],
      [{ seed: '7' }, TypeError, 'seed'],
      [{ logitBias: 5 }, TypeError, 'logitBias'],
      [{ logitBias: { a: 1 } }, RangeError, 'logitBias'],
      [{ logitBias: { 1: Infinity } }, RangeError, 'logitBias[1]'],
      [{ logitBias: { 1: NaN } }, RangeError, 'logitBias[1]'],
      [{ logitBias: { 1: '2' } }, TypeError, 'logitBias[1]'],
      [{ history: [-1] }, RangeError, 'history[0]'],
      [{ history: [0, 1.5] }, RangeError, 'history[1]'],
      [{ history: 'abc' }, TypeError, 'history'],
      [{ order: 'xyz' }, RangeError, 'order'],
      [{ order: ['topK', 'topK'] }, RangeError, 'order'],
      [{ order: ['foo'] }, RangeError, 'order[0]'],
      [{ order: 5 }, TypeError, 'order'],
      [{ topP: 0.5, order: ['temperature'] }, RangeError, "order lacks 'topP'"],
      [{ topp: 0.9 }, TypeError, "unknown option 'topp'"],
      [5, TypeError, 'options'],
    ];
    test.each(badOptions.map(([o, E, m]) => [m, o, E]))('createSampler: %s', (m, o, E) => {
      expect(() => sm.createSampler(o)).toThrow(E);
      expect(() => sm.createSampler(o)).toThrow(m);
      expect(() => sm.sample([1, 2], o)).toThrow(E);
      expect([0, 1]).toContain(sm.createSampler({ seed: 1 }).sample([1, 2]));
    });

    test('scores and method arguments', () => {
      const s = sm.createSampler({ seed: 1, logitBias: { 5: 1 } });
      const t = sm.createSampler({ seed: 1 });
      const cases = [
        [() => t.sample([1, 2, NaN]), RangeError, 'scores[2] is NaN'],
        [() => t.sample([-Infinity, -Infinity]), RangeError, '-Infinity'],
        [() => t.sample([]), RangeError, 'empty'],
        [() => t.probs(new Float32Array(0)), RangeError, 'empty'],
        [() => t.sample('abc'), TypeError, 'scores'],
        [() => t.sample([1, 'a']), TypeError, 'scores[1]'],
        [() => t.sample(undefined), TypeError, 'scores'],
        [() => s.sample([1, 2]), RangeError, 'logitBias index 5'],
        [() => t.sampleMany([1, 2], -1), RangeError, 'n'],
        [() => t.sampleMany([1, 2], 1.5), RangeError, 'n'],
        [() => t.sampleMany([1, 2], 'x'), TypeError, 'n'],
        [() => t.logprobs([1, 2], 0), RangeError, 'k'],
        [() => t.logprobs([1, 2]), TypeError, 'k'],
        [() => t.accept(-1), RangeError, 'tokens[0]'],
        [() => t.accept('x'), TypeError, 'tokens'],
        [() => t.reset(-1), RangeError, 'seed'],
        [() => t.sampleBatch([1, 2], [1]), TypeError, 'shape'],
        [() => t.sampleBatch([1, 2], [1, 1.5]), RangeError, 'shape[1]'],
      ];
      for (const [call, E, m] of cases) {
        expect(call).toThrow(E);
        expect(call).toThrow(m);
        expect([0, 1]).toContain(t.sample([1, 2]));
      }
      expect(s.sample(new Float32Array(6).fill(1))).toBeLessThan(6);
      expect(sm.softmax([0, 0])).toEqual(Float32Array.from([0.5, 0.5]));
    });
  });
});
