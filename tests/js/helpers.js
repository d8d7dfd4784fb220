// Shared helpers of the Vitest suite: the two builds and element-wise checks
// that report the first mismatch (one expect per array, not per element).

/** Both wasm builds: every test of the softmax family runs for each. */
export const BUILDS = [
  { build: 'SIMD', simd: true },
  { build: 'baseline', simd: false },
];

/**
 * Compares got (float32 outputs) with ref (double reference) element by
 * element; tol(ref) is the allowed |got - ref|. Where the reference itself is
 * out of float32 range, the float32 rounding of it (+-Infinity) is expected.
 * Returns null, or a description of the first mismatch and the count.
 */
export function mismatch(got, ref, tol, label = '') {
  if (got.length !== ref.length) return `${label} length ${got.length}, expected ${ref.length}`;
  let first = null;
  let count = 0;
  for (let i = 0; i < ref.length; i++) {
    const g = got[i];
    const r = ref[i];
    const r32 = Math.fround(r);
    let ok;
    if (Number.isNaN(r)) ok = Number.isNaN(g);
    else if (!Number.isFinite(r32)) ok = g === r32;
    else ok = Math.abs(g - r) <= tol(r);
    if (!ok) {
      count++;
      if (first === null) first = `${label}[${i}]: got ${g}, expected ${r} (diff ${g - r}, tol ${tol(r)})`;
    }
  }
  return first === null ? null : `${first}; ${count} of ${ref.length} out of tolerance`;
}

// Below 1e-30 the bar is relative plus 1e-36 absolute: exps under FLT_MIN
// (1.18e-38) may flush to 0.
/** Tolerance of a probability at T = 1: 1e-6 relative (for ref >= 1e-30: the accuracy bar). */
export const probTol = (r) => 1e-6 * r + (r >= 1e-30 ? 0 : 1e-36);
/** Tolerance of a probability at T != 1: one more float32 rounding of (x - max) / T. */
export const probTolT = (r) => (r > 0 ? (1e-6 + Math.abs(Math.log(r)) * 2 ** -23) * r : 0) + (r >= 1e-30 ? 0 : 1e-36);
/** Tolerance of a log-probability: 1e-6 * max(1, |ref|) absolute. */
export const logTol = (r) => 1e-6 * Math.max(1, Math.abs(r));

/** Sums of each slice (in double) that are not within tol of 1. */
export function badSums(y, sliceList, tol = 1e-6) {
  const bad = [];
  for (const idx of sliceList) {
    let s = 0;
    for (const i of idx) s += y[i];
    if (!(Math.abs(s - 1) <= tol)) bad.push(s);
  }
  return bad;
}

/** Indices whose value is outside [0, 1] (NaN included). */
export function outOfUnit(y) {
  const bad = [];
  for (let i = 0; i < y.length; i++) if (!(y[i] >= 0 && y[i] <= 1)) bad.push(i);
  return bad;
}

export const num = (v) => (v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : v);

/** The options of a golden case (tests/golden/sampler*.json), with the seed as a number when it fits in 32 bits. */
export function goldenOptions(c) {
  const o = {};
  for (const [k, v] of Object.entries(c.options)) {
    if (Array.isArray(v)) o[k] = v;
    else if (k === 'logitBias') o[k] = Object.fromEntries(Object.entries(v).map(([i, b]) => [i, num(b)]));
    else o[k] = num(v);
  }
  const seed = BigInt(c.seed);
  o.seed = seed < 2n ** 32n ? Number(seed) : seed; // both seed forms
  return o;
}

/** The scores of a case: explicit, or the hash formula of sampler_golden.h. */
export function goldenScores(spec) {
  if (Array.isArray(spec)) return Float32Array.from(spec, num);
  const { n, salt, maskedBelow, scale } = spec.hash;
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const v = Math.imul(i + salt, 2654435761) >>> 0;
    x[i] = (v & 255) < maskedBelow ? -Infinity : ((v >>> 8) / 16777216 - 0.5) * scale;
  }
  return x;
}
