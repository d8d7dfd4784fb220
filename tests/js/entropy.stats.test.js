// The entropy steps of the sampler (typicalP, dynatempRange / dynatempExponent,
// etaCutoff) as a user sees them, in both wasm builds, against a float64
// reference written here from their definitions: HF TypicalLogitsWarper (the
// shortest prefix of the order by |-log p - H| whose mass reaches typicalP,
// the first minKeep of that order kept), llama.cpp temp_ext
// (T' = lo + (hi - lo) (H / log m)^exponent, H at T = 1 over the m
// candidates) and HF EtaLogitsWarper (p < min(eta, sqrt(eta) exp(-H)) goes,
// the minKeep most likely stay). The reference computes log-softmax and
// H = -sum p log p directly; it shares no code with web/src or cpp/.
//
// - Kept sets: probs(x) > 0 exactly on the reference's kept set, for random
//   inputs from n = 2 to 151,936. Where the reference is within rounding of a
//   tie at the cut (two keys of different logits within tolKey, or a prefix
//   mass within [p - 2e-6, p + 1e-6]), the answer may differ from the
//   reference's, but it must still be a valid one: a prefix of the order up to
//   such ties, whose mass reaches p and that is the shortest such prefix.
//   A kept set that differs from the reference's where there is no near tie
//   fails. The near ties are counted (SMX_STATS_VERBOSE=1 prints the counts).
//   A test of its own checks that the checkers reject the neighbouring
//   answers (one entry fewer, one more, the last swapped for the next).
// - minKeep past typical's mass cut (and typicalP <= 1e-6, where the empty
//   prefix reaches it): HF and llama.cpp keep the first entries of the typical
//   order, not the most likely ones; those runs are checked in a test of
//   their own.
// - Probabilities: the nonzero ones within 1e-5 relative of the reference's
//   final distribution (over the kept set); dynatemp's T' implied by two
//   probabilities within 1e-6 relative of the reference's T', also at low
//   entropy (one dominant score), where an exponent below 1 magnifies any
//   absolute error of H.
// - Chi-square of sampleMany draws against the reference distribution: fixed
//   seeds, bins with fewer than 5 expected pooled, each check at false-alarm
//   rate 1e-4 (Wilson-Hilferty quantile), 8 checks per build.
// - Adversarial inputs: -Infinity and +Infinity entries, all-equal scores, a
//   dominant score, spreads of 1e30 and 6e38, n = 1 and 2, typicalP just above
//   0, dynatemp at temperature 0 and 1e-40, the mask option, nested calls.
//   Nothing crashes, hangs or returns NaN, and the module answers a normal
//   call afterwards.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { BUILDS } from './helpers.js';
import { rng } from './sampler-reference.js';

const VERBOSE = !!process.env.SMX_STATS_VERBOSE;
const VOCAB = 151936;

// ---------------------------------------------------------------------------
// Float64 reference.

/** "Reaches p": a prefix mass >= p - 2e-6 counts (the README allows 1e-6 of
 * slack, plus 1e-6 for the float32 probabilities the mass is summed from); a
 * prefix whose mass is >= p + 1e-6 has certainly reached it. */
const MASS_LO = 2e-6;
const MASS_HI = 1e-6;

/** Log-softmax statistics of candidate values s (finite): p, -log p, H, the
 * mean mu = sum p s, the standard deviation and the maximum. */
function stats(s) {
  let max = -Infinity;
  for (const v of s) if (v > max) max = v;
  let sum = 0;
  for (const v of s) sum += Math.exp(v - max);
  const lse = max + Math.log(sum);
  const p = new Float64Array(s.length);
  const nlp = new Float64Array(s.length);
  let h = 0;
  let mu = 0;
  for (let j = 0; j < s.length; j++) {
    nlp[j] = lse - s[j];
    p[j] = Math.exp(-nlp[j]);
    if (p[j] > 0) h += p[j] * nlp[j];
    mu += p[j] * s[j];
  }
  let v2 = 0;
  for (let j = 0; j < s.length; j++) v2 += p[j] * (s[j] - mu) ** 2;
  return { p, nlp, h, mu, sd: Math.sqrt(v2), max };
}

/** Positions 0..m-1 sorted by key ascending, ties by lower index. */
function orderBy(key, idx) {
  const o = Array.from({ length: key.length }, (_, j) => j);
  o.sort((a, b) => key[a] - key[b] || idx[a] - idx[b]);
  return o;
}

/**
 * Typical sampling over candidates idx (increasing indices) with values s:
 * the kept indices (increasing), and the analysis the checker needs.
 */
function typicalRef(idx, s, P, minKeep) {
  const m = idx.length;
  const st = stats(s);
  const key = new Float64Array(m);
  for (let j = 0; j < m; j++) key[j] = Math.abs(st.nlp[j] - st.h);
  const ord = orderBy(key, idx);
  const floor = Math.min(minKeep, m);
  let k = P - 1e-6 <= 0 ? 0 : m; // the empty prefix reaches a typicalP <= 1e-6
  let cum = 0;
  const cums = new Float64Array(m);
  for (let r = 0; r < m; r++) {
    cum += st.p[ord[r]];
    cums[r] = cum;
    if (k === m && cum >= P - 1e-6) k = r + 1;
  }
  const keep = Math.max(k, floor);
  const kept = ord.slice(0, keep).map((j) => idx[j]).sort((a, b) => a - b);
  const kc = key[ord[keep - 1]];
  const tolKey = 1e-6 * (2 * kc + st.sd + Math.abs(st.max - st.mu));
  // Near ties at the cut: a mass within the window (the last prefix that does
  // not reach p, or the first that does), or a key within tolKey of the cut's
  // on the other side, of another value.
  let massTie = false;
  if (keep === k && keep > floor) {
    for (const r of [k - 2, k - 1]) if (r >= 0 && cums[r] >= P - MASS_LO && cums[r] < P + MASS_HI) massTie = true;
  }
  let keyTie = false;
  if (keep < m) {
    const sIn = new Set();
    for (let r = keep - 1; r >= 0 && key[ord[r]] >= kc - tolKey; r--) sIn.add(s[ord[r]]);
    for (let r = keep; r < m && key[ord[r]] <= kc + tolKey; r++) {
      if (sIn.size > 1 || !sIn.has(s[ord[r]])) keyTie = true;
    }
  }
  return { kept, st, key, ord, tolKey, massTie, keyTie, ambiguous: massTie || keyTie, floorBinds: k < floor };
}

/**
 * Whether inK (a Uint8Array over positions 0..m-1 of the candidates) is a
 * valid typical set: a prefix of the order up to ties within tolKey (equal
 * values in index order), reaching P, the shortest such prefix unless minKeep
 * holds it. Returns null or what is wrong.
 */
