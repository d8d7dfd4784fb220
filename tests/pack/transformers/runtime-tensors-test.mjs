// The model runtimes' own tensors and token ids, handed straight to the
// packed softmax-wasm: onnxruntime's Tensor (the class onnxruntime-web and
// onnxruntime-node export, from onnxruntime-common) in float32 and float16,
// transformers.js's Tensor, and BigInt64Array token ids. References in double
// precision, half floats decoded here bit by bit. Prints 'ok <name>' per check.
import assert from 'node:assert/strict';

import { Tensor as HfTensor } from '@huggingface/transformers';
import { Tensor as OrtTensor } from 'onnxruntime-common';
import { load } from 'softmax-wasm';

import { check, done } from './check.mjs';

const sm = await load();

/** IEEE 754 half (binary16) bits to a number. */
function halfToNumber(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}
const softmax64 = (row) => {
  const m = Math.max(...row);
  const e = row.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
};
const closeTo = (got, want, what) =>
  want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= 1e-6 * Math.max(w, 1e-30) + 1e-12, `${what}[${i}]: ${got[i]} vs ${w}`));
const argmax = (row) => row.reduce((best, v, i) => (v > row[best] ? i : best), 0);

// Logits of a [1, 3, 6] tensor: three positions, six tokens.
const rows = [[0.5, -1, 2, 0, 1.25, -3], [1, 2, 3, 4, 5, 6], [-2, 3.5, 0.25, 3.25, -1, 0]];
const flat = Float32Array.from(rows.flat());

await check('onnxruntime float32 Tensor [1, 3, 6]: softmax per position; a sampler reads the last position', () => {
  const t = new OrtTensor('float32', flat.slice(), [1, 3, 6]);
  const p = sm.softmax(t);
  rows.forEach((row, r) => closeTo(p.subarray(r * 6, (r + 1) * 6), softmax64(row.map(Math.fround)), `position ${r}`));
  const s = sm.createSampler({ seed: 1, temperature: 0 });
  assert.equal(s.sample(t), argmax(rows[2]));
  closeTo(s.probs(t), rows[2].map((_, i) => (i === argmax(rows[2]) ? 1 : 0)), 'greedy probs');
  s.dispose();
});

await check('onnxruntime float16 Tensor (half bits in a Uint16Array): the decoded values, softmaxed and sampled', () => {
  // 2, 1, 0, -0.333 (not exact in half), 65504 (the largest half), -inf
  const bits = new Uint16Array([0x4000, 0x3c00, 0x0000, 0xb555, 0x7bff, 0xfc00]);
  const t = new OrtTensor('float16', bits, [1, 1, 6]);
  assert.equal(t.type, 'float16');
  const values = Array.from(bits, halfToNumber);
  closeTo(sm.softmax(t), softmax64(values), 'float16 softmax');
  assert.equal(sm.createSampler({ seed: 2, temperature: 0 }).sample(t), 4);
  const small = new OrtTensor('float16', new Uint16Array([0x4000, 0x3c00, 0x0000]), [3]);
  closeTo(sm.softmax(small), softmax64([2, 1, 0]), 'float16 [2, 1, 0]');
});

await check("transformers.js's Tensor, float32 and float16: the same as its data", () => {
  const t = new HfTensor('float32', flat.slice(), [1, 3, 6]);
  closeTo(sm.softmax(t), Array.from(sm.softmax(flat, { shape: [1, 3, 6] })), 'hf float32');
  const h = new HfTensor('float16', new Uint16Array([0x4000, 0x3c00, 0x0000]), [1, 3]);
  closeTo(sm.softmax(h), softmax64([2, 1, 0]), 'hf float16');
});

await check('BigInt64Array token ids (an input_ids tensor) in history and accept(): the penalties see the same tokens as numbers', () => {
  const ids = new OrtTensor('int64', BigInt64Array.from([2n, 3n, 3n, 5n]), [1, 4]);
  const opts = { seed: 3, repetitionPenalty: 1.8, frequencyPenalty: 0.4 };
  const a = sm.createSampler({ ...opts, history: ids.data });
  const b = sm.createSampler({ ...opts, history: [2, 3, 3, 5] });
  a.accept(BigInt64Array.from([1n]));
  a.accept(4n);
  b.accept([1, 4]);
  const scores = Float32Array.from(rows[1]);
  assert.deepEqual(Array.from(a.probs(scores)), Array.from(b.probs(scores)));
  // and the penalties act: token 5 (the largest score, in the history) loses mass against no history
  const c = sm.createSampler({ ...opts });
  assert.ok(a.probs(scores)[5] < c.probs(scores)[5]);
  for (const s of [a, b, c]) s.dispose();
});

done();
