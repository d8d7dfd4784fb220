// Sampler: seeded token sampling over the smx_sampler_* C exports
// (cpp/bindings/embind.cpp -> cpp/include/smx/sampler.h, which documents the
// exact semantics). This file validates every argument, stages typed arrays in
// wasm memory and turns status codes into errors that name the argument.
// Create one with sm.createSampler(opts) (web/src/api.js).
import { checkNumber, checkOptions, checkScores } from './api.js';

// Step names, indexed by their smx::Step code.
const STEPS = [
  'temperature', 'topK', 'topP', 'minP', 'typicalP',
  'topNSigma', 'xtc', 'mirostat', 'dynatemp', 'epsilonCutoff', 'etaCutoff', 'dry', 'noRepeatNgram',
];
// smx::kOrderHf and smx::kOrderLlamaCpp (cpp/include/smx/sampler.h explains the places of the steps).
const ORDERS = {
  hf: [
    'noRepeatNgram', 'dry', 'temperature', 'dynatemp', 'topNSigma', 'topK', 'topP', 'minP', 'typicalP',
    'epsilonCutoff', 'etaCutoff', 'xtc', 'mirostat',
  ],
  'llama.cpp': [
    'noRepeatNgram', 'dry', 'topNSigma', 'topK', 'typicalP', 'topP', 'minP', 'epsilonCutoff', 'etaCutoff',
    'xtc', 'temperature', 'dynatemp', 'mirostat',
  ],
};
// The options of issue 8, in the order of the Float64Array that configure reads
// (enum Extra in cpp/bindings/embind.cpp), then the DRY breaker count and ids.
const EXTRA = [
  'topNSigma', 'xtcProbability', 'xtcThreshold', 'mirostat', 'mirostatTau', 'mirostatEta',
  'dynatempRange', 'dynatempExponent', 'epsilonCutoff', 'etaCutoff', 'dryMultiplier', 'dryBase',
  'dryAllowedLength', 'dryPenaltyLastN', 'noRepeatNgramSize',
];
const OPTIONS = [
  'seed', 'temperature', 'topK', 'topP', 'minP', 'typicalP', 'minKeep', 'logitBias',
  'repetitionPenalty', 'frequencyPenalty', 'presencePenalty', 'penaltyLastN', 'history', 'order',
  ...EXTRA, 'drySequenceBreakers',
];
const UINT32_MAX = 2 ** 32 - 1;
const INT32_MAX = 2 ** 31 - 1;
const MAX_ELEMENTS = 2 ** 28;
const STATUS = { ok: 0, empty: 1, allMasked: 2, nan: 3, badOption: 4, badToken: 5, noMemory: 6 };

const align8 = (bytes) => (bytes + 7) & ~7;
const describe = (v) =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : ArrayBuffer.isView(v) ? v.constructor.name : typeof v;

// Frees the wasm side of samplers that were never disposed.
const registry =
  typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((handle) => handle.delete()) : undefined;

function checkRange(fn, name, v, lo, hi, loOpen, what) {
  checkNumber(fn, name, v);
  if ((loOpen ? !(v > lo) : !(v >= lo)) || !(v <= hi)) {
    throw new RangeError(`${fn}: ${name} must be in ${what}, got ${v}`);
  }
  return v;
}

function checkFinite(fn, name, v) {
  checkNumber(fn, name, v);
  if (!Number.isFinite(v)) throw new RangeError(`${fn}: ${name} must be finite, got ${v}`);
  return v;
}

/** A finite number >= min that stays finite in float32 when float32 is set. */
function checkAtLeast(fn, name, v, min, float32 = false) {
  checkFinite(fn, name, v);
  if (!(v >= min)) throw new RangeError(`${fn}: ${name} must be >= ${min}, got ${v}`);
  if (float32 && !Number.isFinite(Math.fround(v))) throw new RangeError(`${fn}: ${name} must fit in float32, got ${v}`);
  return v;
}

/** A cutoff in [0, 1). */
function checkCutoff(fn, name, v) {
  checkNumber(fn, name, v);
  if (!(v >= 0 && v < 1)) throw new RangeError(`${fn}: ${name} must be in [0, 1), got ${v}`);
  return v;
}

function checkInt(fn, name, v, min, max) {
  checkNumber(fn, name, v, { min, integer: true });
  if (v > max) throw new RangeError(`${fn}: ${name} must be <= ${max}, got ${v}`);
  return v;
}

