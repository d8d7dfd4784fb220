// softmax-wasm/transformers against transformers.js itself, run by
// tests/pack/run.mjs in a clean project that installed the packed tarball,
// @huggingface/transformers (4.x) and onnx-proto. Prints 'ok <name>' per check;
// exits non-zero at the first failure.
//
// References are independent of the code under test: the bigram table of
// make-model.mjs in double precision (argmax chains, top-k sets, softmax), and
// for the plumbing, the library's own Sampler given the same row and history
// (the adapter's contract is "row r draws what createSampler({ seed: seed + r })
// draws on that row's logits with that row's ids as history").
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { AutoModelForCausalLM, LogitsProcessorList, Tensor, env, pipeline } from '@huggingface/transformers';
import { load } from 'softmax-wasm';
import { createLogitsProcessor } from 'softmax-wasm/transformers';

import { check, done } from './check.mjs';
import { EOS, TABLE, WORDS, writeModel } from './make-model.mjs';

const V = WORDS.length;
const dir = fileURLToPath(new URL('./models/', import.meta.url));
writeModel(dir);
env.localModelPath = dir;
env.allowRemoteModels = false;

const sm = await load();

/** Entries kept by top-k over a row in double precision: the k largest, ties by lower index. */
const topKSet = (row, k) => row.map((v, i) => [v, i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, k).map(([, i]) => i);
const argmax = (row) => row.reduce((best, v, i) => (v > row[best] ? i : best), 0);
const oneHot = (row) => row.filter((v) => v === 0).length === 1 && row.filter((v) => v === -Infinity).length === row.length - 1;
const ids = (tensor) => tensor.tolist().map((r) => r.map(Number));

// ---- with transformers.js's Tensor and LogitsProcessorList, no model ----

await check('LogitsProcessorList: each row keeps one token, the one a Sampler seeded seed + r draws with the row as history', () => {
  // Six rows, eight steps, each step's token appended to its row as generate() does.
  const inputIds = [[0n], [1n], [2n], [3n], [4n], [5n]];
  const opts = { seed: 7, topK: 5, repetitionPenalty: 1.5 };
  const list = new LogitsProcessorList();
  const processor = createLogitsProcessor(sm, opts);
  list.push(processor);
  const reference = inputIds.map((row, r) => sm.createSampler({ ...opts, seed: 7 + r, history: row.map(Number) }));
  for (let step = 0; step < 8; step++) {
    const rows = inputIds.map((row) => TABLE[Number(row.at(-1))]);
    const logits = new Tensor('float32', Float32Array.from(rows.flat()), [rows.length, V]);
    const out = list(inputIds, logits);
    assert.equal(out, logits, 'processed in place, as transformers.js processors are');
    for (let r = 0; r < rows.length; r++) {
      const row = Array.from(out.data.subarray(r * V, (r + 1) * V));
      assert.ok(oneHot(row), `row ${r}: ${row}`);
      const token = row.indexOf(0);
      assert.ok(topKSet(rows[r], 5).includes(token), `row ${r}: token ${token} is not among the top 5`);
      assert.equal(token, reference[r].sample(Float32Array.from(rows[r])), `row ${r}, step ${step}`);
      reference[r].accept(token);
      inputIds[r].push(BigInt(token));
    }
  }
  for (const s of reference) s.dispose();
  processor.dispose();
});

await check('a [batch, seq, vocab] Tensor: the last position is the one sampled, the others are left alone', () => {
  const data = Float32Array.from([...TABLE[1], ...TABLE[4]]);
  const logits = new Tensor('float32', data.slice(), [1, 2, V]);
  createLogitsProcessor(sm, { seed: 1, temperature: 0 })([[1n, 4n]], logits);
  assert.deepEqual(Array.from(logits.data.subarray(0, V)), Array.from(data.subarray(0, V)));
  const last = Array.from(logits.data.subarray(V));
  assert.ok(oneHot(last) && last.indexOf(0) === argmax(TABLE[4]), String(last));
});

await check('bad use is a TypeError naming what is wrong', () => {
  assert.throws(() => createLogitsProcessor({}), { name: 'TypeError', message: /sm must be the object that load\(\) resolves to/ });
  assert.throws(() => createLogitsProcessor(sm, { history: [1] }), { name: 'TypeError', message: /'history'/ });
  assert.throws(() => createLogitsProcessor(sm, { top_p: 0.9 }), { name: 'TypeError', message: /top_p/ });
  const p = createLogitsProcessor(sm, { seed: 1 });
  assert.throws(() => p([[0n]], new Tensor('int64', new BigInt64Array(V), [1, V])), { name: 'TypeError', message: /logits\.data/ });
  assert.throws(() => p([[0n], [1n]], new Tensor('float32', new Float32Array(V), [1, V])), { name: 'TypeError', message: /input_ids must be an array of 1 rows/ });
  p.dispose();
  assert.throws(() => p([[0n]], new Tensor('float32', Float32Array.from(TABLE[0]), [1, V])), { name: 'TypeError', message: /after dispose/ });
});

// ---- inside generate(), with the tiny model ----

const model = await AutoModelForCausalLM.from_pretrained('tiny-bigram', { dtype: 'fp32' });
const prompt = (rows) => new Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), [rows.length, rows[0].length]);
const generate = (rows, n, processor) =>
  model.generate({ input_ids: prompt(rows), max_new_tokens: n, do_sample: false, logits_processor: [processor] }).then(ids);

