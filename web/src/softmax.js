// The loaded module: the softmax family over the Embind bindings of
// cpp/bindings/bindings.cpp, and the factory of samplers (sampler.js).
import { Memory, MAX_ELEMENTS, align8, stillWhole } from './memory.js';
import { lastPosition } from './scores.js';
import { Sampler, checkMask, samplerSpec } from './sampler.js';
import { checkInt, checkNumber, describe, lengthOf, readOptions, typedArrayKind } from './validate.js';

const MASKED = ['nan', 'zeros', 'uniform', 'throw'];
const MAP_OPTIONS = ['temperature', 'shape', 'axis', 'out', 'masked'];
const NAIVE_OPTIONS = ['temperature', 'shape', 'axis', 'out'];
const LSE_OPTIONS = ['temperature', 'shape', 'axis', 'out'];
const STEPS_OPTIONS = ['temperature', 'masked'];
const NO_DIMS = [];

function checkTemperature(fn, t) {
  if (t === undefined) return 1;
  checkNumber(fn, 'temperature', t, { min: 0 });
  return t;
}

function checkMasked(fn, masked) {
  if (masked === undefined) return 'nan';
  if (!MASKED.includes(masked)) {
    throw new RangeError(`${fn}: masked must be one of ${MASKED.map((m) => `'${m}'`).join(', ')}, got ${String(masked)}`);
  }
  return masked;
}

/** `out`: a Float32Array of `length` elements, in JS memory or the buffer() block; returns where it lies. */
function checkOut(fn, mem, out, length) {
  const kind = ArrayBuffer.isView(out) ? typedArrayKind(out) : undefined;
  if (kind !== 'Float32Array') throw new TypeError(`${fn}: out must be a Float32Array, got ${describe(out)}`);
  const place = mem.place(fn, 'out', out, kind);
  const n = lengthOf(out);
  if (n !== length) throw new RangeError(`${fn}: out has length ${n}, expected ${length}`);
  return place;
}

/** { outer, n, inner, dims, ndim } of scores (length) seen through shape (or a tensor's dims) and axis. */
function layout(fn, length, shape, tensorDims, axis) {
  if (shape !== undefined && tensorDims !== undefined) {
    throw new TypeError(`${fn}: scores is a tensor with dims [${tensorDims.join(', ')}]; pass no shape`);
  }
  const given = shape !== undefined ? shape : tensorDims;
  if (given === undefined) {
    if (axis !== undefined) {
      checkNumber(fn, 'axis', axis, { integer: true });
      if (axis !== 0 && axis !== -1) throw new RangeError(`${fn}: axis ${axis} is out of range for 1-D scores (use 0 or -1, or pass shape)`);
    }
    return { outer: 1, n: length, inner: 1, dims: NO_DIMS, ndim: 1, axis: -1 };
  }
  if (!Array.isArray(given) && !(ArrayBuffer.isView(given) && typedArrayKind(given) !== undefined)) {
    throw new TypeError(`${fn}: shape must be an array of non-negative integers, got ${describe(given)}`);
  }
  const dims = Array.from(given);
  if (dims.length === 0) throw new RangeError(`${fn}: shape must have at least one dimension`);
  let product = 1;
  for (let i = 0; i < dims.length; i++) {
    const d = dims[i];
    if (typeof d !== 'number') throw new TypeError(`${fn}: shape[${i}] must be a non-negative integer, got ${describe(d)}`);
    if (!Number.isInteger(d) || d < 0 || d > 2 ** 31 - 1) {
      throw new RangeError(`${fn}: shape[${i}] must be a non-negative integer, got ${String(d)}`);
    }
    product *= d;
  }
  if (product !== length) {
    throw new RangeError(`${fn}: shape [${dims.join(', ')}] holds ${product} elements but scores has ${length}`);
  }
  const a = axis === undefined ? -1 : checkNumber(fn, 'axis', axis, { integer: true });
  if (a < -dims.length || a >= dims.length) {
    throw new RangeError(`${fn}: axis ${a} is out of range for a ${dims.length}-D shape (use ${-dims.length}..${dims.length - 1})`);
  }
  const ax = a < 0 ? a + dims.length : a;
  const prod = (ds) => ds.reduce((p, d) => p * d, 1);
  return { outer: prod(dims.slice(0, ax)), n: dims[ax], inner: prod(dims.slice(ax + 1)), dims, ndim: dims.length, axis: a };
}

