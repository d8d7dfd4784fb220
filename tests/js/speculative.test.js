// Token masks (the `mask` option, sm.applyTokenBitmask) and draft verification
// (Sampler.verifyDraft) in both wasm builds: the golden sequences of
// tests/golden/speculative.json (written by the native build), the mask's
// semantics against -Infinity scores, chi-square of verifyDraft's tokens
// against the target distribution and its acceptance rate against
// sum min(p, q), and every bad input -> a TypeError / RangeError naming it.
//
// Statistics: fixed seeds; each check at false-alarm rate 1e-4 (chi-square:
// Wilson-Hilferty quantile; acceptance: |z| <= 3.89), 20 checks per build.
import { readFileSync } from 'node:fs';

import { beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { BUILDS, goldenScores } from './helpers.js';
import { rng } from './sampler-reference.js';


const golden = JSON.parse(readFileSync(new URL('../golden/speculative.json', import.meta.url), 'utf8'));

/** The hash mask of tests/native/speculative_golden.h. */
function hashMask(n, salt) {
  const m = new Uint32Array(Math.ceil(n / 32));
  for (let w = 0; w < m.length; w++) m[w] = (Math.imul(w + salt, 2246822519) & Math.imul(w + salt + 1, 3266489917)) >>> 0;
  m[0] |= 1;
  return m;
}

const optionsOf = (c) => ({ ...c.options, seed: Number(c.seed) });

/** The verification rows of a golden case (speculative_golden.h). */
function rowsOf(sm, c) {
  const { n, k } = c;
  const target = new Float32Array((k + 1) * n);
  const draft = new Float32Array(k * n);
  const masks = [];
  for (let j = 0; j <= k; j++) {
    const t = goldenScores({ hash: { n, salt: c.salt + j, maskedBelow: 0, scale: c.scale } });
    target.set(t, j * n);
    if (c.maskSalt) masks.push(hashMask(n, c.maskSalt + j));
    if (j === k) break;
    const d = goldenScores({ hash: { n, salt: c.draftSalt + j, maskedBelow: 0, scale: 1 } });
    for (let i = 0; i < n; i++) d[i] = t[i] + d[i];
    draft.set(sm.softmax(d), j * n);
  }
  return { target, draft, masks };
}

const chi2Crit = (df) => {
  const a = 2 / (9 * df);
  return df * (1 - a + 3.719 * Math.sqrt(a)) ** 3;
};

function softmax64(x, t = 1) {
  const m = Math.max(...x);
  const e = x.map((v) => (v === -Infinity ? 0 : Math.exp((v - m) / t)));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}

describe.each(BUILDS)('$build build', ({ simd }) => {
  let sm;
  beforeAll(async () => {
    sm = await load({ simd });
    expect(sm.simd).toBe(simd);
  });

  test.each(golden.masked.map((c) => [c.name, c]))('golden masked draws: %s', (_, c) => {
    const x = goldenScores(c.scores);
    const mask = hashMask(x.length, c.maskSalt);
    const s = sm.createSampler(optionsOf(c));
    const got = Array.from({ length: c.draws.length }, () => s.sample(x, { mask }));
    expect(got).toEqual(c.draws);
    s.reset(Number(c.seed));
    expect(Array.from(s.sampleMany(x, c.draws.length, { mask: new Int32Array(mask.buffer) }))).toEqual(c.draws);
    s.dispose();
  });

  test.each(golden.verify.map((c) => [c.name, c]))('golden verifyDraft: %s', (_, c) => {
    const { target, draft, masks } = rowsOf(sm, c);
    const s = sm.createSampler(optionsOf(c));
    const got = [];
    for (let round = 0; round < c.rounds; round++) {
      const tokens = Array.from({ length: c.k }, (_, j) =>
        (round + j) % 3 !== 2 ? sm.argmax(draft.subarray(j * c.n, (j + 1) * c.n)) : (Math.imul(round * 31 + j, 2654435761) >>> 0) % c.n,
      );
      const v = s.verifyDraft(tokens, draft, target, masks.length ? { mask: masks } : undefined);
      expect(v.tokens).toHaveLength(v.accepted + 1);
      got.push(v.accepted, ...v.tokens);
    }
    expect(got).toEqual(c.results);
    s.dispose();
  });

  test('a masked call equals the call on scores with -Infinity where the mask forbids', () => {
    const r = rng(5);
    for (const opts of [{}, { topK: 40 }, { topP: 0.8, temperature: 0.7 }, { topK: 1, minKeep: 50 }, { temperature: 0 }, { logitBias: { 2: 50, 5: 50 } }]) {
      const n = 3000;
      const x = Float32Array.from({ length: n }, () => (r() - 0.5) * 10);
      const mask = new Uint32Array(Math.ceil(n / 32)).map(() => (r() * 2 ** 32) >>> 0);
      mask[0] &= ~(1 << 2) & ~(1 << 5); // tokens 2 and 5 forbidden (and biased up above)
      const xm = sm.applyTokenBitmask(x.slice(), mask);
      const a = sm.createSampler({ seed: 3, ...opts });
      const b = sm.createSampler({ seed: 3, ...opts });
      expect(a.probs(x, { mask })).toEqual(b.probs(xm));
      expect(a.sampleMany(x, 100, { mask })).toEqual(b.sampleMany(xm, 100));
      expect(a.logprobs(x, 5, { mask })).toEqual(b.logprobs(xm, 5));
      const p = a.probs(x, { mask });
      expect(p[2]).toBe(0);
      expect(p[5]).toBe(0);
      a.dispose();
      b.dispose();
    }
  });

  test('probabilities under a mask: softmax over the allowed tokens (double reference)', () => {
    const x = [0.5, 1.0, 2.0, 3.0, 0.2, 2.5, 0.1, 1.5];
    const mask = new Uint32Array([0b110]);
    const s = sm.createSampler({ seed: 42 });
    const p = s.probs(x, { mask });
    const ref = softmax64([1, 2]);
    expect(p[1]).toBeCloseTo(ref[0], 6);
    expect(p[2]).toBeCloseTo(ref[1], 6);
    expect([p[0], p[3], p[4], p[5], p[6], p[7]]).toEqual([0, 0, 0, 0, 0, 0]);
    // A longer mask is fine (bits past the vocabulary are ignored).
    expect(s.probs(x, { mask: new Uint32Array([0b110, 0xffffffff]) })).toEqual(p);
  });

  test('sampleBatch takes one mask per row (an array, or one flat array of rows * words)', () => {
    const x = new Float32Array(3 * 40).fill(1);
    const rows = [new Uint32Array([1 << 7, 0]), new Uint32Array([0, 1 << 3]), new Uint32Array([0, 0xf0])];
    const s = sm.createSampler({ seed: 1 });
    for (let i = 0; i < 20; i++) {
      const got = s.sampleBatch(x, [3, 40], { mask: rows });
      expect([got[0], got[1]]).toEqual([7, 35]);
      expect(got[2]).toBeGreaterThanOrEqual(36);
      expect(got[2]).toBeLessThan(40);
    }
    const flat = new Uint32Array(6);
    rows.forEach((m, r) => flat.set(m, 2 * r));
    s.reset(9);
    const a = s.sampleBatch(x, [3, 40], { mask: flat });
    s.reset(9);
    expect(s.sampleBatch({ data: x, dims: [3, 40] }, { mask: rows })).toEqual(a);
    expect(() => s.sampleBatch(x, [3, 40], { mask: rows.slice(0, 2) })).toThrow(/mask has 2 rows, expected 3/);
    expect(() => s.sampleBatch(x, [3, 40], { mask: new Uint32Array(5) })).toThrow(RangeError);
    expect(() => s.sampleBatch(x, [3, 40], { mask: [rows[0], new Uint32Array(2), rows[2]] })).toThrow(/mask allows no token \(row 1\)/);
    s.dispose();
  });

  test('mask errors name mask; the sampler keeps working', () => {
    const s = sm.createSampler({ seed: 1, topK: 2 });
    const x = new Float32Array(40).fill(0);
    expect(() => s.sample(x, { mask: new Uint32Array(1) })).toThrow(/mask has 1 words; 40 tokens need 2/);
    expect(() => s.sample(x, { mask: new Uint32Array(2) })).toThrow(new RangeError('Sampler.sample: mask allows no token'));
    expect(() => s.probs(x, { mask: new Uint32Array([0, 0xffffff00]) })).toThrow(/mask allows no token/);
    expect(() => s.sample(x, { mask: [1, 1] })).toThrow(TypeError);
    expect(() => s.sample(x, { mask: new Float32Array(2) })).toThrow(/mask must be a Uint32Array or an Int32Array/);
    expect(() => sm.applyTokenBitmask(x)).toThrow(new TypeError('applyTokenBitmask: mask is missing (a Uint32Array or an Int32Array, bit i & 31 of word i >> 5 allows token i)'));
    // One row, one mask in a list: as for any batch size (and verifyDraft with no draft tokens).
    const one = new Uint32Array([1 << 3, 0]);
    expect(Array.from(s.sampleBatch(x, [1, 40], { mask: [one] }))).toEqual([3]);
    expect(Array.from(s.sampleBatch({ data: x, dims: [1, 40] }, { mask: [one] }))).toEqual([3]);
    expect(Array.from(s.verifyDraft([], new Float32Array(0), x, { mask: [one] }).tokens)).toEqual([3]);
    expect(() => s.sampleBatch(x, [1, 40], { mask: [one, one] })).toThrow(new RangeError('Sampler.sampleBatch: mask has 2 rows, expected 1'));
    expect(() => s.sampleMany(x, 2, { mask: 3 })).toThrow(TypeError);
    expect(() => s.logprobs(x, 2, { mask: 'all' })).toThrow(TypeError);
    expect(() => s.sample(x, { Mask: new Uint32Array(2) })).toThrow(/unknown option 'Mask' \(did you mean 'mask'\?\)/);
    const y = x.slice();
    y[39] = -Infinity;
    expect(() => s.sample(y, { mask: new Uint32Array([0, 1 << 7]) })).toThrow(/every entry of scores is -Infinity/);
    expect(() => s.sample(x, { mask: new Int32Array([0, -2147483648]) })).toThrow(/mask allows no token/); // bit 31 of word 1: token 63
    expect(s.probs(x, { mask: new Int32Array([-1, -1]) })).toEqual(s.probs(x));
    expect(s.sample(x, { mask: new Int32Array([0, 1 << 7]) })).toBe(39);
    expect(s.sample(x, { mask: new Uint32Array([0, 1 << 7]) })).toBe(39);
    s.dispose();
  });

  test('sm.sample takes the mask among its options: the draw stays among the allowed tokens, errors name sample', () => {
    const x = Float32Array.from({ length: 40 }, (_, i) => (i === 3 ? 10 : 0));
    const mask = new Uint32Array([(1 << 7) | (1 << 9), 0]);
    const seen = new Set();
    for (let seed = 0; seed < 50; seed++) seen.add(sm.sample(x, { seed, mask }));
    expect([...seen].sort((a, b) => a - b)).toEqual([7, 9]);
    expect(sm.sample(x, { seed: 1 })).toBe(3);
    expect(sm.sample(x, { seed: 1, temperature: 0, mask })).toBe(7);
    expect(() => sm.sample(x, { seed: 1, mask: new Uint32Array([0, 0]) })).toThrow(/^sample: .*mask/);
    expect(() => sm.sample(x, { seed: 1, mask: [1] })).toThrow(TypeError);
    expect(() => sm.sample(x, { seed: 1, masks: mask })).toThrow(/^sample: unknown option 'masks' \(did you mean 'mask'\?\)/);
    // The options' getters run once.
    let reads = 0;
    const o = { seed: 2, get mask() { reads++; return mask; } };
    expect([7, 9]).toContain(sm.sample(x, o));
    expect(reads).toBe(1);
  });

  test('applyTokenBitmask: in place on Float32Array, buffer() views, Float64Array, arrays and tensors (float16 too)', () => {
    const mask = new Uint32Array([0b1010, 1 << 1]);
    const want = (len) => Array.from({ length: len }, (_, i) => (((mask[i >> 5] >>> (i & 31)) & 1) ? i : -Infinity));
    const f32 = Float32Array.from({ length: 34 }, (_, i) => i);
    expect(sm.applyTokenBitmask(f32, mask)).toBe(f32);
    expect(Array.from(f32)).toEqual(want(34));
    const f64 = Float64Array.from({ length: 34 }, (_, i) => i);
    expect(Array.from(sm.applyTokenBitmask(f64, mask))).toEqual(want(34));
    const arr = Array.from({ length: 34 }, (_, i) => i);
    expect(sm.applyTokenBitmask(arr, mask)).toEqual(want(34));
    const buf = sm.buffer(34);
    buf.set(Array.from({ length: 34 }, (_, i) => i));
    sm.applyTokenBitmask(buf, mask);
    expect(Array.from(buf)).toEqual(want(34));
    const t = { data: Float32Array.from({ length: 68 }, (_, i) => i % 34), dims: [1, 2, 34] };
    sm.applyTokenBitmask(t, mask);
    expect(Array.from(t.data)).toEqual([...want(34), ...want(34)]);
    // A float16 tensor (half bits in a Uint16Array, as onnxruntime gives it): forbidden -> 0xFC00 (-Infinity).
    const halfBits = Uint16Array.from({ length: 68 }, (_, i) => 0x3c00 + (i % 34)); // 1.0 and up
    const h = { type: 'float16', data: halfBits, dims: [1, 2, 34] };
    expect(sm.applyTokenBitmask(h, mask)).toBe(h);
    const wantHalf = (i) => (((mask[(i % 34) >> 5] >>> ((i % 34) & 31)) & 1) ? 0x3c00 + (i % 34) : 0xfc00);
    expect(Array.from(halfBits)).toEqual(Array.from({ length: 68 }, (_, i) => wantHalf(i)));
    // ... and what the sampler reads from it is the masked scores.
    const probs = sm.createSampler({ seed: 1 }).probs({ type: 'float16', data: halfBits.slice(34), dims: [1, 1, 34] });
    for (let i = 0; i < 34; i++) expect(probs[i] > 0).toBe(((mask[i >> 5] >>> (i & 31)) & 1) === 1);
    const big = Float32Array.from({ length: 151936 }, (_, i) => i % 7);
    const m = new Uint32Array(4748).map((_, w) => (w % 3 === 0 ? 0 : w % 3 === 1 ? 0xffffffff : 0x5a5a5a5a));
    const ref = big.map((v, i) => (((m[i >> 5] >>> (i & 31)) & 1) ? v : -Infinity));
    expect(sm.applyTokenBitmask(big, m)).toEqual(ref);
    expect(() => sm.applyTokenBitmask(new Float32Array(40), new Uint32Array(1))).toThrow(/applyTokenBitmask: mask has 1 words/);
    expect(() => sm.applyTokenBitmask(new Float32Array(4), [1])).toThrow(TypeError);
    expect(() => sm.applyTokenBitmask('x', mask)).toThrow(TypeError);
  });

  test('verifyDraft: chi-square of the emitted tokens against p, acceptance rate against sum min(p, q), k = 1 and k = 4', () => {
    const n = 5;
    const logits = [1.2, 0.3, -0.4, 2.0, 0.9];
    const qRow = [0.05, 0.5, 0.25, 0.1, 0.1];
    for (const [k, opts] of [[1, {}], [4, {}], [1, { temperature: 0.7, topK: 3 }], [4, { temperature: 0.7, topK: 3 }]]) {
      // Position j: the rows rotated by j.
      const rot = (v, j) => v.map((_, i) => v[(i - j + n * 8) % n]);
      const target = new Float32Array((k + 1) * n);
      const q = new Float32Array(k * n);
      const p = [];
      for (let j = 0; j <= k; j++) {
        const row = rot(logits, j);
        target.set(row, j * n);
        let keep = row.map(() => true);
        if (opts.topK) {
          const sorted = [...row].sort((a, b) => b - a);
          keep = row.map((v) => v >= sorted[opts.topK - 1]);
        }
        p.push(softmax64(row.map((v, i) => (keep[i] ? v : -Infinity)), opts.temperature ?? 1));
        if (j < k) q.set(rot(qRow, j), j * n);
      }
      const s = sm.createSampler({ seed: 11 + k, ...opts });
      const r = rng(100 + k);
      const trials = 20000;
      const counts = Array.from({ length: k + 1 }, () => new Array(n).fill(0));
      const reached = new Array(k + 1).fill(0);
      const acc = new Array(k + 1).fill(0);
      for (let t = 0; t < trials; t++) {
        const draft = Array.from({ length: k }, (_, j) => {
          let u = r();
          let x = 0;
          while (x < n - 1 && u >= q[j * n + x]) u -= q[j * n + x++];
          return x;
        });
        const v = s.verifyDraft(draft, q, target);
        for (let j = 0; j <= v.accepted; j++) {
          counts[j][v.tokens[j]]++;
          reached[j]++;
          if (j < v.accepted) {
            acc[j]++;
            expect(v.tokens[j]).toBe(draft[j]);
          }
        }
      }
      for (let j = 0; j <= Math.min(k, 2); j++) {
        let chi2 = 0;
        let df = -1;
        for (let i = 0; i < n; i++) {
          if (p[j][i] === 0) {
            expect(counts[j][i]).toBe(0);
            continue;
          }
          const e = reached[j] * p[j][i];
          chi2 += (counts[j][i] - e) ** 2 / e;
          df++;
        }
        expect(chi2, `k=${k} ${JSON.stringify(opts)} position ${j}`).toBeLessThan(chi2Crit(df));
        if (j < k) {
          const alpha = p[j].reduce((a, pi, i) => a + Math.min(pi, q[j * n + i]), 0);
          const rate = acc[j] / reached[j];
          expect(Math.abs(rate - alpha), `acceptance k=${k} position ${j}: ${rate} vs ${alpha}`).toBeLessThan(3.891 * Math.sqrt((alpha * (1 - alpha)) / reached[j]));
        }
      }
      s.dispose();
    }
  });

  test('verifyDraft: the README example, T = 0, tensors, masks and the history', () => {
    const q = new Float32Array([0.1, 0.6, 0.2, 0.1]);
    const target = new Float32Array([0.4, 0.3, 0.2, 0.1, 0.25, 0.25, 0.25, 0.25].map(Math.log));
    const v = sm.createSampler({ seed: 4 });
    expect(v.verifyDraft([1], q, target)).toEqual({ accepted: 1, tokens: Int32Array.of(1, 2) });
    expect(v.verifyDraft([1], q, target)).toEqual({ accepted: 0, tokens: Int32Array.of(0) });
    // T = 0: accepted exactly when greedy (the rows' greedy tokens: 1, 2, 3, 0).
    const g = sm.createSampler({ seed: 1, temperature: 0 });
    const rows = new Float32Array([0, 5, 1, 0, 3, 1, 9, 0, 0, 0, 0, 1, 7, 0, 0, 0]);
    const oneHot = (tokens) => new Float32Array(tokens.flatMap((t) => [0, 1, 2, 3].map((i) => (i === t ? 1 : 0))));
    for (let i = 0; i < 10; i++) {
      expect(g.verifyDraft([1, 2, 0], oneHot([1, 2, 0]), rows)).toEqual({ accepted: 2, tokens: Int32Array.of(1, 2, 3) });
      expect(g.verifyDraft([1, 2, 3], oneHot([1, 2, 3]), rows)).toEqual({ accepted: 3, tokens: Int32Array.of(1, 2, 3, 0) });
      expect(g.verifyDraft([0, 2, 3], oneHot([0, 2, 3]), rows)).toEqual({ accepted: 0, tokens: Int32Array.of(1) });
    }
    // A [1, seq, vocab] tensor: its last k + 1 positions.
    const a = sm.createSampler({ seed: 8 });
    const b = sm.createSampler({ seed: 8 });
    const seq = new Float32Array(5 * 4).map((_, i) => Math.sin(i));
    expect(a.verifyDraft([2], q, { data: seq, dims: [1, 5, 4] })).toEqual(b.verifyDraft([2], q, seq.slice(12)));
    // Masks per position: a forbidden draft token is never accepted.
    for (let i = 0; i < 50; i++) {
      const r = a.verifyDraft([1], q, target, { mask: [new Uint32Array([0b1101]), new Uint32Array([0b1000])] });
      expect(r.accepted).toBe(0);
      expect(r.tokens[0]).not.toBe(1);
    }
    expect(a.verifyDraft([1], q, target, { mask: [new Uint32Array([0b10]), new Uint32Array([0b1000])] })).toEqual({ accepted: 1, tokens: Int32Array.of(1, 3) });
    // The history changes only through accept().
    const h = sm.createSampler({ seed: 2, repetitionPenalty: 3 });
    const before = h.probs(target.subarray(0, 4));
    const out = h.verifyDraft([1], q, target);
    expect(h.probs(target.subarray(0, 4))).toEqual(before);
    h.accept(out.tokens);
    expect(h.probs(target.subarray(0, 4))).not.toEqual(before);
    for (const s of [v, g, a, b, h]) s.dispose();
  });

  test('verifyDraft errors name the argument, draw nothing, and the sampler keeps working', () => {
    const q = new Float32Array([0.1, 0.6, 0.2, 0.1]);
    const target = new Float32Array(8);
    const s = sm.createSampler({ seed: 5 });
    const fresh = sm.createSampler({ seed: 5 });
    const fn = 'Sampler.verifyDraft';
    expect(() => s.verifyDraft([1], q, new Float32Array(7))).toThrow(new RangeError(`${fn}: targetLogits has 7 entries, not 2 rows (one per draft token and one more) of the vocabulary`));
    expect(() => s.verifyDraft([1], q.subarray(0, 3), target)).toThrow(
      new RangeError(`${fn}: draftProbs (3 entries) and targetLogits (8 entries) disagree: 1 draft tokens need 1 rows of draftProbs and 2 rows of targetLogits over one vocabulary (draftProbs gives 3 per row, targetLogits 4)`),
    );
    // A target with the wrong number of rows names it too (it used to blame draftProbs alone).
    expect(() => s.verifyDraft([1], q, new Float32Array(12))).toThrow(/draftProbs \(4 entries\) and targetLogits \(12 entries\) disagree: .*draftProbs gives 4 per row, targetLogits 6/);
    expect(() => s.verifyDraft([1, 2], q.subarray(0, 3), new Float32Array(12))).toThrow(/draftProbs has 3 entries; 2 draft tokens over a vocabulary of 4 need 8/);
    expect(() => s.verifyDraft([4], q, target)).toThrow(/draftTokens\[0\] = 4 is outside the vocabulary \(4 entries\)/);
    expect(() => s.verifyDraft([-1], q, target)).toThrow(/draftTokens\[0\]/);
    expect(() => s.verifyDraft('1', q, target)).toThrow(TypeError);
    expect(() => s.verifyDraft([1], 'q', target)).toThrow(TypeError);
    expect(() => s.verifyDraft([1], q, null)).toThrow(TypeError);
    expect(() => s.verifyDraft([1], new Float32Array([0.1, -0.1, 0.5, 0.5]), target)).toThrow(new RangeError(`${fn}: draftProbs[1] (draft 0, token 1) must be a probability in [0, 1], got -0.10000000149011612`));
    expect(() => s.verifyDraft([1], new Float32Array([0.1, NaN, 0.5, 0.4]), target)).toThrow(/draftProbs\[1\].*got NaN/);
    expect(() => s.verifyDraft([1], new Float32Array([1, 2, 3, 4]), target)).toThrow(/draftProbs\[1\]/);
    expect(() => s.verifyDraft([1], new Float32Array([0.5, 0.5, 0.5, 0.5]), target)).toThrow(/draftProbs row 0 does not sum to 1/);
    expect(() => s.verifyDraft([1], q, new Float32Array([0, NaN, 0, 0, 0, 0, 0, 0]))).toThrow(new RangeError(`${fn}: targetLogits row 0, entry 1 is NaN`));
    expect(() => s.verifyDraft([1], q, new Float32Array([-Infinity, -Infinity, -Infinity, -Infinity, 0, 0, 0, 0]))).toThrow(/every entry of targetLogits row 0 is -Infinity/);
    expect(() => s.verifyDraft([1], q, target, { mask: new Uint32Array(1) })).toThrow(/mask has 1 words; 2 rows of 4 tokens need 2 \(ceil\(4 \/ 32\) = 1 per row\)/);
    expect(() => s.verifyDraft([1], q, target, { mask: [1, 2] })).toThrow(TypeError);
    expect(() => s.verifyDraft([1], q, target, { mask: [~0, ~0] })).toThrow(/mask must be a Uint32Array or an Int32Array .*, or a list of them \(one per row\), got an array of numbers: pass new Uint32Array/);
    expect(() => s.verifyDraft([1], q, target, { mask: [new Uint32Array(1), new Uint32Array(1)] })).toThrow(/mask row 0 allows no token/);
    expect(() => s.verifyDraft([1], q, target, { mask: [new Uint32Array(1)] })).toThrow(/mask has 1 rows, expected 2/);
    expect(() => s.verifyDraft([1], q, { data: new Float32Array(8), dims: [2, 1, 4] })).toThrow(/2 batch rows/);
    expect(() => s.verifyDraft([1, 2], new Float32Array([...q, ...q]), { data: new Float32Array(8), dims: [1, 2, 4] })).toThrow(/2 positions .*2 draft tokens need 3/);
    expect(() => s.verifyDraft([], new Float32Array(0), new Float32Array(0))).toThrow(/targetLogits is empty/);
    s.reset(5);
    const x = new Float32Array([0.4, 0.3, 0.2, 0.1, 0.25, 0.25, 0.25, 0.25].map(Math.log));
    for (let i = 0; i < 10; i++) expect(s.verifyDraft([1], q, x)).toEqual(fresh.verifyDraft([1], q, x));
    s.dispose();
    fresh.dispose();
  });
});