await check('generate(): temperature 0 follows the argmax chain of the bigram table', async () => {
  const got = await generate([[0, 1], [4, 2]], 8, createLogitsProcessor(sm, { temperature: 0 }));
  for (const row of got) {
    for (let t = 2; t < row.length; t++) assert.equal(row[t], argmax(TABLE[row[t - 1]]), `after ${row[t - 1]}: ${row}`);
  }
});

await check('generate(): same seed, same text; a reused processor starts each new prompt from its seed; another seed differs', async () => {
  const opts = { seed: 42, temperature: 0.8, topP: 0.95 };
  const a = await generate([[0]], 30, createLogitsProcessor(sm, opts));
  const reused = createLogitsProcessor(sm, opts);
  const b = await generate([[0]], 30, reused);
  const c = await generate([[0]], 30, reused);
  const d = await generate([[0]], 30, createLogitsProcessor(sm, { ...opts, seed: 43 }));
  assert.deepEqual(b, a);
  assert.deepEqual(c, a);
  assert.notDeepEqual(d, a);
  // Row 0 of a generation is the plain sampler of that seed, step by step.
  const s = sm.createSampler(opts);
  const seq = [0];
  for (let t = 0; t < 30; t++) {
    s.accept(seq.at(-1));
    seq.push(s.sample(Float32Array.from(TABLE[seq.at(-1)])));
  }
  assert.deepEqual(a[0], seq);
});

await check('generate(): the draws follow softmax(T = 0.8) over the top 4 of each bigram row (chi-square, false-alarm rate 1e-3)', async () => {
  const T = 0.8;
  const K = 4;
  const rows = Array.from({ length: 14 }, (_, i) => [i % (V - 1)]);
  const got = await generate(rows, 100, createLogitsProcessor(sm, { seed: 2024, temperature: T, topK: K }));
  const counts = Array.from({ length: V }, () => new Array(V).fill(0));
  for (const row of got) for (let t = 1; t < row.length; t++) counts[row[t - 1]][row[t]]++;
  let chi2 = 0;
  let df = 0;
  for (let prev = 0; prev < V; prev++) {
    const n = counts[prev].reduce((a, b) => a + b, 0);
    if (n === 0) continue;
    const kept = topKSet(TABLE[prev], K);
    const w = kept.map((j) => Math.exp((TABLE[prev][j] - TABLE[prev][kept[0]]) / T));
    const sum = w.reduce((a, b) => a + b, 0);
    for (let j = 0; j < V; j++) {
      const k = kept.indexOf(j);
      if (k < 0) {
        assert.equal(counts[prev][j], 0, `token ${j} after ${prev} is outside the top ${K}`);
        continue;
      }
      const expected = (n * w[k]) / sum;
      chi2 += (counts[prev][j] - expected) ** 2 / expected;
    }
    df += K - 1;
  }
  // Upper 1e-3 quantile of chi-square(df), Wilson-Hilferty (z = 3.0902): 46.8 for df = 21.
  const q = df * (1 - 2 / (9 * df) + 3.0902 * Math.sqrt(2 / (9 * df))) ** 3;
  assert.ok(df >= 18, `df ${df}`);
  assert.ok(chi2 < q, `chi-square ${chi2.toFixed(1)} >= ${q.toFixed(1)} (df ${df})`);
});

await check('generate(): the history is the prompt and the drawn tokens (noRepeatNgramSize 1 never repeats a token of either)', async () => {
  const got = await generate([[0], [3]], V - 2, createLogitsProcessor(sm, { seed: 5, noRepeatNgramSize: 1 }));
  for (const row of got) {
    assert.equal(new Set(row).size, row.length, `a token repeats: ${row}`);
    assert.ok(!row.includes(EOS), String(row));
  }
});

await check("pipeline('text-generation') passes the processor through: the text of the same seed", async () => {
  const generator = await pipeline('text-generation', 'tiny-bigram', { dtype: 'fp32' });
  const opts = { seed: 9, temperature: 1.2, minP: 0.05 };
  const [{ generated_text: text }] = await generator('the cat', { max_new_tokens: 12, do_sample: false, logits_processor: [createLogitsProcessor(sm, opts)] });
  const [row] = await generate([[0, 1]], 12, createLogitsProcessor(sm, opts));
  assert.equal(text, row.map((i) => WORDS[i]).join(' '));
});

done();
