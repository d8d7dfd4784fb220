// What the Node benchmark (softmax.bench.mjs) and the browser page
// (browser/page.mjs) share: the seeded inputs, the sampler configurations and
// the timing loop. No Node or DOM APIs: it runs in both.

/** Seeded normal(mean 0, sd) float32 scores: xorshift32-based uniforms, Box-Muller. */
export function normalScores(n, seed, sd = 3) {
  let s = seed >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s + 0.5) / 4294967296;
  };
  const x = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const a = 2 * Math.PI * uniform();
    x[i] = sd * r * Math.cos(a);
    if (i + 1 < n) x[i + 1] = sd * r * Math.sin(a);
  }
  return x;
}

export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const median = (a) => {
  const s = [...a].sort((p, q) => p - q);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * The timing loop. Per cell: a warm-up (warmMs, at least 3 calls), then
 * `samples` samples, each timing enough calls to last about sampleMs; a
 * round's figure is its median sample. timeInterleaved() runs `rounds` rounds
 * over a set of entries, in an order rotated by the round, and keeps each
 * entry's best round (the machine is shared: the best round is the one least
 * disturbed).
 */
export function makeTimer({ rounds = 3, samples = 15, sampleMs = 2, warmMs = 40, now = () => performance.now() } = {}) {
  let sink = 0;
  const consume = (r) => {
    sink += typeof r === 'number' ? r : r && r.length ? 1 : 0;
  };

  /** Median µs per call of one round; fn is sync or async (then awaited per call). */
  async function measure(fn, isAsync) {
    const call = isAsync ? async () => consume(await fn()) : () => consume(fn());
    let t = now();
    let calls = 0;
    do {
      await call();
      calls++;
    } while (now() - t < warmMs || calls < 3);
    const perCall = (now() - t) / calls;
    let reps = Math.max(1, Math.min(1e7, Math.ceil(sampleMs / perCall)));
    // A call that got much faster during the warm-up (JIT tiers) makes the
    // estimate too high and a sample too short for a coarse timer (20 µs in
    // Firefox): grow reps until a sample lasts at least half of sampleMs.
    for (;;) {
      t = now();
      if (isAsync) for (let r = 0; r < reps; r++) consume(await fn());
      else for (let r = 0; r < reps; r++) consume(fn());
      if (now() - t >= sampleMs / 2 || reps >= 1e7) break;
      reps = Math.min(1e7, reps * 4);
    }
    const times = [];
    for (let s = 0; s < samples; s++) {
      t = now();
      if (isAsync) for (let r = 0; r < reps; r++) consume(await fn());
      else for (let r = 0; r < reps; r++) consume(fn());
      times.push(((now() - t) * 1000) / reps);
    }
    return median(times);
  }

  /** entries: [{ name, run, async }]; resolves to Map name -> best-of-rounds µs per call. */
  async function timeInterleaved(entries) {
    const best = new Map(entries.map((e) => [e.name, Infinity]));
    for (let r = 0; r < rounds; r++) {
      for (let j = 0; j < entries.length; j++) {
        const e = entries[(j + r) % entries.length];
        best.set(e.name, Math.min(best.get(e.name), await measure(e.run, e.async)));
      }
    }
    return best;
  }

  return { measure, timeInterleaved, rounds, sink: () => sink };
}

/** µs with 3 significant digits or so; '–' for a missing figure. */
export const fmtUs = (v) =>
  v === undefined || !Number.isFinite(v) ? '–' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3);
export const fmtRatio = (v) => (v === undefined || !Number.isFinite(v) ? '–' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

/** The softmax sizes of the report: rows × n. */
export const SOFTMAX_SIZES = [
  { label: '3', rows: 1, n: 3 },
  { label: '1000', rows: 1, n: 1000 },
  { label: '32000', rows: 1, n: 32000 },
  { label: '128256', rows: 1, n: 128256 },
  { label: '151936', rows: 1, n: 151936 },
  { label: '262144', rows: 1, n: 262144 },
  { label: '64×1024', rows: 64, n: 1024 },
];

// The sampler configurations of the speed table (BENCHMARKS.md, "Sampling one
// token: every configuration"), as bench/sampler_bench.cpp times them natively.
const HISTORY_64 = Array.from({ length: 64 }, (_, i) => (i * 7919 + (i % 3) * 13) % 1000);
const HISTORY_256 = Array.from({ length: 256 }, (_, i) => (i * 7919 + (i % 3) * 13) % 1000);
const PENALTIES = { repetitionPenalty: 1.1, frequencyPenalty: 0.1, presencePenalty: 0.1 };
export const SAMPLER_N = 151936;
export const SAMPLER_CONFIGS = [
  ['no filters (T = 1)', {}],
  ['topP 0.9', { topP: 0.9 }],
  ['minP 0.05', { minP: 0.05 }],
  ['typicalP 0.9', { typicalP: 0.9 }],
  ['topNSigma 1', { topNSigma: 1 }],
  ['epsilonCutoff 3e-4', { epsilonCutoff: 3e-4 }],
  ['etaCutoff 3e-4', { etaCutoff: 3e-4 }],
  ['mirostat 2', { mirostat: 2 }],
  ['dynatempRange 0.5', { dynatempRange: 0.5 }],
  ['XTC 0.5 / 0.1', { xtcProbability: 0.5, xtcThreshold: 0.1 }],
  ['penalties (rep 1.1, freq 0.1, pres 0.1, 64-token history) + topK 40', { ...PENALTIES, topK: 40, history: HISTORY_64 }],
  ['T 0.7, topP 0.9, minP 0.05', { temperature: 0.7, topP: 0.9, minP: 0.05 }],
  [
    'every step on, llama.cpp order',
    {
      temperature: 0.8, topK: 40, topP: 0.95, minP: 0.02, typicalP: 0.97, topNSigma: 3, xtcProbability: 0.5, xtcThreshold: 0.1,
      mirostat: 2, mirostatTau: 5, dynatempRange: 0.3, epsilonCutoff: 1e-4, etaCutoff: 1e-4, dryMultiplier: 0.8,
      noRepeatNgramSize: 3, ...PENALTIES, history: HISTORY_256, order: 'llama.cpp',
    },
  ],
  ['T 0.8, topK 40, topP 0.95', { temperature: 0.8, topK: 40, topP: 0.95 }],
  ['greedy (T = 0)', { temperature: 0 }],
];