function typicalSetError(ref, idx, s, P, minKeep, inK) {
  const { st, key, tolKey } = ref;
  const m = idx.length;
  let size = 0;
  let mass = 0;
  let kMax = -Infinity;
  let outMin = Infinity;
  let outMinAt = -1;
  let kMaxAt = -1;
  const firstOut = new Map(); // value -> lowest excluded index of that value
  for (let j = 0; j < m; j++) {
    if (inK[j]) {
      size++;
      mass += st.p[j];
      if (key[j] > kMax) [kMax, kMaxAt] = [key[j], idx[j]];
    } else {
      if (key[j] < outMin) [outMin, outMinAt] = [key[j], idx[j]];
      if (!firstOut.has(s[j])) firstOut.set(s[j], idx[j]);
    }
  }
  if (size < Math.min(minKeep, m)) return `keeps ${size} < minKeep ${minKeep}`;
  if (outMin < kMax - tolKey) return `index ${outMinAt} (key ${outMin}) is dropped, index ${kMaxAt} (key ${kMax}) kept`;
  const lastOfValue = new Map();
  for (let j = 0; j < m; j++) {
    if (!inK[j]) continue;
    const f = firstOut.get(s[j]);
    if (f !== undefined && f < idx[j]) return `equal scores: index ${idx[j]} kept, lower index ${f} dropped`;
    lastOfValue.set(s[j], j);
  }
  if (mass < P - MASS_LO) return `mass ${mass} does not reach ${P}`;
  if (size > Math.min(minKeep, m)) {
    let shortest = false;
    for (const j of lastOfValue.values()) if (key[j] >= kMax - tolKey && mass - st.p[j] < P + MASS_HI) shortest = true;
    if (!shortest) return `not the shortest prefix: mass ${mass} with ${size} kept, target ${P}`;
  }
  return null;
}

/** Eta cutoff over candidates: the kept indices, and the allowed sizes. */
function etaRef(idx, s, eta, minKeep) {
  const m = idx.length;
  const st = stats(s);
  const thr = Math.min(eta, Math.sqrt(eta) * Math.exp(-st.h));
  const ord = orderBy(Float64Array.from(s, (v) => -v), idx);
  const rel = 2e-6 + Math.abs(Math.log(thr)) * 2 ** -22;
  let count = 0;
  let lo = 0;
  let hi = 0;
  for (let j = 0; j < m; j++) {
    if (st.p[j] >= thr) count++;
    if (st.p[j] >= thr * (1 + rel)) lo++;
    if (st.p[j] >= thr * (1 - rel)) hi++;
  }
  const floor = Math.min(minKeep, m);
  const keep = Math.max(count, floor);
  const kept = ord.slice(0, keep).map((j) => idx[j]).sort((a, b) => a - b);
  return { kept, st, ord, thr, sizes: [Math.max(lo, floor), Math.max(hi, floor)], ambiguous: Math.max(lo, floor) !== Math.max(hi, floor) };
}

function etaSetError(ref, idx, inK) {
  const { ord, sizes } = ref;
  let size = 0;
  for (let r = 0; r < ord.length; r++) {
    if (inK[ord[r]]) {
      if (r !== size) return `not a prefix of the order by score: index ${idx[ord[r]]} kept, index ${idx[ord[size]]} dropped`;
      size++;
    }
  }
  if (size < sizes[0] || size > sizes[1]) return `keeps ${size}, expected ${sizes[0] === sizes[1] ? sizes[0] : `${sizes[0]}..${sizes[1]}`}`;
  return null;
}

/** Dynatemp's T' from the candidates' raw scores. */
function dynatempT(xs, t, range, exponent) {
  const m = xs.length;
  const lo = Math.max(0, t - range);
  const hi = t + range;
  if (m <= 1) return hi;
  const { h } = stats(xs);
  return lo + (hi - lo) * (h / Math.log(m)) ** exponent;
}

/** The options of a reference run, the temperature rounded to float32 as the README says. */
function normalise(o) {
  return {
    temperature: Math.fround(o.temperature ?? 1),
    typicalP: o.typicalP ?? 1,
    etaCutoff: o.etaCutoff ?? 0,
    dynatempRange: o.dynatempRange ?? 0,
    dynatempExponent: o.dynatempExponent ?? 1,
    minKeep: o.minKeep ?? 1,
    order: o.order === 'llama.cpp' ? ['typicalP', 'etaCutoff', 'temperature', 'dynatemp'] : ['temperature', 'dynatemp', 'typicalP', 'etaCutoff'],
  };
}

const firstMax = (idx, x) => idx.reduce((b, i) => (x[i] > x[b] ? i : b), idx[0]);

/**
 * The whole chain (temperature, dynatemp, typicalP, etaCutoff in the hf or
 * llama.cpp order) on scores x (finite or -Infinity): the final distribution,
 * the kept indices, T', and whether a cut was within rounding of a tie.
 */
function refChain(x, opts) {
  const o = normalise(opts);
  let cand = [];
  for (let i = 0; i < x.length; i++) if (x[i] !== -Infinity) cand.push(i);
  let scale = 1;
  let flat = false;
  let tPrime;
  let ambiguous = false;
  let floorBinds = false;
  const values = () => Float64Array.from(cand, (i) => (flat ? 0 : x[i] / scale));
  for (const step of o.order) {
    if (step === 'temperature' && o.dynatempRange === 0) {
      if (o.temperature === 0) cand = [firstMax(cand, x)];
      else if (o.temperature === Infinity) flat = true;
      else scale = o.temperature;
    } else if (step === 'dynatemp' && o.dynatempRange > 0) {
      tPrime = dynatempT(Float64Array.from(cand, (i) => x[i]), o.temperature, o.dynatempRange, o.dynatempExponent);
      if (tPrime === 0) cand = [firstMax(cand, x)];
      else scale = tPrime;
    } else if (step === 'typicalP' && o.typicalP < 1 && cand.length > 1) {
      const r = typicalRef(cand, values(), o.typicalP, o.minKeep);
      ambiguous ||= r.ambiguous;
      floorBinds ||= r.floorBinds;
      cand = r.kept;
    } else if (step === 'etaCutoff' && o.etaCutoff > 0 && cand.length > 1) {
      const r = etaRef(cand, values(), o.etaCutoff, o.minKeep);
      ambiguous ||= r.ambiguous;
      cand = r.kept;
    }
  }
  const probs = finalProbs(x.length, cand, values());
  return { probs, kept: cand, tPrime, ambiguous, floorBinds };
}