/** A seed as [low, high] uint32 halves: a non-negative safe integer or a BigInt < 2^64. */
function checkSeed(fn, seed) {
  if (typeof seed === 'bigint') {
    if (seed < 0n || seed >= 1n << 64n) throw new RangeError(`${fn}: seed must be in [0, 2^64), got ${seed}`);
    return seed;
  }
  if (typeof seed !== 'number') {
    throw new TypeError(`${fn}: seed must be a non-negative integer or a BigInt, got ${describe(seed)}`);
  }
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`${fn}: seed must be a non-negative safe integer or a BigInt, got ${seed}`);
  }
  return BigInt(seed);
}

function randomSeed(fn) {
  const c = globalThis.crypto;
  if (!c || typeof c.getRandomValues !== 'function') {
    throw new Error(`${fn}: no crypto.getRandomValues in this environment; pass a seed`);
  }
  const [lo, hi] = c.getRandomValues(new Uint32Array(2));
  return (BigInt(hi) << 32n) | BigInt(lo);
}

function checkTokens(fn, name, tokens) {
  const ok = Array.isArray(tokens) || tokens instanceof Int32Array || tokens instanceof Uint32Array;
  if (!ok) throw new TypeError(`${fn}: ${name} must be an array of token indices, got ${describe(tokens)}`);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (typeof t !== 'number') throw new TypeError(`${fn}: ${name}[${i}] must be a number, got ${describe(t)}`);
    if (!Number.isInteger(t) || t < 0 || t > INT32_MAX) {
      throw new RangeError(`${fn}: ${name}[${i}] must be a token index (an integer in [0, 2^31)), got ${t}`);
    }
  }
  return Int32Array.from(tokens);
}

/** logitBias: { index: bias } or Map<index, bias>; bias finite or -Infinity (a ban). */
function checkBias(fn, bias) {
  if (bias === undefined) return new Map();
  const entries =
    bias instanceof Map
      ? [...bias.entries()]
      : bias !== null && typeof bias === 'object' && !Array.isArray(bias) && !ArrayBuffer.isView(bias)
        ? Object.entries(bias)
        : undefined;
  if (!entries) throw new TypeError(`${fn}: logitBias must be an object or a Map of index -> bias, got ${describe(bias)}`);
  const out = new Map();
  for (const [key, v] of entries) {
    const i = typeof key === 'string' && /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : key;
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i > INT32_MAX) {
      throw new RangeError(`${fn}: logitBias key ${JSON.stringify(String(key))} is not a token index`);
    }
    if (typeof v !== 'number') throw new TypeError(`${fn}: logitBias[${i}] must be a number, got ${describe(v)}`);
    if (!(Number.isFinite(v) || v === -Infinity)) {
      throw new RangeError(`${fn}: logitBias[${i}] must be finite or -Infinity (a ban), got ${v}`);
    }
    out.set(i, v);
  }
  return out;
}

function checkOrder(fn, order, o) {
  let steps;
  if (order === undefined) steps = ORDERS.hf;
  else if (typeof order === 'string') {
    steps = ORDERS[order];
    if (!steps) throw new RangeError(`${fn}: order must be 'hf', 'llama.cpp' or an array of step names, got '${order}'`);
  } else if (Array.isArray(order)) {
    steps = order;
    const seen = new Set();
    for (let i = 0; i < steps.length; i++) {
      if (!STEPS.includes(steps[i])) {
        throw new RangeError(`${fn}: order[${i}] must be one of ${STEPS.map((s) => `'${s}'`).join(', ')}, got ${String(steps[i])}`);
      }
      if (seen.has(steps[i])) throw new RangeError(`${fn}: order lists '${steps[i]}' twice`);
      seen.add(steps[i]);
    }
  } else {
    throw new TypeError(`${fn}: order must be 'hf', 'llama.cpp' or an array of step names, got ${describe(order)}`);
  }
  const enabled = {
    // With dynatempRange > 0 the dynatemp step applies the temperature.
    temperature: o.temperature !== 1 && o.dynatempRange === 0, topK: o.topK !== 0, topP: o.topP !== 1, minP: o.minP !== 0, typicalP: o.typicalP !== 1,
    topNSigma: o.topNSigma > 0, xtc: o.xtcProbability > 0, mirostat: o.mirostat !== 0, dynatemp: o.dynatempRange > 0,
    epsilonCutoff: o.epsilonCutoff > 0, etaCutoff: o.etaCutoff > 0, dry: o.dryMultiplier > 0, noRepeatNgram: o.noRepeatNgramSize > 0,
  };
  for (const s of STEPS) {
    if (enabled[s] && !steps.includes(s)) throw new RangeError(`${fn}: order lacks '${s}', but ${s} is set`);
  }
  return steps.map((s) => STEPS.indexOf(s));
}

