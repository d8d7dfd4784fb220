// softmax-wasm JavaScript API: loading, validation and marshalling over the
// C exports of cpp/bindings/embind.cpp. Environment specifics (how the
// .wasm bytes are read) come from index.js (browsers, workers, bundlers) or
// node.js (Node).
import { simd as detectSimd } from '../dist/wasm-feature-detect.js';
import { Sampler } from './sampler.js';

const MASKED = ['nan', 'zeros', 'uniform', 'throw'];
const STATUS_ALL_MASKED = 1;
const STATUS_NO_MEMORY = 5;
const MAP_OPTIONS = ['temperature', 'shape', 'axis', 'out', 'masked'];
const NO_DIMS = [];
const MAX_ELEMENTS = 2 ** 28; // 1 GiB of float32: wasm32 memory cannot hold two of more
const FILES = {
  simd: { glue: () => import('../dist/softmax-simd.js'), wasm: 'softmax-simd.wasm' },
  base: { glue: () => import('../dist/softmax-base.js'), wasm: 'softmax-base.wasm' },
};

const align8 = (bytes) => (bytes + 7) & ~7;
const describe = (v) =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : ArrayBuffer.isView(v) ? v.constructor.name : typeof v;

/** Rejects option names the function does not know: no silent no-ops. */
const NO_OPTIONS = Object.freeze({});

export function checkOptions(fn, opts, known) {
  if (opts === undefined) return NO_OPTIONS;
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw new TypeError(`${fn}: options must be an object, got ${describe(opts)}`);
  }
  for (const key in opts) {
    if (Object.hasOwn(opts, key) && !known.includes(key)) {
      throw new TypeError(`${fn}: unknown option '${key}' (known: ${known.join(', ')})`);
    }
  }
  return opts;
}

export function checkNumber(fn, name, v, { min = -Infinity, integer = false, allowNaN = false } = {}) {
  if (typeof v !== 'number') throw new TypeError(`${fn}: ${name} must be a number, got ${describe(v)}`);
  if (Number.isNaN(v)) {
    if (allowNaN) return v;
    throw new RangeError(`${fn}: ${name} must not be NaN`);
  }
  if (integer && !Number.isInteger(v)) throw new RangeError(`${fn}: ${name} must be an integer, got ${v}`);
  if (v < min) throw new RangeError(`${fn}: ${name} must be >= ${min}, got ${v}`);
  return v;
}

function checkTemperature(fn, t) {
  if (t === undefined) return 1;
  checkNumber(fn, 'temperature', t, { min: 0 });
  return t;
}

/** scores: number[] (no holes, numbers only), Float32Array or Float64Array. */
export function checkScores(fn, scores, name = 'scores') {
  if (scores instanceof Float32Array || scores instanceof Float64Array) {
    if (scores.length > MAX_ELEMENTS) throw new RangeError(`${fn}: ${name} has ${scores.length} elements, more than wasm memory holds`);
    return scores;
  }
  if (!Array.isArray(scores)) {
    throw new TypeError(
      `${fn}: ${name} must be an array of numbers, a Float32Array or a Float64Array, got ${describe(scores)}`,
    );
  }
  if (scores.length > MAX_ELEMENTS) throw new RangeError(`${fn}: ${name} has ${scores.length} elements, more than wasm memory holds`);
  for (let i = 0; i < scores.length; i++) {
    if (typeof scores[i] !== 'number') {
      throw new TypeError(`${fn}: ${name}[${i}] must be a number, got ${i in scores ? describe(scores[i]) : 'a hole'}`);
    }
  }
  return scores;
}