/** The loaded module: the public API of softmax-wasm. Create it with load(). */
export class Softmax {
  #mem;
  #m;
  #spec;
  #masked;
  #status;

  /** Internal: use load(). */
  constructor(wasmModule) {
    this.#m = wasmModule;
    this.#mem = new Memory(wasmModule);
    this.#spec = samplerSpec(wasmModule);
    this.#masked = Object.fromEntries(MASKED.map((k) => [k, wasmModule.Masked[k]]));
    const s = wasmModule.Status;
    this.#status = { allMasked: s.allMasked.value, noMemory: s.noMemory.value };
    /** true when the SIMD128 build runs (read from the module itself) */
    this.simd = wasmModule.simdBuild();
    // Methods work detached from the object: const { softmax } = sm; xs.map(sm.sigmoid).
    for (const name of ['softmax', 'logSoftmax', 'softmaxNaive', 'logSumExp', 'softmaxSteps', 'sigmoid', 'argmax', 'applyTokenBitmask', 'buffer', 'createSampler', 'sample', 'lastPosition']) {
      Object.defineProperty(this, name, { value: this[name].bind(this), writable: true, configurable: true });
    }
  }

  #fail(fn, status) {
    if (status === this.#status.allMasked) throw new RangeError(`${fn}: a slice of scores is all -Infinity (masked: 'throw')`);
    if (status === this.#status.noMemory) throw new RangeError(`${fn}: scores do not fit in wasm memory`);
    throw new Error(`${fn}: unexpected status ${status} from the core (a bug: please report it)`);
  }

  /** softmax, logSoftmax, softmaxNaive: a Float32Array of scores' length. */
  #map(fn, kernel, scores, opts, known) {
    const mem = this.#mem;
    mem.enter(fn);
    try {
      const o = readOptions(fn, opts, known);
      const input = mem.read(fn, scores);
      const n = input.n;
      const t = checkTemperature(fn, o.temperature);
      const l = layout(fn, n, o.shape, input.dims, o.axis);
      const masked = this.#masked[checkMasked(fn, o.masked)];
      const out = o.out;
      const outPlace = out === undefined ? undefined : checkOut(fn, mem, out, n);
      const dims = l.dims;
      // Where the result goes: into `out` itself when it lies in wasm memory,
      // else over the staged copy of scores. Scores in wasm memory that overlap
      // `out` without being it are copied first (as if read before writing).
      const outPtr = outPlace?.inHeap ? outPlace.ptr : -1;
      const overlap = input.how === 'heap' && outPtr >= 0 && input.ptr !== outPtr && input.ptr < outPtr + 4 * n && outPtr < input.ptr + 4 * n;
      const copyIn = input.how !== 'heap' || overlap;
      // A scores view that must stay as it is, with no `out` in wasm memory: the result goes to scratch.
      const yBytes = !copyIn && outPtr < 0 ? align8(4 * n) : 0;
      const xBytes = copyIn ? align8(4 * n) : 0;
      const p = mem.alloc(fn, xBytes + yBytes + 4 * dims.length + 8);
      if (copyIn) mem.write(fn, input, p);
      const x = copyIn ? p : input.ptr;
      const y = outPtr >= 0 ? outPtr : copyIn ? p : p + xBytes;
      const shapePtr = p + xBytes + yBytes;
      if (dims.length) this.#m.HEAP32.set(dims, shapePtr >> 2);
      const status = kernel(x, y, n, shapePtr, dims.length, l.axis, t, masked);
      if (status !== 0) this.#fail(fn, status);
      if (outPtr >= 0) {
        mem.checkGrown(fn, 'out', out);
        return out;
      }
      if (out === undefined) return this.#m.HEAPF32.slice(y >> 2, (y >> 2) + n);
      return mem.writeOut(fn, out, y, n);
    } finally {
      mem.leave();
    }
  }

  /** Probabilities along an axis: exp(x / T - max) / sum, the max trick always. */
  softmax(scores, opts) {
    return this.#map('softmax', this.#m.softmax, scores, opts, MAP_OPTIONS);
  }

  /** log(softmax), computed without taking the log of a rounded probability. */
  logSoftmax(scores, opts) {
    return this.#map('logSoftmax', this.#m.logSoftmax, scores, opts, MAP_OPTIONS);
  }