/** Validates createSampler's options; returns them normalised (defaults filled in). */
function normalise(fn, opts) {
  const o = checkOptions(fn, opts, OPTIONS);
  const n = {
    temperature: o.temperature === undefined ? 1 : checkNumber(fn, 'temperature', o.temperature, { min: 0 }),
    topK: o.topK === undefined ? 0 : Math.min(checkInt(fn, 'topK', o.topK, 0, Number.MAX_SAFE_INTEGER), UINT32_MAX),
    topP: o.topP === undefined ? 1 : checkRange(fn, 'topP', o.topP, 0, 1, true, '(0, 1]'),
    minP: o.minP === undefined ? 0 : checkRange(fn, 'minP', o.minP, 0, 1, false, '[0, 1]'),
    typicalP: o.typicalP === undefined ? 1 : checkRange(fn, 'typicalP', o.typicalP, 0, 1, true, '(0, 1]'),
    minKeep: o.minKeep === undefined ? 1 : checkInt(fn, 'minKeep', o.minKeep, 1, UINT32_MAX),
    repetitionPenalty: o.repetitionPenalty === undefined ? 1 : checkFinite(fn, 'repetitionPenalty', o.repetitionPenalty),
    frequencyPenalty: o.frequencyPenalty === undefined ? 0 : checkFinite(fn, 'frequencyPenalty', o.frequencyPenalty),
    presencePenalty: o.presencePenalty === undefined ? 0 : checkFinite(fn, 'presencePenalty', o.presencePenalty),
    penaltyLastN: o.penaltyLastN === undefined ? 64 : checkInt(fn, 'penaltyLastN', o.penaltyLastN, -1, INT32_MAX),
    topNSigma: o.topNSigma === undefined ? 0 : checkAtLeast(fn, 'topNSigma', o.topNSigma, 0),
    xtcProbability: o.xtcProbability === undefined ? 0 : checkRange(fn, 'xtcProbability', o.xtcProbability, 0, 1, false, '[0, 1]'),
    xtcThreshold: o.xtcThreshold === undefined ? 0.1 : checkRange(fn, 'xtcThreshold', o.xtcThreshold, 0, 1, false, '[0, 1]'),
    mirostat: o.mirostat === undefined ? 0 : checkInt(fn, 'mirostat', o.mirostat, 0, 2),
    mirostatTau: o.mirostatTau === undefined ? 5 : checkAtLeast(fn, 'mirostatTau', o.mirostatTau, 0),
    mirostatEta: o.mirostatEta === undefined ? 0.1 : checkAtLeast(fn, 'mirostatEta', o.mirostatEta, 0),
    dynatempRange: o.dynatempRange === undefined ? 0 : checkAtLeast(fn, 'dynatempRange', o.dynatempRange, 0),
    dynatempExponent: o.dynatempExponent === undefined ? 1 : checkAtLeast(fn, 'dynatempExponent', o.dynatempExponent, 0),
    epsilonCutoff: o.epsilonCutoff === undefined ? 0 : checkCutoff(fn, 'epsilonCutoff', o.epsilonCutoff),
    etaCutoff: o.etaCutoff === undefined ? 0 : checkCutoff(fn, 'etaCutoff', o.etaCutoff),
    dryMultiplier: o.dryMultiplier === undefined ? 0 : checkAtLeast(fn, 'dryMultiplier', o.dryMultiplier, 0, true),
    dryBase: o.dryBase === undefined ? 1.75 : checkAtLeast(fn, 'dryBase', o.dryBase, 1, true),
    dryAllowedLength: o.dryAllowedLength === undefined ? 2 : checkInt(fn, 'dryAllowedLength', o.dryAllowedLength, 0, INT32_MAX),
    dryPenaltyLastN: o.dryPenaltyLastN === undefined ? -1 : checkInt(fn, 'dryPenaltyLastN', o.dryPenaltyLastN, -1, INT32_MAX),
    noRepeatNgramSize: o.noRepeatNgramSize === undefined ? 0 : checkInt(fn, 'noRepeatNgramSize', o.noRepeatNgramSize, 0, UINT32_MAX),
  };
  if (!(n.repetitionPenalty > 0)) throw new RangeError(`${fn}: repetitionPenalty must be > 0, got ${n.repetitionPenalty}`);
  if (n.dynatempRange > 0 && !Number.isFinite(n.temperature)) {
    throw new RangeError(`${fn}: dynatempRange needs a finite temperature, got temperature ${n.temperature}`);
  }
  n.drySequenceBreakers =
    o.drySequenceBreakers === undefined ? new Int32Array(0) : checkTokens(fn, 'drySequenceBreakers', o.drySequenceBreakers);
  n.order = checkOrder(fn, o.order, n);
  n.logitBias = checkBias(fn, o.logitBias);
  n.history = o.history === undefined ? new Int32Array(0) : checkTokens(fn, 'history', o.history);
  n.seed = o.seed === undefined ? undefined : checkSeed(fn, o.seed);
  return n;
}

