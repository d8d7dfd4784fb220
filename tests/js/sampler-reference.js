// An independent reference of the sampler's final distribution: double
// precision, Math.exp / Math.log, a full sort at every step. Written from the
// definitions (HF transformers' warpers, llama.cpp's samplers), sharing no
// code with web/src or cpp/. Not a test file (no .test.js suffix).

const SLACK = 1e-6; // "reaches p" tolerance, as kMassSlack in cpp/include/smx/sampler.h
const PRESETS = {
  hf: ['temperature', 'topK', 'topP', 'minP', 'typicalP'],
  'llama.cpp': ['topK', 'typicalP', 'topP', 'minP', 'temperature'],
};

/**
 * probs over the vocabulary, and `ambiguous` when a cut lies within float32
 * rounding of its threshold (the comparison may then go either way).
 */
export function refSamplerProbs(scores, opts = {}) {
  const o = {
    temperature: 1, topK: 0, topP: 1, minP: 0, typicalP: 1, minKeep: 1,
    repetitionPenalty: 1, frequencyPenalty: 0, presencePenalty: 0, penaltyLastN: 64, history: [], logitBias: {},
    ...opts,
  };
  const order = typeof o.order === 'string' || o.order === undefined ? PRESETS[o.order ?? 'hf'] : o.order;
  const n = scores.length;
  const l = Array.from(scores, Number);
  for (const [k, b] of Object.entries(o.logitBias)) l[Number(k)] = b === -Infinity ? -Infinity : l[Number(k)] + b;
  if (o.penaltyLastN !== 0) {
    const w = o.penaltyLastN < 0 ? o.history : o.history.slice(-o.penaltyLastN);
    const count = new Map();
    for (const t of w) count.set(t, (count.get(t) ?? 0) + 1);
    for (const [t, c] of count) {
      l[t] = l[t] > 0 ? l[t] / o.repetitionPenalty : l[t] * o.repetitionPenalty;
      l[t] -= c * o.frequencyPenalty + o.presencePenalty;
    }
  }
  let cand = [];
  for (let i = 0; i < n; i++) if (l[i] !== -Infinity) cand.push(i);
  let t = 1;
  let ambiguous = false;
  const probs = (c) => {
    const inf = c.filter((i) => l[i] === Infinity).length;
    const m = Math.max(...c.map((i) => l[i]));
    const e = c.map((i) => (inf ? (l[i] === Infinity ? 1 : 0) : Math.exp((l[i] - m) / t)));
    const s = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / s);
  };
  const byLogit = (c) => [...c].sort((a, b) => l[b] - l[a] || a - b);
  const prefix = (sorted, k) => sorted.slice(0, Math.max(k, Math.min(o.minKeep, sorted.length))).sort((a, b) => a - b);
  const massPrefix = (ps, p) => {
    let cum = 0;
    let k = ps.length;
    ps.forEach((v, j) => {
      cum += v;
      if (Math.abs(cum - (p - SLACK)) < 2e-5) ambiguous = true;
      if (cum >= p - SLACK && k === ps.length) k = j + 1;
    });
    return k;
  };
  for (const step of order) {
    if (step === 'temperature') {
      if (o.temperature === 0) cand = [byLogit(cand)[0]];
      else if (o.temperature === Infinity) for (const i of cand) l[i] = 0;
      else t = o.temperature;
    } else if (step === 'topK' && o.topK > 0) {
      cand = prefix(byLogit(cand), o.topK);
    } else if (step === 'topP' && o.topP < 1 && cand.length > 1) {
      const sorted = byLogit(cand);
      cand = prefix(sorted, massPrefix(probs(sorted), o.topP));
    } else if (step === 'minP' && o.minP > 0 && cand.length > 1) {
      const ps = probs(cand);
      const pmax = Math.max(...ps);
      const kept = cand.filter((_, j) => {
        if (Math.abs(ps[j] / pmax - o.minP) < 2e-5) ambiguous = true;
        return ps[j] >= o.minP * pmax * (1 - SLACK);
      });
      cand = kept.length >= Math.min(o.minKeep, cand.length) ? kept : prefix(byLogit(cand), o.minKeep);
    } else if (step === 'typicalP' && o.typicalP < 1 && cand.length > 1) {
      const ps = probs(cand);
      // -log p from the logits (log-softmax), so that a p that underflows to 0
      // still has a finite key; with +Infinity entries, from p itself.
      const inf = cand.some((i) => l[i] === Infinity);
      const m = Math.max(...cand.map((i) => l[i]));
      const ls = Math.log(cand.reduce((a, i) => a + Math.exp((l[i] - m) / t), 0));
      const nlp = cand.map((i, j) => (inf ? -Math.log(ps[j]) : ls - (l[i] - m) / t));
      const h = ps.reduce((a, p, j) => (p > 0 ? a + p * nlp[j] : a), 0);
      const key = new Map(cand.map((i, j) => [i, Math.abs(nlp[j] - h)]));
      const pm = new Map(cand.map((i, j) => [i, ps[j]]));
      const sorted = [...cand].sort((a, b) => key.get(a) - key.get(b) || a - b);
      const k = massPrefix(sorted.map((i) => pm.get(i)), o.typicalP);
      if (k < sorted.length && l[sorted[k - 1]] !== l[sorted[k]] && Math.abs(key.get(sorted[k - 1]) - key.get(sorted[k])) < 1e-4) {
        ambiguous = true;
      }
      // minKeep keeps the first of the typical order, as HF does.
      cand = prefix(sorted, k);
    }
  }
  const out = new Float64Array(n);
  const ps = probs(cand);
  cand.forEach((i, j) => {
    out[i] = ps[j];
  });
  return { probs: out, ambiguous };
}

/** Deterministic test data: mulberry32 uniform in [0, 1). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let z = a;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}
