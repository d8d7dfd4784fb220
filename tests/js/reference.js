// Independent double-precision reference for the softmax family, written from
// the definitions (not from the library's code), and a seeded PRNG for inputs.
//
// Inputs are what the library sees: every score rounded to float32
// (Math.fround). All arithmetic after that is in double.

/** mulberry32: a small seeded 32-bit PRNG; returns uniform floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A normal(mean, sd) generator over a uniform generator (Box-Muller). */
export function normalGen(rng, mean = 0, sd = 1) {
  return function normal() {
    let u = 0;
    while (u === 0) u = rng();
    const v = rng();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
}

/** n normal(mean, sd) numbers from the given seed, as a plain number[]. */
export function normalArray(n, { seed = 1, mean = 0, sd = 1 } = {}) {
  const g = normalGen(mulberry32(seed), mean, sd);
  return Array.from({ length: n }, () => g());
}

/**
 * The slices of a row-major tensor along an axis: an array of index lists, one
 * per slice, in the order outer-major then inner (the order of logSumExp's
 * results). shape undefined means a 1-D vector of `length`.
 */
export function slices(length, shape, axis = -1) {
  const dims = shape === undefined ? [length] : [...shape];
  const ax = axis < 0 ? axis + dims.length : axis;
  if (ax < 0 || ax >= dims.length) throw new Error(`reference: bad axis ${axis}`);
  const prod = (ds) => ds.reduce((p, d) => p * d, 1);
  const outer = prod(dims.slice(0, ax));
  const n = dims[ax];
  const inner = prod(dims.slice(ax + 1));
  const result = [];
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const idx = [];
      for (let k = 0; k < n; k++) idx.push(o * n * inner + k * inner + i);
      result.push(idx);
    }
  }
  return result;
}

const f32 = (scores) => Array.from(scores, (v) => Math.fround(v));

// One slice, finite T > 0: z_i = (x_i - max) / T; softmax = e^z / sum e^z;
// logSoftmax = z - log(sum e^z); logSumExp = max / T + log(sum e^z). T is
// the temperature as the API takes it: rounded to float32 (README, "Float32
// conversion"), as the scores are.
function sliceStats(x, T) {
  let max = -Infinity;
  let nan = false;
  for (const v of x) {
    if (Number.isNaN(v)) nan = true;
    else if (v > max) max = v;
  }
  if (nan) max = NaN;
  const z = x.map((v) => (v - max) / T);
  let sum = 0;
  for (const v of z) sum += Math.exp(v);
  return { max, z, sum };
}

/** softmax along an axis, in double. Returns a Float64Array. */
export function refSoftmax(scores, { temperature = 1, shape, axis = -1 } = {}) {
  const x = f32(scores);
  const y = new Float64Array(x.length);
  for (const idx of slices(x.length, shape, axis)) {
    const { z, sum } = sliceStats(idx.map((i) => x[i]), Math.fround(temperature));
    idx.forEach((i, k) => (y[i] = Math.exp(z[k]) / sum));
  }
  return y;
}

/** log(softmax) along an axis, in double. Returns a Float64Array. */
export function refLogSoftmax(scores, { temperature = 1, shape, axis = -1 } = {}) {
  const x = f32(scores);
  const y = new Float64Array(x.length);
  for (const idx of slices(x.length, shape, axis)) {
    const { z, sum } = sliceStats(idx.map((i) => x[i]), Math.fround(temperature));
    const ls = Math.log(sum);
    idx.forEach((i, k) => (y[i] = z[k] - ls));
  }
  return y;
}

/** log(sum(exp(x / T))) per slice, in double. Returns a Float64Array (one per slice). */
export function refLogSumExp(scores, { temperature = 1, shape, axis = -1 } = {}) {
  const x = f32(scores);
  const s = slices(x.length, shape, axis);
  return Float64Array.from(s, (idx) => {
    if (idx.length === 0) return -Infinity;
    const t = Math.fround(temperature);
    const { max, sum } = sliceStats(idx.map((i) => x[i]), t);
    return max / t + Math.log(sum);
  });
}

/** The first index of the largest value. */
export function refArgmax(scores) {
  const x = f32(scores);
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i;
  return best;
}

/** The float32 bit pattern of a number, as an unsigned 32-bit integer. */
export function bitsOf(v) {
  const b = new Float32Array([v]);
  return new Uint32Array(b.buffer)[0];
}