  /** The textbook exp(x) / sum exp(x) in float32, no max trick: overflows to NaN. */
  softmaxNaive(scores, opts) {
    return this.#map('softmaxNaive', this.#m.softmaxNaive, scores, opts, NAIVE_OPTIONS);
  }

  /** log(sum(exp(x / T))) per slice: a number for 1-D scores, else a Float32Array. */
  logSumExp(scores, opts) {
    const fn = 'logSumExp';
    const mem = this.#mem;
    mem.enter(fn);
    try {
      const o = readOptions(fn, opts, LSE_OPTIONS);
      const input = mem.read(fn, scores);
      const n = input.n;
      const t = checkTemperature(fn, o.temperature);
      const l = layout(fn, n, o.shape, input.dims, o.axis);
      const slices = l.outer * l.inner;
      const scalar = l.ndim === 1;
      let out;
      if (o.out !== undefined) {
        if (scalar) throw new TypeError(`${fn}: out is only for N-D scores (the result of 1-D scores is a number)`);
        checkOut(fn, mem, o.out, slices);
        out = o.out;
      } else if (!scalar) {
        out = new Float32Array(slices);
      }
      const dims = l.dims;
      const copyIn = input.how !== 'heap';
      const xBytes = copyIn ? align8(4 * n) : 0;
      const p = mem.alloc(fn, xBytes + 8 * slices + 4 * dims.length + 8);
      if (copyIn) mem.write(fn, input, p);
      const x = copyIn ? p : input.ptr;
      const y = p + xBytes;
      const shapePtr = y + 8 * slices;
      if (dims.length) this.#m.HEAP32.set(dims, shapePtr >> 2);
      const status = this.#m.logSumExp(x, y, n, shapePtr, dims.length, l.axis, t);
      if (status !== 0) this.#fail(fn, status);
      const values = this.#m.HEAPF64.subarray(y >> 3, (y >> 3) + slices);
      if (scalar) return values[0];
      if (o.out !== undefined) stillWhole(fn, 'out', out, slices, slices);
      out.set(values);
      return out;
    } finally {
      mem.leave();
    }
  }

  /** Each step of the stable softmax of a vector, for lessons. */
  softmaxSteps(scores, opts) {
    const fn = 'softmaxSteps';
    const mem = this.#mem;
    mem.enter(fn);
    try {
      const o = readOptions(fn, opts, STEPS_OPTIONS);
      const input = mem.read(fn, scores);
      if (input.dims !== undefined && input.dims.length !== 1) {
        throw new RangeError(`${fn}: scores must be a vector, got a tensor with dims [${input.dims.join(', ')}]`);
      }
      const t = checkTemperature(fn, o.temperature);
      const masked = this.#masked[checkMasked(fn, o.masked)];
      const n = input.n;
      const xBytes = align8(4 * n);
      const info = align8(n * 20);
      const p = mem.alloc(fn, xBytes + info + 24);
      mem.write(fn, input, p);
      const y = p + xBytes;
      const status = this.#m.softmaxSteps(p, n, t, masked, y, y + info);
      if (status !== 0) this.#fail(fn, status);
      const f32 = this.#m.HEAPF32;
      const [scaled, shifted, exps, probs, rawExps] = [0, 1, 2, 3, 4].map((i) => f32.slice((y >> 2) + i * n, (y >> 2) + (i + 1) * n));
      const [max, sum, rawSum] = this.#m.HEAPF64.subarray((y + info) >> 3, ((y + info) >> 3) + 3);
      return { scaled, max, shifted, exps, sum, probs, rawExps, rawSum };
    } finally {
      mem.leave();
    }
  }

  /** 1 / (1 + e^-z) in float32; equals softmax([z, 0])[0] to the bit. */
  sigmoid(z) {
    checkNumber('sigmoid', 'z', z, { allowNaN: true });
    return this.#m.sigmoid(z);
  }

  /** The first index of the maximum (NaN counts as the maximum). */
  argmax(scores) {
    const fn = 'argmax';
    const mem = this.#mem;
    mem.enter(fn);
    try {
      const input = mem.read(fn, scores);
      const n = input.n;
      if (n === 0) throw new RangeError(`${fn}: scores is empty`);
      let x = input.ptr;
      if (input.how !== 'heap') {
        x = mem.alloc(fn, 4 * n);
        mem.write(fn, input, x);
      }
      return this.#m.argmax(x, n);
    } finally {
      mem.leave();
    }
  }