/** softmax of the values s of the kept indices, as a vocabulary-long array. */
function finalProbs(n, kept, s) {
  const out = new Float64Array(n);
  let max = -Infinity;
  for (const v of s) if (v > max) max = v;
  let sum = 0;
  for (const v of s) sum += Math.exp(v - max);
  kept.forEach((i, j) => {
    out[i] = Math.exp(s[j] - max) / sum;
  });
  return out;
}

// ---------------------------------------------------------------------------
// Inputs and checks.

function normal(r) {
  const u = 1 - r();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
}

/** n float32 scores normal(offset, spread), rounded to integers if asked, a fraction masked. */
function logits(r, n, { spread = 3, offset = 0, integer = false, masked = 0 } = {}) {
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const v = offset + spread * normal(r);
    x[i] = integer ? Math.round(v) : v;
    if (masked && r() < masked) x[i] = -Infinity;
  }
  if (x.every((v) => v === -Infinity)) x[0] = offset;
  return x;
}

const pick = (r, list) => list[Math.floor(r() * list.length)];
const support = (p) => [...p.keys()].filter((i) => p[i] > 0);

/** Final probabilities within 1e-5 relative (below 1e-30: plus 1e-36 absolute, as exps under FLT_MIN flush). */
const probTol = (r) => 1e-5 * r + (r >= 1e-30 || r === 0 ? 0 : 1e-36);

/** The same at a computed temperature T': an error of 1e-7 relative in T' moves p by |log p| * 1e-7 relative. */
const probTolT = (r) => (r > 0 ? (1e-5 + Math.abs(Math.log(r)) * 1e-7) * r : 0) + (r >= 1e-30 || r === 0 ? 0 : 1e-36);

/** The first probability out of tolerance, or null; a NaN anywhere is one. */
function probError(got, ref, tol = probTol) {
  for (let i = 0; i < ref.length; i++) {
    if (!(Math.abs(got[i] - ref[i]) <= tol(ref[i]))) return `p[${i}] = ${got[i]}, expected ${ref[i]}`;
  }
  return null;
}

/**
 * Kept entries the output cannot show: a final probability under 1e-36, or an
 * exp flushed to 0 relative to the maximum of all candidates (x - max < -87.3
 * at the temperature). The kept set seen is probs > 0 plus these, where the
 * reference keeps them.
 */
function hiddenKept(x, refKept, scaleValue, keptObserved) {
  let maxAll = -Infinity;
  let maxK = -Infinity;
  for (const v of x) if (v > maxAll) maxAll = v;
  for (const i of keptObserved) maxK = Math.max(maxK, x[i]);
  return refKept.filter((i) => (x[i] - maxAll) / scaleValue < -86 || (x[i] - maxK) / scaleValue < -80);
}

// Chi-square at false-alarm rate 1e-4: Wilson-Hilferty with z = 3.719.
function chi2Crit(df) {
  const a = 2 / (9 * df);
  return df * (1 - a + 3.719 * Math.sqrt(a)) ** 3;
}

/** Chi-square of counts against expected counts, bins under 5 expected pooled (smallest first). */
function chiSquare(counts, expected) {
  const ord = expected.map((_, j) => j).sort((a, b) => expected[a] - expected[b]);
  const bins = [];
  let e = 0;
  let c = 0;
  for (const j of ord) {
    e += expected[j];
    c += counts[j];
    if (e >= 5) {
      bins.push([c, e]);
      e = 0;
      c = 0;
    }
  }
  if (e > 0) {
    if (bins.length) {
      bins[0][0] += c;
      bins[0][1] += e;
    } else bins.push([c, e]);
  }
  let stat = 0;
  for (const [cc, ee] of bins) stat += (cc - ee) ** 2 / ee;
  return { stat, df: bins.length - 1 };
}

// ---------------------------------------------------------------------------

test('the kept-set checkers reject the neighbouring answers (they are not vacuous)', () => {
  const r = rng(31);
  let rejected = 0;
  let tried = 0;
  for (let c = 0; c < 200; c++) {
    const n = pick(r, [16, 100, 1000, 4099]);
    const x = logits(r, n, { spread: pick(r, [0.5, 1, 3]), integer: r() < 0.3 });
    const idx = Array.from(x.keys());
    const s = Float64Array.from(x);
    const P = pick(r, [0.2, 0.9, 0.99]);
    const minKeep = pick(r, [1, 5]);
    const ref = typicalRef(idx, s, P, minKeep);
    const asSet = (positions) => {
      const inK = new Uint8Array(n);
      for (const j of positions) inK[j] = 1;
      return inK;
    };
    const keep = ref.kept.length;
    expect(typicalSetError(ref, idx, s, P, minKeep, asSet(ref.ord.slice(0, keep)))).toBeNull();
    if (ref.ambiguous) continue;
    // One fewer (unless minKeep holds it), one more, the last swapped for the next.
    const wrong = [];
    if (keep - 1 >= Math.max(1, minKeep)) wrong.push(ref.ord.slice(0, keep - 1));
    if (keep < n) {
      wrong.push(ref.ord.slice(0, keep + 1));
      if (ref.key[ref.ord[keep]] - ref.key[ref.ord[keep - 1]] > ref.tolKey) wrong.push([...ref.ord.slice(0, keep - 1), ref.ord[keep]]);
    }
    for (const w of wrong) {
      tried++;
      if (typicalSetError(ref, idx, s, P, minKeep, asSet(w)) !== null) rejected++;
    }
    const eta = etaRef(idx, s, pick(r, [2e-3, 0.02]), minKeep);
    const ek = eta.kept.length;
    expect(etaSetError(eta, idx, asSet(eta.ord.slice(0, ek)))).toBeNull();
    if (eta.ambiguous) continue;
    const etaWrong = [];
    if (ek - 1 >= Math.max(1, minKeep)) etaWrong.push(eta.ord.slice(0, ek - 1));
    if (ek < n) etaWrong.push(eta.ord.slice(0, ek + 1));
    if (ek < n && x[eta.ord[0]] !== x[eta.ord[ek]]) etaWrong.push(eta.ord.slice(1, ek + 1));
    for (const w of etaWrong) {
      tried++;
      if (etaSetError(eta, idx, asSet(w)) !== null) rejected++;
    }
  }
  expect(tried).toBeGreaterThan(500);
  expect(rejected).toBe(tried);
});

const tally = {};
afterAll(() => {
  if (VERBOSE) console.log('near ties at the cut:', JSON.stringify(tally));
});