/** Returns [outer, n, inner] and the shape with the axis dropped. */
function layout(fn, length, shape, axis) {
  if (shape === undefined) {
    if (axis !== undefined) {
      checkNumber(fn, 'axis', axis, { integer: true });
      if (axis !== 0 && axis !== -1) throw new RangeError(`${fn}: axis ${axis} is out of range for 1-D scores (use 0 or -1, or pass shape)`);
    }
    return { outer: 1, n: length, inner: 1, dims: NO_DIMS, ndim: 1 };
  }
  if (!Array.isArray(shape) && !(ArrayBuffer.isView(shape) && !(shape instanceof DataView))) {
    throw new TypeError(`${fn}: shape must be an array of non-negative integers, got ${describe(shape)}`);
  }
  const dims = Array.from(shape);
  if (dims.length === 0) throw new RangeError(`${fn}: shape must have at least one dimension`);
  let product = 1;
  for (let i = 0; i < dims.length; i++) {
    const d = dims[i];
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 0 || d > 2 ** 31 - 1) {
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
  // dims: what the core is given (none for 1-D scores without a shape)
  return { outer: prod(dims.slice(0, ax)), n: dims[ax], inner: prod(dims.slice(ax + 1)), dims, ndim: dims.length };
}

function checkOut(fn, out, length) {
  if (out === undefined) return undefined;
  if (!(out instanceof Float32Array)) throw new TypeError(`${fn}: out must be a Float32Array, got ${describe(out)}`);
  if (out.length !== length) throw new RangeError(`${fn}: out has length ${out.length}, expected ${length}`);
  return out;
}

function checkMasked(fn, masked) {
  if (masked === undefined) return 0;
  const i = MASKED.indexOf(masked);
  if (i < 0) throw new RangeError(`${fn}: masked must be one of ${MASKED.map((m) => `'${m}'`).join(', ')}, got ${String(masked)}`);
  return i;
}

/** The loaded module: the public API of softmax-wasm. */
export class Softmax {
  #m;
  #scratch = 0;
  #scratchBytes = 0;
  #buffer = 0;
  #views = new WeakMap(); // buffer() views -> their length, to tell a detached one

  constructor(wasmModule, simd) {
    this.#m = wasmModule;
    /** true when the SIMD128 build runs */
    this.simd = simd;
  }

  /** A scratch block of at least `bytes` bytes in wasm memory (kept between calls). */
  #alloc(fn, bytes) {
    if (bytes <= this.#scratchBytes) return this.#scratch;
    // malloc takes a 32-bit size: larger requests would wrap, not fail.
    if (bytes > 2 ** 31 - 2 ** 16) throw new RangeError(`${fn}: ${bytes} bytes do not fit in wasm memory`);
    const size = Math.max(bytes, 2 * this.#scratchBytes, 4096);
    const p = this.#m._malloc(size);
    if (p === 0) throw new RangeError(`${fn}: ${bytes} bytes do not fit in wasm memory`);
    this.#m._free(this.#scratch);
    this.#scratch = p;
    this.#scratchBytes = size;
    return p;
  }

  /**
   * Puts scores (and shape) in wasm memory; returns pointers. A view from
   * buffer() is used where it lies, without a copy.
   */
  #stage(fn, scores, dims, extraBytes) {
    const heap = this.#m.HEAPF32;
    const inPlace = scores.buffer === heap.buffer;
    // Read before #alloc: if it grows wasm memory, the view detaches (its
    // byteOffset and length read 0) but its data stays at the same address.
    const x = inPlace ? scores.byteOffset : 0;
    const xBytes = inPlace ? 0 : scores.length * 4;
    const yOff = align8(xBytes);
    const shapeOff = yOff + extraBytes;
    const p = this.#alloc(fn, shapeOff + dims.length * 4 + 8);
    if (!inPlace) {
      const h = this.#m.HEAPF32;
      const at = p >> 2;
      if (scores.length <= 16) for (let i = 0; i < scores.length; i++) h[at + i] = scores[i];
      else h.set(scores, at);
    }
    if (dims.length) this.#m.HEAP32.set(dims, (p + shapeOff) >> 2);
    return { x: inPlace ? x : p, y: p + yOff, shape: p + shapeOff, copied: !inPlace };
  }

  #fail(fn, status) {
    if (status === STATUS_ALL_MASKED) {
      throw new RangeError(`${fn}: a slice of scores is all -Infinity (masked: 'throw')`);
    }
    if (status === STATUS_NO_MEMORY) throw new RangeError(`${fn}: scores do not fit in wasm memory`);
    throw new Error(`${fn}: internal status ${status}`); // the JS checks above make this unreachable
  }

  #map(fn, exported, scores, opts) {
    const o = checkOptions(fn, opts, MAP_OPTIONS);
    checkScores(fn, scores);
    this.#live(fn, 'scores', scores);
    const n = scores.length;
    const t = checkTemperature(fn, o.temperature);
    const l = layout(fn, n, o.shape, o.axis);
    const masked = checkMasked(fn, o.masked);
    if (o.out instanceof Float32Array) this.#live(fn, 'out', o.out);
    const out = checkOut(fn, o.out, n);
    const dims = l.dims;
    // Where the result goes: into `out` itself when it is a buffer() view, else
    // over the staged copy of scores (in place), else (scores is a view that
    // must stay as it is) into scratch.
    const outInPlace = out !== undefined && out.buffer === this.#m.HEAPF32.buffer;
    const outPtr = outInPlace ? out.byteOffset : 0; // before #stage, as in #stage
    const p = this.#stage(fn, scores, dims, outInPlace || scores.buffer !== this.#m.HEAPF32.buffer ? 0 : n * 4);
    const y = outInPlace ? outPtr : p.copied ? p.x : p.y;
    const status = this.#m[exported](p.x, y, n, p.shape, dims.length, o.axis ?? -1, t, masked);
    if (status !== 0) this.#fail(fn, status);
    if (outInPlace) return out;
    const heap = this.#m.HEAPF32;
    const at = y >> 2;
    if (out === undefined) return heap.slice(at, at + n);
    if (n <= 16) for (let i = 0; i < n; i++) out[i] = heap[at + i]; // cheaper than a subarray view
    else out.set(heap.subarray(at, at + n));
    return out;
  }

  /**
   * A Float32Array of n elements that lives in wasm memory: fill it with
   * scores and pass it to softmax & co. (also as `out`) to skip the copies in
   * and out. Valid until the next buffer() call or until wasm memory grows
   * (a call with more elements than any before); a view that became invalid
   * is detected and rejected.
   */
  buffer(n) {
    checkNumber('buffer', 'n', n, { min: 0, integer: true });
    if (n > MAX_ELEMENTS) throw new RangeError(`buffer: n = ${n} is more than wasm memory holds`);
    this.#m._free(this.#buffer);
    this.#buffer = 0;
    // Room for the calls that use the buffer, so that they need not grow memory.
    this.#alloc('buffer', n * 4 + 4096);
    const p = this.#m._malloc(Math.max(4, n * 4));
    if (p === 0) throw new RangeError(`buffer: ${n} elements do not fit in wasm memory`);
    this.#buffer = p;
    const view = new Float32Array(this.#m.HEAPF32.buffer, p, n);
    this.#views.set(view, n);
    return view;
  }

  /** Rejects a buffer() view that wasm memory growth detached (it reads as empty). */
  #live(fn, name, view) {
    if (view.length !== 0) return; // a detached view reads as empty
    const n = this.#views.get(view);
    if (n !== undefined && view.length !== n) {
      throw new RangeError(`${fn}: ${name} is a buffer() view that wasm memory growth invalidated; call buffer() again`);
    }
  }

  /**
   * The current size of the wasm memory in bytes (read-only). Not part of the
   * contract: for tests and diagnostics (failing calls must not grow the heap).
   */
  get heapBytes() {
    return this.#m.HEAPU8.length;
  }

  /** Probabilities along an axis: exp(x / T - max) / sum, the max trick always. */
  softmax(scores, opts) {
    return this.#map('softmax', '_smx_softmax', scores, opts);
  }

  /** log(softmax), computed without taking the log of a rounded probability. */
  logSoftmax(scores, opts) {
    return this.#map('logSoftmax', '_smx_log_softmax', scores, opts);
  }

  /** The textbook exp(x) / sum exp(x) in float32, no max trick: overflows to NaN. */
  softmaxNaive(scores, opts) {
    return this.#map('softmaxNaive', '_smx_softmax_naive', scores, opts);
  }

  /** log(sum(exp(x / T))) per slice: a number for 1-D scores, else a Float32Array. */
  logSumExp(scores, opts) {
    const fn = 'logSumExp';
    const o = checkOptions(fn, opts, ['temperature', 'shape', 'axis', 'out']);
    checkScores(fn, scores);
    this.#live(fn, 'scores', scores);
    if (o.out instanceof Float32Array) this.#live(fn, 'out', o.out);
    const n = scores.length;
    const t = checkTemperature(fn, o.temperature);
    const l = layout(fn, n, o.shape, o.axis);
    const slices = l.outer * l.inner;
    const scalar = l.ndim === 1;
    if (scalar && o.out !== undefined) throw new TypeError(`${fn}: out is only for N-D scores (the result of 1-D scores is a number)`);
    const out = scalar ? undefined : checkOut(fn, o.out, slices) ?? new Float32Array(slices);
    const dims = l.dims;
    const p = this.#stage(fn, scores, dims, slices * 8);
    const status = this.#m._smx_log_sum_exp(p.x, p.y, n, p.shape, dims.length, o.axis ?? -1, t);
    if (status !== 0) this.#fail(fn, status);
    const values = this.#m.HEAPF64.subarray(p.y >> 3, (p.y >> 3) + slices);
    if (scalar) return values[0];
    out.set(values);
    return out;
  }

  /** Each step of the stable softmax of a vector, for lessons. */
  softmaxSteps(scores, opts) {
    const fn = 'softmaxSteps';
    const o = checkOptions(fn, opts, ['temperature', 'masked']);
    checkScores(fn, scores);
    this.#live(fn, 'scores', scores);
    const t = checkTemperature(fn, o.temperature);
    const masked = checkMasked(fn, o.masked);
    const n = scores.length;
    const info = align8(n * 20);
    const p = this.#stage(fn, scores, [], info + 24);
    const status = this.#m._smx_softmax_steps(p.x, n, t, masked, p.y, p.y + info);
    if (status !== 0) this.#fail(fn, status);
    const [scaled, shifted, exps, probs, rawExps] = [0, 1, 2, 3, 4].map((i) =>
      this.#m.HEAPF32.slice((p.y >> 2) + i * n, (p.y >> 2) + (i + 1) * n),
    );
    const [max, sum, rawSum] = this.#m.HEAPF64.subarray((p.y + info) >> 3, ((p.y + info) >> 3) + 3);
    return { scaled, max, shifted, exps, sum, probs, rawExps, rawSum };
  }

  /** 1 / (1 + e^-z) in float32; equals softmax([z, 0])[0] to the bit. */
  sigmoid(z) {
    checkNumber('sigmoid', 'z', z, { allowNaN: true });
    return this.#m._smx_sigmoid(z);
  }

  /** The first index of the maximum (NaN counts as the maximum). */
  argmax(scores) {
    checkScores('argmax', scores);
    this.#live('argmax', 'scores', scores);
    if (scores.length === 0) throw new RangeError('argmax: scores is empty');
    const p = this.#stage('argmax', scores, [], 0);
    return this.#m._smx_argmax(p.x, scores.length) >>> 0;
  }

  /** A seeded sampler over this module (web/src/sampler.js documents the options). */
  createSampler(opts) {
    return new Sampler(this.#m, (fn, bytes) => this.#alloc(fn, bytes), opts);
  }

  /** One index drawn by a throwaway sampler: createSampler(opts).sample(scores). */
  sample(scores, opts) {
    const s = new Sampler(this.#m, (fn, bytes) => this.#alloc(fn, bytes), opts, 'sample');
    try {
      return s.sample(scores);
    } finally {
      s.dispose();
    }
  }
}

const compiled = new Map(); // variant -> Promise<WebAssembly.Module>: compiled once per page
const loaded = new Map(); // variant -> Promise<Softmax>, for load() without a custom source

/**
 * Builds load() for one environment. readWasm(url) resolves to the bytes of a
 * .wasm file (fetch in browsers, fs in Node).
 */
export function makeLoad(readWasm) {
  return async function load(opts) {
    const o = checkOptions('load', opts, ['simd', 'wasmBinary', 'module', 'locateFile']);
    const simdOpt = o.simd ?? 'auto';
    if (simdOpt !== 'auto' && simdOpt !== true && simdOpt !== false) {
      throw new TypeError(`load: simd must be 'auto', true or false, got ${String(simdOpt)}`);
    }
    const hasSimd = await detectSimd();
    if (simdOpt === true && !hasSimd) throw new RangeError('load: simd: true, but this engine has no WebAssembly SIMD');
    const variant = simdOpt === false || !hasSimd ? 'base' : 'simd';
    const custom = o.wasmBinary !== undefined || o.module !== undefined || o.locateFile !== undefined;
    if (custom) return instantiate(variant, customSource(variant, o, readWasm));
    if (!loaded.has(variant)) {
      if (!compiled.has(variant)) {
        const url = new URL(`../dist/${FILES[variant].wasm}`, import.meta.url);
        compiled.set(variant, Promise.resolve(readWasm(url)).then((bytes) => WebAssembly.compile(bytes)));
      }
      const p = instantiate(variant, compiled.get(variant));
      p.catch(() => {
        loaded.delete(variant);
        compiled.delete(variant);
      });
      loaded.set(variant, p);
    }
    return loaded.get(variant);
  };
}

function customSource(variant, o, readWasm) {
  if (o.module !== undefined) {
    if (!(o.module instanceof WebAssembly.Module)) throw new TypeError(`load: module must be a WebAssembly.Module, got ${describe(o.module)}`);
    return Promise.resolve(o.module);
  }
  if (o.wasmBinary !== undefined) {
    if (!(o.wasmBinary instanceof ArrayBuffer) && !ArrayBuffer.isView(o.wasmBinary)) {
      throw new TypeError(`load: wasmBinary must be an ArrayBuffer or a Uint8Array, got ${describe(o.wasmBinary)}`);
    }
    return WebAssembly.compile(o.wasmBinary);
  }
  if (typeof o.locateFile !== 'function') throw new TypeError(`load: locateFile must be a function, got ${describe(o.locateFile)}`);
  const where = o.locateFile(FILES[variant].wasm);
  return Promise.resolve(readWasm(new URL(String(where), import.meta.url))).then((b) => WebAssembly.compile(b));
}

async function instantiate(variant, modulePromise) {
  const wasmModule = await modulePromise;
  const { default: create } = await FILES[variant].glue();
  // The glue's promise never settles if instantiation fails inside
  // instantiateWasm, so that failure rejects load() through `failed`.
  let fail;
  const failed = new Promise((_, reject) => (fail = reject));
  const m = await Promise.race([
    create({
      instantiateWasm(imports, done) {
        WebAssembly.instantiate(wasmModule, imports).then((instance) => done(instance, wasmModule), fail);
        return {};
      },
    }),
    failed,
  ]);
  return new Softmax(m, variant === 'simd');
}