  /**
   * In place: every entry of scores that the token bitmask forbids becomes
   * -Infinity (bit i & 31 of mask[i >> 5] allows token i; a tensor's last
   * dimension is the vocabulary, every row gets the mask). Returns scores.
   */
  applyTokenBitmask(scores, mask) {
    const fn = 'applyTokenBitmask';
    const mem = this.#mem;
    mem.enter(fn);
    try {
      const input = mem.read(fn, scores);
      const n = input.n;
      const vocab = input.dims === undefined ? n : input.dims[input.dims.length - 1];
      const rows = vocab === 0 ? 0 : n / vocab;
      if (mask === undefined) throw new TypeError(`${fn}: mask is missing (a Uint32Array or an Int32Array, bit i & 31 of word i >> 5 allows token i)`);
      const words = checkMask(fn, this.#m, mask, vocab)[0];
      const src = input.src;
      if (input.how === 'heap' || typedArrayKind(src) === 'Float32Array') {
        // The kernel (one pass), in place where scores lie in wasm memory, else over a staged copy.
        const w = align8(4 * words.length);
        const p = mem.alloc(fn, w + (input.how === 'heap' ? 0 : 4 * n) + 8);
        (typedArrayKind(words) === 'Int32Array' ? this.#m.HEAP32 : this.#m.HEAPU32).set(words, p >> 2);
        const x = input.how === 'heap' ? input.ptr : p + w;
        if (input.how !== 'heap') mem.write(fn, input, x);
        for (let r = 0; r < rows; r++) this.#m.applyTokenBitmask(x + 4 * r * vocab, vocab, p);
        if (input.how !== 'heap') src.set(this.#m.HEAPF32.subarray(x >> 2, (x >> 2) + n));
      } else {
        // Float64Array, arrays, Float16Array; float16 half bits: -Infinity is
        // 0xFC00. Into the caller's array itself (read copied a view of wasm
        // memory), which the mask's getters must have left whole.
        const dst = input.data ?? src;
        if (input.how !== 'array') stillWhole(fn, 'scores', dst, n);
        const minusInf = input.how === 'half' ? 0xfc00 : -Infinity;
        for (let i = 0; i < n; i++) if (!((words[(i % vocab) >>> 5] >>> (i % vocab & 31)) & 1)) dst[i] = minusInf;
      }
      return scores;
    } finally {
      mem.leave();
    }
  }

  /**
   * A Float32Array of n elements that lives in wasm memory: fill it with
   * scores and pass it to softmax & co. (also as `out`) to skip the copies in
   * and out. Valid until the next buffer() call or until wasm memory grows (a
   * call with more elements than any before); any other view of wasm memory
   * is rejected.
   */
  buffer(n) {
    checkInt('buffer', 'n', n, 0, MAX_ELEMENTS);
    const mem = this.#mem;
    mem.enter('buffer');
    try {
      return mem.buffer(n);
    } finally {
      mem.leave();
    }
  }

  /** The current size of the wasm memory in bytes (diagnostics: failing calls must not grow it). */
  get heapBytes() {
    return this.#mem.heapBytes;
  }

  /** How many samplers exist in this module (diagnostics: dispose() and GC free them). */
  get liveSamplers() {
    return this.#m.liveSamplers();
  }

  /** A seeded sampler over this module (sampler.js documents the options). */
  createSampler(opts) {
    return new Sampler(this.#mem, this.#spec, opts, 'createSampler');
  }

  /**
   * One index drawn by a throwaway sampler: createSampler(opts).sample(scores,
   * { mask }), opts.mask being the call's token bitmask.
   */
  sample(scores, opts) {
    // Read once, as one call (a getter that calls the library is rejected):
    // the sampler's options and the call's mask, apart.
    const mem = this.#mem;
    let o;
    mem.enter('sample');
    try {
      o = readOptions('sample', opts, [...this.#spec.names, 'mask']);
    } finally {
      mem.leave();
    }
    const { mask, ...rest } = o;
    const s = new Sampler(mem, this.#spec, rest, 'sample');
    try {
      return s.sample(scores, mask === undefined ? undefined : { mask });
    } finally {
      s.dispose();
    }
  }

  /** The last position of each batch row of a logits tensor (see scores.js). */
  lastPosition(tensor) {
    return lastPosition(tensor);
  }
}