describe.each(BUILDS)('$build build', ({ build, simd }) => {
  let sm;
  const count = (what, k = 1) => {
    tally[build] ??= {};
    tally[build][what] = (tally[build][what] ?? 0) + k;
  };
  beforeAll(async () => {
    sm = await load({ simd });
    expect(sm.simd).toBe(simd);
  });

  /** probs(x) with these options, and the sampler disposed. */
  const probsOf = (x, opts, callOpts) => {
    const s = sm.createSampler({ seed: 1, ...opts });
    try {
      return s.probs(x, callOpts);
    } finally {
      s.dispose();
    }
  };

  /** Candidates (finite entries) and their values at scale t. */
  const candidates = (x, t) => {
    const idx = [];
    for (let i = 0; i < x.length; i++) if (x[i] !== -Infinity) idx.push(i);
    return { idx, s: Float64Array.from(idx, (i) => x[i] / t) };
  };

  // Runs where minKeep holds entries past the mass cut (the cut is shorter
  // than minKeep, or typicalP <= 1e-6 so that the empty prefix reaches it):
  // which entries minKeep adds is checked in a test of its own.
  const floorFailures = [];
  let floorRuns = 0;

  /**
   * One typical run: the kept set (with the near-tie tolerance), then the
   * probabilities. Returns null or what is wrong; minKeep's runs go to
   * floorFailures.
   */
  function typicalError(x, opts, label) {
    const o = normalise(opts);
    const tCut = opts.order === 'llama.cpp' ? 1 : o.temperature; // the scale typical sees
    const { idx, s } = candidates(x, tCut);
    const got = probsOf(x, opts);
    const ref = typicalRef(idx, s, o.typicalP, o.minKeep);
    const observed = support(got);
    const inSet = new Set([...observed, ...hiddenKept(x, ref.kept, o.temperature, observed)]);
    const inK = Uint8Array.from(idx, (i) => (inSet.has(i) ? 1 : 0));
    const fail = (msg) => {
      if (!ref.floorBinds) return `${label}: ${msg}`;
      floorFailures.push(`${label}: ${msg}`);
      return null;
    };
    count('typical cases');
    if (ref.floorBinds) floorRuns++;
    const masked = observed.filter((i) => x[i] === -Infinity);
    if (masked.length) return `${label}: masked entries kept: ${masked}`;
    const err = typicalSetError(ref, idx, s, o.typicalP, o.minKeep, inK);
    if (err) return fail(err);
    if (ref.massTie) count('typical mass near tie');
    if (ref.keyTie) count('typical key near tie');
    const same = ref.kept.length === inSet.size && ref.kept.every((i) => inSet.has(i));
    if (!same) {
      count('typical differs at a near tie');
      if (!ref.ambiguous) return fail(`kept ${[...inSet].sort((a, b) => a - b)}, expected ${ref.kept} (no near tie)`);
    }
    const kept = [...inSet].sort((a, b) => a - b);
    const want = finalProbs(x.length, kept, Float64Array.from(kept, (i) => x[i] / o.temperature));
    const perr = probError(got, want);
    return perr && `${label}: ${perr}`;
  }

  function checkTypical(x, opts, label) {
    expect(typicalError(x, opts, label)).toBeNull();
  }

  test('typicalP: kept set and probabilities against the float64 reference, 240 random inputs', () => {
    const r = rng(20240);
    const failures = [];
    for (let c = 0; c < 240; c++) {
      const n = pick(r, [2, 3, 4, 7, 16, 50, 51, 100, 257, 1000, 4099, 32000]);
      const shape = {
        spread: pick(r, [0.5, 1, 3, 10]),
        offset: pick(r, [0, 0, 500, -500]),
        integer: r() < 0.25,
        masked: r() < 0.25 ? 0.3 : 0,
      };
      const x = logits(r, n, shape);
      const opts = {
        typicalP: pick(r, [0.2, 0.9, 0.99]),
        temperature: pick(r, [0.7, 1, 1.3]),
        minKeep: pick(r, [1, 1, 50]),
        order: pick(r, ['hf', 'llama.cpp']),
      };
      const err = typicalError(x, opts, `case ${c}: n ${n} ${JSON.stringify(shape)} ${JSON.stringify(opts)}`);
      if (err) failures.push(err);
    }
    expect(failures.slice(0, 3), `${failures.length} of 240 runs wrong`).toEqual([]);
  });

  test('typicalP at N = 151,936, normal(0, 3) and friends', () => {
    const r = rng(151936);
    const cases = [
      [{ spread: 3 }, { typicalP: 0.9 }],
      [{ spread: 3 }, { typicalP: 0.2, temperature: 0.7 }],
      [{ spread: 3 }, { typicalP: 0.99, temperature: 1.3, minKeep: 50 }],
      [{ spread: 3, offset: 500 }, { typicalP: 0.9, order: 'llama.cpp', temperature: 0.7 }],
      [{ spread: 2, integer: true }, { typicalP: 0.9 }],
      [{ spread: 10, masked: 0.5 }, { typicalP: 0.2, minKeep: 50 }],
    ];
    for (const [shape, opts] of cases) checkTypical(logits(r, VOCAB, shape), opts, `N ${VOCAB} ${JSON.stringify(shape)} ${JSON.stringify(opts)}`);
  });

  /** Checks one eta run: kept set (allowed sizes at a near tie), then probabilities. */
  function checkEta(x, opts, label) {
    const o = normalise(opts);
    const tCut = opts.order === 'llama.cpp' ? 1 : o.temperature;
    const { idx, s } = candidates(x, tCut);
    const got = probsOf(x, opts);
    const ref = etaRef(idx, s, o.etaCutoff, o.minKeep);
    const observed = support(got);
    const inSet = new Set([...observed, ...hiddenKept(x, ref.kept, o.temperature, observed)]);
    const inK = Uint8Array.from(idx, (i) => (inSet.has(i) ? 1 : 0));
    expect(observed.filter((i) => x[i] === -Infinity), label).toEqual([]);
    expect(etaSetError(ref, idx, inK), label).toBeNull();
    const same = ref.kept.length === inSet.size && ref.kept.every((i) => inSet.has(i));
    if (ref.ambiguous) count('eta threshold');
    if (!same) count('eta differs');
    count('eta cases');
    const kept = [...inSet].sort((a, b) => a - b);
    expect(probError(got, finalProbs(x.length, kept, Float64Array.from(kept, (i) => x[i] / o.temperature))), label).toBeNull();
  }

  test('etaCutoff: kept set and probabilities against the float64 reference, 200 random inputs', () => {
    const r = rng(777);
    for (let c = 0; c < 200; c++) {
      const n = pick(r, [2, 3, 5, 16, 50, 100, 1000, 4099, 32000]);
      const shape = {
        spread: pick(r, [0.5, 1, 3, 10]),
        offset: pick(r, [0, 500, -500]),
        integer: r() < 0.25,
        masked: r() < 0.25 ? 0.3 : 0,
      };
      const x = logits(r, n, shape);
      const opts = {
        etaCutoff: pick(r, [1e-4, 3e-4, 2e-3, 0.02, 0.2, 0.6]),
        temperature: pick(r, [0.7, 1, 1.3]),
        minKeep: pick(r, [1, 1, 50]),
        order: pick(r, ['hf', 'llama.cpp']),
      };
      checkEta(x, opts, `case ${c}: n ${n} ${JSON.stringify(shape)} ${JSON.stringify(opts)}`);
    }
    const big = rng(3);
    for (const eta of [3e-4, 2e-3]) checkEta(logits(big, VOCAB, { spread: 3 }), { etaCutoff: eta }, `N ${VOCAB} eta ${eta}`);
  });

  /**
   * T' implied by the output: (x_i - x_j) / log(p_i / p_j) for the most
   * likely i and the j farthest below it with p_j >= 1e-30; null when every
   * kept p is the same.
   */
  function impliedT(x, got) {
    let i = -1;
    for (let k = 0; k < got.length; k++) if (got[k] > 0 && (i < 0 || got[k] > got[i])) i = k;
    let j = -1;
    for (let k = 0; k < got.length; k++) if (got[k] >= 1e-30 && x[k] < x[i] && (j < 0 || x[k] < x[j])) j = k;
    if (j < 0) return null;
    const lr = Math.log(got[i]) - Math.log(got[j]);
    return { t: (x[i] - x[j]) / lr, lr };
  }

  function checkDynatemp(x, opts, label) {
    const got = probsOf(x, opts);
    const ref = refChain(x, opts);
    count('dynatemp cases');
    if (ref.tPrime === 0) {
      expect(support(got), label).toEqual(ref.kept);
      return;
    }
    const t = impliedT(x, got);
    if (t && t.lr > 0.05) {
      // log(p_i / p_j) from float32 probabilities carries ~2.5e-7 absolute.
      const tol = 1e-6 + 2.5e-7 / t.lr;
      expect(Math.abs(t.t / ref.tPrime - 1), `${label}: T' ${t.t}, expected ${ref.tPrime}`).toBeLessThanOrEqual(tol);
      count('dynatemp T checked');
    }
    // The probabilities, at the reference's T' (a 1e-7 relative error in T'
    // moves p by |log p| * 1e-7 relative, within the bar).
    expect(probError(got, ref.probs, probTolT), label).toBeNull();
  }

  test("dynatemp: T' and probabilities against the float64 reference, 200 random inputs", () => {
    const r = rng(4242);
    for (let c = 0; c < 200; c++) {
      const n = pick(r, [2, 3, 5, 16, 50, 100, 1000, 4099, 32000]);
      const shape = {
        spread: pick(r, [0.5, 1, 3, 10]),
        offset: pick(r, [0, 500, -500]),
        integer: r() < 0.25,
        masked: r() < 0.25 ? 0.3 : 0,
      };
      const x = logits(r, n, shape);
      const opts = {
        temperature: pick(r, [0.7, 1, 1.3]),
        dynatempRange: pick(r, [0.3, 0.7, 1.5]),
        dynatempExponent: pick(r, [0.5, 1, 2]),
        order: pick(r, ['hf', 'llama.cpp']),
      };
      checkDynatemp(x, opts, `case ${c}: n ${n} ${JSON.stringify(shape)} ${JSON.stringify(opts)}`);
    }
    const big = rng(5);
    checkDynatemp(logits(big, VOCAB, { spread: 3 }), { temperature: 1, dynatempRange: 0.5 }, `N ${VOCAB}`);
    checkDynatemp(logits(big, VOCAB, { spread: 3, offset: 500 }), { temperature: 0.7, dynatempRange: 0.6, dynatempExponent: 2 }, `N ${VOCAB} offset 500`);
  });

  test("dynatemp at low entropy (one dominant score): T' within 1e-6 relative (2e-5 with an exponent below 1)", () => {
    // H from 1e-1 down to 1e-14: T' = lo + (hi - lo) (H / log m)^e moves with
    // H itself, so an absolute error in H (not a relative one) shows here.
    // The entropy's sum of exponentials adds float32 partial sums of 8 per
    // lane (as softmax and log-softmax do): the tail entries that share a lane
    // with the dominant one vanish beside it, about 1e-3 of H at worst here,
    // which an exponent below 1 magnifies as H nears 0 (up to ~1.3e-5 of T').
    const wrong = [];
    for (const n of [100, 256, 1000]) {
      for (const top of [8, 10, 12, 15, 17, 20, 22, 25, 30, 40]) {
        const x = new Float32Array(n);
        x[7] = top;
        for (const opts of [{ temperature: 1.2, dynatempRange: 0.7, dynatempExponent: 0.5 }, { temperature: 1, dynatempRange: 0.5, dynatempExponent: 1 }]) {
          const ref = refChain(x, opts);
          const got = probsOf(x, opts);
          const t = impliedT(x, got);
          if (!t || t.lr < 0.05) continue;
          const rel = t.t / ref.tPrime - 1;
          const bar = opts.dynatempExponent < 1 ? 2e-5 : 1e-6;
          if (Math.abs(rel) > bar + 2.5e-7 / t.lr) wrong.push(`n ${n} x[7] = ${top} ${JSON.stringify(opts)}: T' ${t.t}, expected ${ref.tPrime} (${rel.toExponential(2)})`);
        }
      }
    }
    expect(wrong.slice(0, 6), `${wrong.length} T' out of bounds`).toEqual([]);
  });

  test('the three steps chained (both orders), 120 random inputs without near ties', () => {
    const r = rng(99);
    let checked = 0;
    for (let c = 0; c < 120; c++) {
      const n = pick(r, [3, 16, 100, 1000, 4099]);
      const shape = { spread: pick(r, [0.5, 1, 3]), offset: pick(r, [0, 500]), integer: r() < 0.25, masked: r() < 0.25 ? 0.3 : 0 };
      const x = logits(r, n, shape);
      const opts = {
        temperature: pick(r, [0.7, 1, 1.3]),
        typicalP: pick(r, [0.2, 0.9, 0.99]),
        etaCutoff: pick(r, [3e-4, 2e-3, 0.02]),
        dynatempRange: pick(r, [0, 0.5]),
        minKeep: pick(r, [1, 50]),
        order: pick(r, ['hf', 'llama.cpp']),
      };
      const ref = refChain(x, opts);
      if (ref.ambiguous || ref.floorBinds) {
        count(ref.ambiguous ? 'chain near tie' : 'chain typical minKeep');
        continue;
      }
      const label = `case ${c}: n ${n} ${JSON.stringify(shape)} ${JSON.stringify(opts)}`;
      const got = probsOf(x, opts);
      const hidden = new Set(hiddenKept(x, ref.kept, ref.tPrime ?? normalise(opts).temperature, support(got)));
      expect(support(got), label).toEqual(ref.kept.filter((i) => !hidden.has(i) || got[i] > 0));
      expect(probError(got, ref.probs, probTolT), label).toBeNull();
      checked++;
    }
    count('chain cases', checked);
    expect(checked).toBeGreaterThan(60);
  });

  // Chi-square of draws against the reference distribution. Each case: scores,
  // options, draws, seed; bins = tokens, or for the full vocabulary 10 bins of
  // consecutive tokens holding a tenth of the reference mass each.
  const chiCases = [
    ['typical 0.9, n = 12', () => logits(rng(1), 12, { spread: 2 }), { typicalP: 0.9 }, 100_000],
    ['typical 0.2 with minKeep 50, n = 200, T = 1.3', () => logits(rng(2), 200, { spread: 3 }), { typicalP: 0.2, minKeep: 50, temperature: 1.3 }, 100_000],
    ['typical 0.99 (llama.cpp order, T = 0.7), integer scores with ties, n = 300', () => logits(rng(3), 300, { spread: 2, integer: true }), { typicalP: 0.99, temperature: 0.7, order: 'llama.cpp' }, 100_000],
    ['eta 0.02, n = 60', () => logits(rng(4), 60, { spread: 2 }), { etaCutoff: 0.02 }, 100_000],
    ['dynatemp 0.8 exponent 2, n = 40', () => logits(rng(5), 40, { spread: 1.5 }), { temperature: 1, dynatempRange: 0.8, dynatempExponent: 2 }, 100_000],
    ['typical + eta + dynatemp, masked, n = 1000', () => logits(rng(6), 1000, { spread: 1, masked: 0.3 }), { typicalP: 0.9, etaCutoff: 2e-3, dynatempRange: 0.5, temperature: 0.8 }, 100_000],
    [`typical 0.9 at N = ${VOCAB}, normal(0, 3)`, () => logits(rng(17), VOCAB, { spread: 3 }), { typicalP: 0.9 }, 200_000],
    [`dynatemp + eta at N = ${VOCAB}, normal(500, 3)`, () => logits(rng(8), VOCAB, { spread: 3, offset: 500 }), { etaCutoff: 3e-4, dynatempRange: 0.5, temperature: 0.9 }, 200_000],
  ];

  test.each(chiCases.map((c, j) => [c[0], j]))('chi-square, false alarm 1e-4: %s', (_, j) => {
    const [, make, opts, draws] = chiCases[j];
    const x = make();
    const ref = refChain(x, opts);
    expect(ref.ambiguous, 'the case must not sit on a near tie').toBe(false);
    const s = sm.createSampler({ seed: 1000 + j, ...opts });
    const t = s.sampleMany(x, draws);
    s.dispose();
    const tokens = ref.kept;
    let expected;
    let counts;
    if (tokens.length <= 1000) {
      const pos = new Map(tokens.map((i, k) => [i, k]));
      counts = new Array(tokens.length).fill(0);
      for (const d of t) {
        expect(pos.has(d), `token ${d} drawn outside the kept set`).toBe(true);
        counts[pos.get(d)]++;
      }
      expected = tokens.map((i) => ref.probs[i] * draws);
    } else {
      const bin = new Int32Array(x.length).fill(-1);
      const mass = new Array(10).fill(0);
      let cum = 0;
      for (const i of tokens) {
        const b = Math.min(9, Math.floor(cum * 10));
        bin[i] = b;
        mass[b] += ref.probs[i];
        cum += ref.probs[i];
      }
      counts = new Array(10).fill(0);
      for (const d of t) {
        expect(bin[d] >= 0, `token ${d} drawn outside the kept set`).toBe(true);
        counts[bin[d]]++;
      }
      expected = mass.map((v) => v * draws);
    }
    const { stat, df } = chiSquare(counts, expected);
    expect(df).toBeGreaterThanOrEqual(1);
    expect(stat, `chi-square ${stat.toFixed(1)} with ${df} df`).toBeLessThanOrEqual(chi2Crit(df));
  });

  // ---------------------------------------------------------------------------
  // Adversarial inputs.

  const STEPS = [
    { typicalP: 0.5 },
    { typicalP: 0.99, minKeep: 50 },
    { typicalP: 0.2, temperature: 0 },
    { typicalP: 0.2, temperature: Infinity },
    { etaCutoff: 0.1 },
    { etaCutoff: 0.3, minKeep: 50 },
    { dynatempRange: 0.5 },
    { dynatempRange: 2, dynatempExponent: 3, temperature: 0.5 },
    { dynatempRange: 0.5, temperature: 0 },
    { typicalP: 0.9, etaCutoff: 0.01, dynatempRange: 0.5, order: 'llama.cpp' },
    { typicalP: 0.9, etaCutoff: 0.01, dynatempRange: 0.5 },
  ];

  /** Probabilities in [0, 1] summing to 1 (1e-5), zero on -Infinity, and draws in the support. */
  function sane(x, opts, label, callOpts) {
    const s = sm.createSampler({ seed: 9, ...opts });
    try {
      const p = s.probs(x, callOpts);
      let sum = 0;
      for (let i = 0; i < p.length; i++) {
        expect(p[i] >= 0 && p[i] <= 1, `${label}: p[${i}] = ${p[i]}`).toBe(true);
        if (x[i] === -Infinity) expect(p[i], `${label}: masked p[${i}]`).toBe(0);
        sum += p[i];
      }
      expect(Math.abs(sum - 1), `${label}: sum ${sum}`).toBeLessThanOrEqual(1e-5);
      for (const d of s.sampleMany(x, 200, callOpts)) expect(p[d], `${label}: drew ${d}`).toBeGreaterThan(0);
      return p;
    } finally {
      s.dispose();
    }
  }

  /** A normal call after the adversarial ones: typical at n = 100 against the reference. */
  function healthy() {
    expect(Array.from(sm.softmax([2, 1, 0]), (v) => +v.toFixed(3))).toEqual([0.665, 0.245, 0.09]);
    checkTypical(logits(rng(11), 100, { spread: 2 }), { typicalP: 0.7 }, 'healthy');
  }

  test('-Infinity entries are never kept; one finite entry is certain', () => {
    const x = Float32Array.from([-Infinity, 3, -Infinity, 1, 2, -Infinity, 2.5, -Infinity]);
    for (const o of STEPS) {
      const p = sane(x, o, JSON.stringify(o));
      const ref = refChain(x, o);
      expect(ref.ambiguous).toBe(false);
      expect(probError(p, ref.probs), JSON.stringify(o)).toBeNull();
    }
    const one = new Float32Array(1000).fill(-Infinity);
    one[617] = -5;
    for (const o of STEPS) expect(support(sane(one, o, JSON.stringify(o)))).toEqual([617]);
    healthy();
  });

  test('+Infinity entries share the mass; typical keeps them in index order', () => {
    const x = Float32Array.from([0, Infinity, 1, Infinity, -Infinity, 5]);
    for (const o of STEPS) {
      const p = sane(x, o, JSON.stringify(o));
      const sup = support(p);
      if (o.temperature !== Infinity) expect(sup.every((i) => x[i] === Infinity), `${JSON.stringify(o)}: support ${sup}`).toBe(true);
    }
    // At T = Infinity every entry but -Infinity is equally likely (+Infinity
    // included): typical's keys are all 0 and it keeps the first by index.
    expect(support(probsOf(x, { typicalP: 0.2, temperature: Infinity }))).toEqual([0]);
    expect(support(probsOf(x, { typicalP: 0.5, temperature: Infinity }))).toEqual([0, 1, 2]);
    // Each +Infinity entry has p = 1/2, key |-log p - H| = 0: index order.
    expect(support(probsOf(x, { typicalP: 0.5 }))).toEqual([1]);
    expect(support(probsOf(x, { typicalP: 0.9 }))).toEqual([1, 3]);
    expect(Array.from(probsOf(x, { etaCutoff: 0.1 }))).toEqual([0, 0.5, 0, 0.5, 0, 0]);
    expect(Array.from(probsOf(x, { dynatempRange: 0.5 }))).toEqual([0, 0.5, 0, 0.5, 0, 0]);
    healthy();
  });

  test('all-equal scores: typical keeps the first entries by index, eta and dynatemp keep all', () => {
    for (const v of [0, -7.5, 1e30, -3e38]) {
      const x = new Float32Array(10).fill(v);
      for (const o of STEPS) sane(x, o, `${v} ${JSON.stringify(o)}`);
      expect(support(probsOf(x, { typicalP: 0.45 }))).toEqual([0, 1, 2, 3, 4]);
      expect(support(probsOf(x, { typicalP: 0.45, minKeep: 7 }))).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(support(probsOf(x, { etaCutoff: 0.5 }))).toHaveLength(10);
      expect(probError(probsOf(x, { dynatempRange: 0.5 }), new Float64Array(10).fill(0.1))).toBeNull();
    }
    // Temperature Infinity before typical (hf order): every key is 0, index order again.
    expect(support(probsOf(logits(rng(12), 10), { typicalP: 0.45, temperature: Infinity }))).toEqual([0, 1, 2, 3, 4]);
    healthy();
  });

  test('one dominant score (p ~ 1): typical and eta keep it alone, minKeep adds the zeros by index', () => {
    const x = new Float32Array(1000);
    x[321] = 20;
    for (const o of STEPS) sane(x, o, JSON.stringify(o));
    expect(support(probsOf(x, { typicalP: 0.99 }))).toEqual([321]);
    expect(support(probsOf(x, { etaCutoff: 1e-4 }))).toEqual([321]);
    // The typical order: 321 (key ~ 0) then the zeros by index.
    expect(support(probsOf(x, { typicalP: 0.5, minKeep: 4 }))).toEqual([0, 1, 2, 321]);
    expect(probError(probsOf(x, { dynatempRange: 0.7 }), refChain(x, { dynatempRange: 0.7 }).probs, probTolT)).toBeNull();
    healthy();
  });

  test('huge spreads: 1e30 and +-3e38 scores, at T = 1 and at T = 1e30 / 1e38', () => {
    const wide = Float32Array.from([1e30, -1e30, 0, 3e38, -3e38, 1e38]);
    for (const o of STEPS) {
      const p = sane(wide, o, JSON.stringify(o));
      if (o.temperature !== Infinity) expect(support(p), JSON.stringify(o)).toEqual([3]);
    }
    // At T = 1e30 the scores [1e30, 0, -1e30] are [1, 0, -1]; at T = 1e38,
    // [3e38, 0, -3e38] are [3, 0, -3]: the differences exceed float32.
    const cases = [
      [Float32Array.from([1e30, 0, -1e30]), 1e30],
      [Float32Array.from([3e38, 0, -3e38, 1e38]), 1e38],
      [Float32Array.from([-3e38, 3e38, 2e38, 2.5e38, -2e38]), 1e38],
    ];
    for (const [x, t] of cases) {
      for (const o of [{ typicalP: 0.5 }, { typicalP: 0.8, order: 'llama.cpp' }, { etaCutoff: 0.2 }, { dynatempRange: t / 2 }]) {
        const opts = { temperature: t, ...o };
        const label = `${Array.from(x)} ${JSON.stringify(opts)}`;
        const p = sane(x, opts, label);
        const ref = refChain(x, opts);
        expect(ref.ambiguous, label).toBe(false);
        expect(probError(p, ref.probs, (v) => 1e-5 * v + 1e-30), label).toBeNull();
      }
    }
    healthy();
  });

  test('tiny vocabularies: n = 1 and n = 2', () => {
    for (const o of STEPS) {
      expect(Array.from(sane([3], o, JSON.stringify(o)))).toEqual([1]);
      for (const x of [[0, 0], [1, -1], [-1, 1], [0, -Infinity], [-Infinity, 7], [1e30, -1e30]]) {
        const p = sane(x, o, `${x} ${JSON.stringify(o)}`);
        if (o.temperature === 0) continue;
        const ref = refChain(Float32Array.from(x), o);
        if (!ref.ambiguous) expect(probError(p, ref.probs, (v) => 1e-5 * v + 1e-30), `${x} ${JSON.stringify(o)}`).toBeNull();
      }
    }
    healthy();
  });

  test('typicalP just above 0 keeps max(1, minKeep) entries; 0 is a RangeError', () => {
    const r = rng(13);
    for (const P of [5e-324, 1e-46, 1e-30, 1e-7]) {
      for (const minKeep of [1, 3]) {
        for (const n of [2, 50, 4099]) {
          const x = logits(r, n, { spread: 2 });
          const p = sane(x, { typicalP: P, minKeep }, `P ${P} minKeep ${minKeep} n ${n}`);
          expect(support(p), `P ${P} minKeep ${minKeep} n ${n}`).toHaveLength(Math.min(minKeep, n));
        }
      }
    }
    expect(() => sm.createSampler({ typicalP: 0 })).toThrow(RangeError);
    expect(() => sm.createSampler({ typicalP: -5e-324 })).toThrow(/typicalP/);
    healthy();
  });

  test('minKeep past the typical cut keeps the first entries of the typical order (HF, llama.cpp)', () => {
    // HF TypicalLogitsWarper un-removes sorted positions [:min_tokens_to_keep]
    // of the order by |-log p - H|; llama.cpp's typical cut does not stop
    // before min_keep entries of that order. A dominant score whose own key is
    // not the smallest: mu = 0.28 * 11 lies nearer the zeros, so the order
    // starts with zeros 0, 1, 2; the most likely entry (5) comes last.
    const y = new Float32Array(VOCAB);
    y[5] = 11;
    const wrong = [];
    for (const [P, minKeep] of [[1e-7, 3], [1e-5, 3], [1e-7, 1], [1e-30, 1]]) {
      const ref = refChain(y, { typicalP: P, minKeep });
      expect(ref.kept).toEqual([0, 1, 2].slice(0, minKeep));
      const got = support(probsOf(y, { typicalP: P, minKeep }));
      if (`${got}` !== `${ref.kept}`) wrong.push(`typicalP ${P} minKeep ${minKeep}: kept ${got}, expected ${ref.kept}`);
    }
    // Every random run above where minKeep (or typicalP <= 1e-6) decided.
    const r = rng(16);
    for (let c = 0; c < 40; c++) {
      const n = pick(r, [5, 20, 60, 300]);
      const x = logits(r, n, { spread: pick(r, [0.5, 1, 3]) });
      const opts = { typicalP: pick(r, [1e-7, 0.05, 0.2]), minKeep: pick(r, [1, 3, 10, 50]) };
      const err = typicalError(x, opts, `n ${n} ${JSON.stringify(opts)}`);
      if (err) wrong.push(err);
    }
    expect(floorRuns).toBeGreaterThan(20);
    expect([...wrong, ...floorFailures].slice(0, 4), `${wrong.length + floorFailures.length} of ${floorRuns + 4} runs where minKeep decides are wrong`).toEqual([]);
    healthy();
  });

  test("dynatemp at temperature 0 and 1e-40: T' from lo = 0; T' = 0 is greedy, a tiny T' shares the maxima", () => {
    const x = Float32Array.from([1, 3, 3, 2]);
    // T = 0, range 0.5: T' = 0.5 (H / log 4)^e.
    for (const e of [0.5, 1, 2]) {
      const o = { temperature: 0, dynatempRange: 0.5, dynatempExponent: e };
      const ref = refChain(x, o);
      expect(ref.tPrime).toBeGreaterThan(0);
      expect(probError(sane(x, o, JSON.stringify(o)), ref.probs), JSON.stringify(o)).toBeNull();
    }
    // T = range = 1e-40 (float32 subnormals): T' ~ 1e-40, the two maxima share the mass.
    expect(Array.from(sane(x, { temperature: 1e-40, dynatempRange: 1e-40 }, 'T 1e-40'))).toEqual([0, 0.5, 0.5, 0]);
    // Entropy 0 with lo = 0: T' = 0, greedy (the first maximum).
    expect(support(sane([0, -1000, -2000], { temperature: 0, dynatempRange: 0.4 }, 'H = 0'))).toEqual([0]);
    expect(support(sane([0, -1000, 0], { temperature: 1e-40, dynatempRange: 1e-40 }, 'H = log 2'))).toEqual([0, 2]);
    // A huge exponent drives T' to 0 in float32 (0.5^200 * 2e-40): greedy
    // or shared maxima are both within rounding of the definition; no NaN.
    sane(x, { temperature: 1e-40, dynatempRange: 1e-40, dynatempExponent: 200 }, 'exponent 200');
    healthy();
  });

  test('the mask option equals -Infinity scores, and the reference, with each step', () => {
    const r = rng(14);
    for (const o of STEPS) {
      for (const n of [5, 33, 1000]) {
        const x = logits(r, n, { spread: 2 });
        const mask = new Uint32Array(Math.ceil(n / 32)).map(() => (r() * 2 ** 32) >>> 0);
        mask[0] |= 1;
        const xm = sm.applyTokenBitmask(x.slice(), mask);
        const label = `${JSON.stringify(o)} n ${n}`;
        const p = sane(x, o, label, { mask });
        expect(p, label).toEqual(probsOf(xm, o));
        const ref = refChain(xm, o);
        if (!ref.ambiguous && o.temperature !== 0) {
          expect(probError(p, ref.probs, probTolT), label).toBeNull();
        }
        const a = sm.createSampler({ seed: 3, ...o });
        const b = sm.createSampler({ seed: 3, ...o });
        expect(a.sampleMany(x, 200, { mask }), label).toEqual(b.sampleMany(xm, 200));
        a.dispose();
        b.dispose();
      }
    }
    healthy();
  });

  test('nested calls from a getter: a TypeError inside, the outer call right; the module stays healthy', () => {
    const x = logits(rng(15), 64, { spread: 2 });
    const o = { typicalP: 0.8, etaCutoff: 0.01, dynatempRange: 0.4 };
    const ref = refChain(x, o);
    expect(ref.ambiguous).toBe(false);
    const s = sm.createSampler({ seed: 5, ...o });
    const caught = [];
    const inner = () => {
      for (const f of [() => s.probs(x), () => sm.createSampler({ typicalP: 0.5 }), () => s.sample(x), () => s.dispose()]) {
        try {
          f();
        } catch (e) {
          caught.push(e);
        }
      }
    };
    const mask = new Uint32Array(2).fill(0xffffffff);
    const callOpts = {
      get mask() {
        inner();
        return mask;
      },
    };
    expect(probError(s.probs(x, callOpts), ref.probs, probTolT)).toBeNull();
    const proxy = new Proxy(Array.from(x), {
      get(t, k) {
        if (k === '10') inner();
        return t[k];
      },
    });
    expect(probError(s.probs(proxy), ref.probs, probTolT)).toBeNull();
    expect(caught).toHaveLength(8);
    for (const e of caught) expect(e).toBeInstanceOf(TypeError);
    // The getter does not catch: the outer call fails with the nested call's error.
    expect(() => s.probs(x, { get mask() { return s.probs(x) && mask; } })).toThrow(TypeError);
    expect(s.disposed).toBe(false);
    expect(probError(s.probs(x), ref.probs, probTolT)).toBeNull();
    s.dispose();
    healthy();
  });
});