/**
 * The wasm side of a Sampler: a handle over the C exports smx_sampler_* of
 * cpp/bindings/embind.cpp, with the method names the Sampler class uses.
 */
class Handle {
  #m;
  #p;

  constructor(m) {
    this.#m = m;
    this.#p = m._smx_sampler_new();
    if (this.#p === 0) throw new RangeError('createSampler: no wasm memory left for a sampler');
  }

  configure(...a) { return this.#m._smx_sampler_configure(this.#p, ...a); }
  reset(lo, hi) { this.#m._smx_sampler_reset(this.#p, lo, hi); }
  mirostatMu() { return this.#m._smx_sampler_mirostat_mu(this.#p); }
  setLogitBias(index, bias, count) { return this.#m._smx_sampler_set_logit_bias(this.#p, index, bias, count); }
  seed(lo, hi) { this.#m._smx_sampler_seed(this.#p, lo, hi); }
  accept(tokens, count) { return this.#m._smx_sampler_accept(this.#p, tokens, count); }
  clearHistory() { this.#m._smx_sampler_clear_history(this.#p); }
  sample(x, n) { return this.#m._smx_sampler_sample(this.#p, x, n); }
  sampleMany(x, n, count, out) { return this.#m._smx_sampler_sample_many(this.#p, x, n, count, out); }
  sampleBatch(x, rows, n, out) { return this.#m._smx_sampler_sample_batch(this.#p, x, rows, n, out); }
  probs(x, n, out) { return this.#m._smx_sampler_probs(this.#p, x, n, out); }
  logprobs(...a) { return this.#m._smx_sampler_logprobs(this.#p, ...a); }
  errorIndex() { return this.#m._smx_sampler_error_index(this.#p); }

  /** Frees the C++ sampler; idempotent. */
  delete() {
    if (this.#p !== 0) this.#m._smx_sampler_delete(this.#p);
    this.#p = 0;
  }
}

/**
 * A seeded sampler. Its wasm side lives until dispose() (or [Symbol.dispose],
 * or garbage collection as a last resort).
 */
export class Sampler {
  #m;
  #alloc;
  #h; // the Handle, undefined once disposed
  #bias;
  #seed;
  #options;

  /** Internal: use sm.createSampler(opts). alloc(fn, bytes) returns scratch wasm memory. */
  constructor(wasmModule, alloc, opts, fn = 'createSampler') {
    const o = normalise(fn, opts);
    this.#m = wasmModule;
    this.#alloc = alloc;
    this.#bias = o.logitBias;
    const h = new Handle(wasmModule);
    try {
      // order (int32, 64 bytes), then the Float64Array of the extra options.
      const breakers = o.drySequenceBreakers;
      const p = alloc(fn, 64 + 8 * (EXTRA.length + 1 + breakers.length));
      this.#m.HEAP32.set(o.order, p >> 2);
      const extra = this.#m.HEAPF64.subarray((p + 64) >> 3, ((p + 64) >> 3) + EXTRA.length + 1 + breakers.length);
      EXTRA.forEach((key, i) => (extra[i] = o[key]));
      extra[EXTRA.length] = breakers.length;
      extra.set(breakers, EXTRA.length + 1);
      const status = h.configure(
        o.temperature, o.topK, o.topP, o.minP, o.typicalP, o.minKeep,
        o.repetitionPenalty, o.frequencyPenalty, o.presencePenalty, o.penaltyLastN, p, o.order.length, p + 64,
      );
      if (status !== STATUS.ok) throw new Error(`${fn}: internal status ${status} from configure`);
      const keys = Uint32Array.from(o.logitBias.keys());
      const p2 = alloc(fn, 8 * keys.length + 8);
      this.#m.HEAPU32.set(keys, p2 >> 2);
      this.#m.HEAPF32.set(Float32Array.from(o.logitBias.values()), (p2 >> 2) + keys.length);
      const sb = h.setLogitBias(p2, p2 + 4 * keys.length, keys.length);
      if (sb !== STATUS.ok) throw new Error(`${fn}: internal status ${sb} from setLogitBias`);
      this.#h = h;
      this.#accept(fn, o.history);
      this.#reseed(o.seed ?? randomSeed(fn));
    } catch (e) {
      this.#h = undefined;
      h.delete();
      throw e;
    }
    const numbers = {};
    for (const key of OPTIONS) if (typeof o[key] === 'number') numbers[key] = o[key];
    this.#options = Object.freeze({
      ...numbers,
      drySequenceBreakers: Object.freeze(Array.from(o.drySequenceBreakers)),
      order: Object.freeze(o.order.map((i) => STEPS[i])),
    });
    registry?.register(this, h, this);
  }

  /** The seed in use, as a BigInt (the one given, or the random one drawn). */
  get seed() {
    return this.#seed;
  }

  /** The options in use, defaults filled in (order as step names). */
  get options() {
    return this.#options;
  }

  /** Mirostat's state mu (2 * mirostatTau after creation and reset(); updated after every draw). */
  get mirostatMu() {
    return this.#live('mirostatMu').mirostatMu();
  }

  /** true after dispose(). */
  get disposed() {
    return this.#h === undefined;
  }

  #live(fn) {
    if (this.#h === undefined) throw new TypeError(`Sampler.${fn}: the sampler is disposed`);
    return this.#h;
  }

  #reseed(seed) {
    this.#seed = seed;
    this.#h.seed(Number(seed & 0xffffffffn), Number(seed >> 32n));
  }

  #accept(fn, tokens) {
    if (tokens.length === 0) return;
    const p = this.#alloc(fn, tokens.length * 4 + 8);
    this.#m.HEAP32.set(tokens, p >> 2);
    const status = this.#h.accept(p, tokens.length);
    if (status !== STATUS.ok) this.#fail(fn, status, 0);
  }

  /** Scores into wasm memory (a buffer() view is used where it lies); outBytes of room after them. */
  #stage(fn, scores, outBytes) {
    checkScores(`Sampler.${fn}`, scores);
    const n = scores.length;
    if (n > MAX_ELEMENTS) throw new RangeError(`Sampler.${fn}: scores has ${n} elements, more than wasm memory holds`);
    const inPlace = scores instanceof Float32Array && scores.buffer === this.#m.HEAPF32.buffer;
    const at = inPlace ? scores.byteOffset : 0;
    const xBytes = inPlace ? 0 : align8(n * 4);
    const p = this.#alloc(`Sampler.${fn}`, xBytes + outBytes + 8);
    if (!inPlace) this.#m.HEAPF32.set(scores, p >> 2);
    return { x: inPlace ? at : p, out: p + xBytes, n };
  }

  #fail(fn, status, n, cols = n) {
    const where = `Sampler.${fn}`;
    switch (status) {
      case STATUS.empty:
        throw new RangeError(`${where}: scores is empty`);
      case STATUS.allMasked:
        throw new RangeError(
          `${where}: every entry of scores is -Infinity (masked${this.#bias.size ? ' or banned by logitBias' : ''}${this.#options?.noRepeatNgramSize ? ' or banned by noRepeatNgramSize' : ''})`,
        );
      case STATUS.nan: {
        const i = this.#h.errorIndex();
        const at = cols !== n ? ` (row ${Math.floor(i / cols)}, entry ${i % cols})` : '';
        throw new RangeError(`${where}: scores[${i}]${at} is NaN`);
      }
      case STATUS.badToken: {
        const t = this.#h.errorIndex();
        if (fn === 'accept') throw new RangeError(`${where}: tokens must be non-negative integers`);
        const src = this.#bias.has(t) ? 'logitBias index' : 'token in the penalty history';
        throw new RangeError(`${where}: ${src} ${t} is outside the vocabulary (${cols} entries)`);
      }
      case STATUS.noMemory:
        throw new RangeError(`${where}: scores do not fit in wasm memory`);
      default:
        throw new Error(`${where}: internal status ${status}`);
    }
  }

  /** One index drawn from probs(scores). */
  sample(scores) {
    const h = this.#live('sample');
    const p = this.#stage('sample', scores, 0);
    const r = h.sample(p.x, p.n);
    if (r < 0) this.#fail('sample', -r, p.n);
    return r;
  }

  /** n indices drawn independently from probs(scores), computed once. */
  sampleMany(scores, n) {
    const h = this.#live('sampleMany');
    checkInt('Sampler.sampleMany', 'n', n, 0, MAX_ELEMENTS);
    const p = this.#stage('sampleMany', scores, n * 4);
    const status = h.sampleMany(p.x, p.n, n, p.out);
    if (status !== STATUS.ok) this.#fail('sampleMany', status, p.n);
    return this.#m.HEAP32.slice(p.out >> 2, (p.out >> 2) + n);
  }

  /** scores holds a [rows, vocab] tensor row-major: one index per row (Int32Array), rows in order. */
  sampleBatch(scores, shape) {
    const fn = 'Sampler.sampleBatch';
    const h = this.#live('sampleBatch');
    checkScores(fn, scores);
    if (!Array.isArray(shape) || shape.length !== 2) {
      throw new TypeError(`${fn}: shape must be [rows, vocab], got ${Array.isArray(shape) ? `${shape.length} dimensions` : describe(shape)}`);
    }
    const rows = checkInt(fn, 'shape[0]', shape[0], 0, MAX_ELEMENTS);
    const vocab = checkInt(fn, 'shape[1]', shape[1], 0, MAX_ELEMENTS);
    if (rows * vocab !== scores.length) {
      throw new RangeError(`${fn}: shape [${rows}, ${vocab}] holds ${rows * vocab} elements but scores has ${scores.length}`);
    }
    if (rows > 0 && vocab === 0) throw new RangeError(`${fn}: scores is empty (vocab 0)`);
    const p = this.#stage('sampleBatch', scores, rows * 4);
    const status = h.sampleBatch(p.x, rows, vocab, p.out);
    if (status !== STATUS.ok) this.#fail('sampleBatch', status, p.n, vocab);
    return this.#m.HEAP32.slice(p.out >> 2, (p.out >> 2) + rows);
  }

  /** The distribution sample() draws from, after every filter: zeros for removed entries. */
  probs(scores) {
    const h = this.#live('probs');
    const n = scores?.length ?? 0;
    const p = this.#stage('probs', scores, n * 4);
    const status = h.probs(p.x, p.n, p.out);
    if (status !== STATUS.ok) this.#fail('probs', status, p.n);
    return this.#m.HEAPF32.slice(p.out >> 2, (p.out >> 2) + p.n);
  }

  /**
   * The min(k, n) most likely entries after logitBias and penalties (at T = 1;
   * decreasing, ties by lower index) with their log-probabilities there
   * (`before`) and in the final distribution (`after`, -Infinity if a filter
   * removed the entry).
   */
  logprobs(scores, k) {
    const h = this.#live('logprobs');
    checkInt('Sampler.logprobs', 'k', k, 1, MAX_ELEMENTS);
    const kk = Math.min(k, scores?.length ?? 0);
    const p = this.#stage('logprobs', scores, 12 * kk);
    const status = h.logprobs(p.x, p.n, kk, p.out, p.out + 4 * kk, p.out + 8 * kk);
    if (status !== STATUS.ok) this.#fail('logprobs', status, p.n);
    const i = p.out >> 2;
    return {
      indices: this.#m.HEAP32.slice(i, i + kk),
      before: this.#m.HEAPF32.slice(i + kk, i + 2 * kk),
      after: this.#m.HEAPF32.slice(i + 2 * kk, i + 3 * kk),
    };
  }

  /** Records token(s) (a token index or an array of them) in the history the penalties read. */
  accept(token) {
    this.#live('accept');
    const tokens = typeof token === 'number' ? checkTokens('Sampler.accept', 'tokens', [token]) : checkTokens('Sampler.accept', 'tokens', token);
    this.#accept('accept', tokens);
  }

  /** Restarts the streams from seed (a new random seed when omitted), clears the history, sets mirostat's mu to 2 * mirostatTau. */
  reset(seed) {
    this.#live('reset');
    const s = seed === undefined ? randomSeed('Sampler.reset') : checkSeed('Sampler.reset', seed);
    this.#seed = s;
    this.#h.reset(Number(s & 0xffffffffn), Number(s >> 32n));
  }

  /** Frees the wasm side; later calls throw. Calling it again does nothing. */
  dispose() {
    if (this.#h === undefined) return;
    registry?.unregister(this);
    this.#h.delete();
    this.#h = undefined;
  }
}

if (typeof Symbol.dispose === 'symbol') {
  Sampler.prototype[Symbol.dispose] = Sampler.prototype.dispose;
}
