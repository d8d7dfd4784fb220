// Sampler: seeded token sampling over the Embind class Sampler of
// cpp/bindings/bindings.cpp (cpp/include/smx/sampler.h documents the exact
// semantics). The options come from the core's option table
// (cpp/include/smx/sampler_options.h), read once per module: their names,
// types, ranges, defaults and steps are not written down here.
import { align8, MAX_ELEMENTS } from './memory.js';
import { bufferOf, checkInt, checkSeed, describe, formatRange, isDetached, lengthOf, randomSeed, readOptions, readTokens, typedArrayKind } from './validate.js';

const INT32_MAX = 2 ** 31 - 1;
const CALL_OPTIONS = ['mask'];

/**
 * A token mask (bit i & 31 of word i >> 5 allows token i) over `rows` rows of
 * vocab tokens: one Uint32Array / Int32Array of at least rows * ceil(vocab /
 * 32) words (row r at r * words), or (rows > 1 allowed) an array of one such
 * mask per row. Returns the masks, each a typed array of `words` words, or
 * undefined for no mask.
 */
export function checkMask(fn, m, mask, vocab, rows = 1) {
  if (mask === undefined) return undefined;
  const words = Math.ceil(vocab / 32);
  const one = (v, name, need) => {
    const kind = ArrayBuffer.isView(v) ? typedArrayKind(v) : undefined;
    if (kind !== 'Uint32Array' && kind !== 'Int32Array') {
      throw new TypeError(`${fn}: ${name} must be a Uint32Array or an Int32Array (bit i & 31 of word i >> 5 allows token i), got ${describe(v)}`);
    }
    if (isDetached(v)) throw new TypeError(`${fn}: ${name} is a detached ${kind}`);
    const len = lengthOf(v);
    if (len < need) {
      throw new RangeError(`${fn}: ${name} has ${len} words; ${rows > 1 && need > words ? `${rows} rows of ` : ''}${vocab} tokens need ${need} (ceil(${vocab} / 32) = ${words}${need > words ? ' per row' : ''})`);
    }
    // A view of wasm memory is copied first: staging may grow (and detach) it.
    return bufferOf(v) === m.HEAPU8.buffer ? v.slice(0, need) : v;
  };
  if (Array.isArray(mask)) {
    // Each element read once (a getter runs once).
    const list = Array.from(mask);
    if (list.length > 0 && typeof list[0] === 'number') {
      throw new TypeError(`${fn}: mask must be a Uint32Array or an Int32Array (bit i & 31 of word i >> 5 allows token i), or a list of them (one per row), got an array of numbers: pass new Uint32Array([...])`);
    }
    const masks = list.map((v, r) => one(v, `mask[${r}]`, words));
    if (masks.length !== rows) throw new RangeError(`${fn}: mask has ${masks.length} rows, expected ${rows}`);
    return masks;
  }
  const v = one(mask, 'mask', rows * words);
  return Array.from({ length: rows }, (_, r) => v.subarray(r * words, (r + 1) * words));
}

/** Writes checked masks (checkMask) at byte offset p of wasm memory; returns p, or 0 for none. */
function writeMask(m, masks, p) {
  if (masks === undefined) return 0;
  let at = p >> 2;
  for (const v of masks) {
    (typedArrayKind(v) === 'Int32Array' ? m.HEAP32 : m.HEAPU32).set(v, at);
    at += lengthOf(v);
  }
  return p;
}

const maskBytes = (masks) => (masks === undefined ? 0 : 4 * masks.length * lengthOf(masks[0]));

// Frees the wasm side of samplers that were never disposed.
const registry =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((handle) => {
        if (!handle.isDeleted()) handle.delete();
      })
    : undefined;

const specs = new WeakMap();

const TYPES = ['float32', 'float64', 'uint32', 'int32'];

/** The core's option table, decoded from the constant data that bindings.cpp's optionTable() describes. */
function optionTable(m) {
  const at = m.optionTable() >>> 2;
  const [numbers, names, namesBytes, steps, stepsBytes, nOptions, nLists, nSteps] = m.HEAPU32.subarray(at, at + 8);
  const f = m.HEAPF64.subarray(numbers >>> 3, (numbers >>> 3) + 7 * nOptions + nLists + 2 * nSteps);
  const text = (p, n) => new TextDecoder().decode(m.HEAPU8.subarray(p, p + n)).split('\0');
  const words = text(names, namesBytes);
  const stepNames = text(steps, stepsBytes).slice(0, nSteps);
  const step = (i) => (i < 0 ? null : stepNames[i]);
  const options = Array.from({ length: nOptions }, (_, i) => {
    const [type, lo, hi, loOpen, hiOpen, value, s] = f.subarray(7 * i, 7 * i + 7);
    return { name: words[i], type: TYPES[type], lo, hi, loOpen: loOpen === 1, hiOpen: hiOpen === 1, default: value, step: step(s) };
  });
  const lists = Array.from({ length: nLists }, (_, i) => ({ name: words[nOptions + i], kind: words[nOptions + nLists + i], step: step(f[7 * nOptions + i]) }));
  const preset = (p) => Array.from(f.subarray(7 * nOptions + nLists + p * nSteps, 7 * nOptions + nLists + (p + 1) * nSteps), step);
  return { options, lists, steps: stepNames, presets: { hf: preset(0), 'llama.cpp': preset(1) } };
}

/** The option table of a module, with what the checks need (once per module). */
export function samplerSpec(m) {
  if (specs.has(m)) return specs.get(m);
  const table = optionTable(m);
  const status = {};
  for (const [k, v] of Object.entries(m.SampleStatus)) if (v && typeof v.value === 'number') status[k] = v.value;
  const spec = {
    m,
    numbers: table.options,
    lists: table.lists,
    names: [...table.options.map((r) => r.name), ...table.lists.map((r) => r.name)],
    steps: table.steps,
    presets: table.presets,
    stepEnum: table.steps.map((name) => m.Step[name]),
    kinds: m.OptionCheckKind,
    status,
  };
  specs.set(m, spec);
  return spec;
}

/** A number option, checked against its row of the table, then as the type that crosses. */
function checkOption(fn, r, v) {
  if (typeof v !== 'number') throw new TypeError(`${fn}: ${r.name} must be a number, got ${describe(v)}`);
  const inRange = (x) => !Number.isNaN(x) && (r.loOpen ? x > r.lo : x >= r.lo) && (r.hiOpen ? x < r.hi : x <= r.hi);
  if (Number.isNaN(v)) throw new RangeError(`${fn}: ${r.name} must not be NaN`);
  if ((r.type === 'uint32' || r.type === 'int32') && !Number.isInteger(v)) {
    throw new RangeError(`${fn}: ${r.name} must be an integer, got ${v}`);
  }
  if (!inRange(v)) throw new RangeError(`${fn}: ${r.name} must be in ${formatRange(r)}, got ${v}`);
  if (r.type === 'float32' && !inRange(Math.fround(v))) {
    throw new RangeError(`${fn}: ${r.name} = ${v} is ${Math.fround(v)} as a float32, outside ${formatRange(r)}`);
  }
  return v;
}

function checkOrder(fn, spec, order) {
  if (order === undefined) return spec.presets.hf;
  if (typeof order === 'string') {
    const steps = spec.presets[order];
    if (!steps || !Object.hasOwn(spec.presets, order)) {
      throw new RangeError(`${fn}: order must be 'hf', 'llama.cpp' or an array of step names, got '${order}'`);
    }
    return steps;
  }
  if (!Array.isArray(order)) {
    throw new TypeError(`${fn}: order must be 'hf', 'llama.cpp' or an array of step names, got ${describe(order)}`);
  }
  const steps = Array.from(order);
  const seen = new Set();
  steps.forEach((s, i) => {
    if (!spec.steps.includes(s)) {
      throw new RangeError(`${fn}: order[${i}] must be one of ${spec.steps.map((x) => `'${x}'`).join(', ')}, got ${String(s)}`);
    }
    if (seen.has(s)) throw new RangeError(`${fn}: order lists '${s}' twice`);
    seen.add(s);
  });
  return steps;
}

/** logitBias: { index: bias } or Map<index, bias>; bias finite or -Infinity (a ban), as a float32. */
function checkBias(fn, bias) {
  const out = new Map();
  if (bias === undefined) return out;
  let entries;
  if (bias instanceof Map) entries = [...bias.entries()];
  else if (bias !== null && typeof bias === 'object' && !Array.isArray(bias) && !ArrayBuffer.isView(bias)) {
    entries = Reflect.ownKeys(bias).map((k) => [k, bias[k]]);
  } else {
    throw new TypeError(`${fn}: logitBias must be an object or a Map of index -> bias, got ${describe(bias)}`);
  }
  for (const [key, v] of entries) {
    const i = typeof key === 'string' && /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : typeof key === 'bigint' ? Number(key) : key;
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i > INT32_MAX) {
      throw new RangeError(`${fn}: logitBias key ${JSON.stringify(String(key))} is not a token index`);
    }
    if (typeof v !== 'number') throw new TypeError(`${fn}: logitBias[${i}] must be a number, got ${describe(v)}`);
    if (!(Number.isFinite(v) || v === -Infinity)) {
      throw new RangeError(`${fn}: logitBias[${i}] must be finite or -Infinity (a ban), got ${v}`);
    }
    if (Number.isFinite(v) && !Number.isFinite(Math.fround(v))) {
      throw new RangeError(`${fn}: logitBias[${i}] = ${v} overflows float32; use -Infinity to ban a token`);
    }
    out.set(i, v);
  }
  return out;
}

/** createSampler's options, read once and checked: the numbers (defaults filled in) and the rest. */
function readSamplerOptions(fn, spec, opts) {
  const o = readOptions(fn, opts, spec.names);
  const numbers = {};
  for (const r of spec.numbers) numbers[r.name] = o[r.name] === undefined ? r.default : checkOption(fn, r, o[r.name]);
  return {
    numbers,
    order: checkOrder(fn, spec, o.order),
    logitBias: checkBias(fn, o.logitBias),
    history: o.history === undefined ? new Int32Array(0) : readTokens(fn, 'history', o.history),
    drySequenceBreakers: o.drySequenceBreakers === undefined ? new Int32Array(0) : readTokens(fn, 'drySequenceBreakers', o.drySequenceBreakers),
    seed: o.seed === undefined ? undefined : checkSeed(fn, o.seed),
  };
}

/**
 * A seeded sampler. Its wasm side lives until dispose() (or [Symbol.dispose],
 * or garbage collection as a last resort).
 */
export class Sampler {
  #mem;
  /** 'sample' for sm.sample's throwaway sampler: its errors are sm.sample's. */
  #owner;
  #spec;
  #h; // the Embind Sampler, undefined once disposed
  #bias;
  #seed;
  #options;

  /** Internal: use sm.createSampler(opts). */
  constructor(mem, spec, opts, fn = 'createSampler') {
    this.#mem = mem;
    this.#spec = spec;
    this.#owner = fn;
    mem.enter(fn);
    try {
      const o = readSamplerOptions(fn, spec, opts);
      const h = spec.m.Sampler.create();
      if (h === null) throw new RangeError(`${fn}: no wasm memory left for a sampler`);
      try {
        this.#configure(fn, h, o);
      } catch (e) {
        h.delete();
        throw e;
      }
      this.#h = h;
      this.#bias = o.logitBias;
      this.#options = Object.freeze({
        ...o.numbers,
        drySequenceBreakers: Object.freeze(Array.from(o.drySequenceBreakers)),
        order: Object.freeze([...o.order]),
      });
      this.#reseed(o.seed ?? randomSeed(fn));
      registry?.register(this, h, this);
    } finally {
      mem.leave();
    }
  }

  #configure(fn, h, o) {
    const spec = this.#spec;
    const m = spec.m;
    const order = o.order.map((s) => spec.stepEnum[spec.steps.indexOf(s)]);
    const padded = [...order, ...spec.stepEnum].slice(0, spec.steps.length);
    const check = h.configure({ ...o.numbers, order: padded, orderLength: order.length });
    const k = spec.kinds;
    if (check.kind === k.outOfRange) {
      const r = spec.numbers[check.option];
      throw new RangeError(`${fn}: ${r.name} = ${o.numbers[r.name]} is out of ${formatRange(r)} as a ${r.type}`);
    }
    if (check.kind === k.missingStep) {
      const s = spec.steps[check.step];
      throw new RangeError(`${fn}: order lacks '${s}', but ${s} is set`);
    }
    if (check.kind === k.needsFiniteTemperature) {
      throw new RangeError(`${fn}: dynatempRange needs a finite temperature, got temperature ${o.numbers.temperature}`);
    }
    if (check.kind !== k.ok) throw new RangeError(`${fn}: order is not a list of distinct steps`);
    const breakers = o.drySequenceBreakers;
    const keys = Uint32Array.from(o.logitBias.keys());
    const p = this.#mem.alloc(fn, 4 * breakers.length + 8 * keys.length + 8, 'options');
    m.HEAP32.set(breakers, p >> 2);
    let st = h.setDryBreakers(p, breakers.length);
    if (st !== spec.status.ok) this.#fail(fn, st, 0, 0, h);
    const q = p + 4 * breakers.length;
    m.HEAPU32.set(keys, q >> 2);
    m.HEAPF32.set(Float32Array.from(o.logitBias.values()), (q >> 2) + keys.length);
    st = h.setLogitBias(q, q + 4 * keys.length, keys.length);
    if (st !== spec.status.ok) this.#fail(fn, st, 0, 0, h);
    if (o.history.length) {
      const r = this.#mem.alloc(fn, 4 * o.history.length, 'the history');
      m.HEAP32.set(o.history, r >> 2);
      st = h.accept(r, o.history.length);
      if (st !== spec.status.ok) this.#fail(fn, st, 0, 0, h);
    }
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
    return this.#live('mirostatMu').mirostatMu;
  }

  /** true after dispose(). */
  get disposed() {
    return this.#h === undefined;
  }

  #live(fn) {
    if (this.#h === undefined) throw new TypeError(`${this.#where(fn)}: the sampler is disposed`);
    return this.#h;
  }

  /** The name errors of the call fn carry: Sampler.fn, or sample for sm.sample's. */
  #where(fn) {
    return this.#owner === 'sample' && fn === 'sample' ? 'sample' : `Sampler.${fn}`;
  }

  #reseed(seed) {
    this.#seed = seed;
    this.#h.seed(Number(seed & 0xffffffffn), Number(seed >> 32n));
  }

  /** Runs body(h) as one call: the sampler must be live, nested calls are rejected. */
  #call(fn, body) {
    const mem = this.#mem;
    mem.enter(this.#where(fn));
    try {
      return body(this.#live(fn));
    } finally {
      mem.leave();
    }
  }

  /**
   * Scores into wasm memory (a buffer() view is used where it lies; a
   * tensor's last position), with room(n) bytes for results after them.
   * Returns { x, out, n }.
   */
  #stage(fn, scores, room, opts) {
    const where = this.#where(fn);
    const mem = this.#mem;
    const o = readOptions(where, opts, CALL_OPTIONS);
    const input = mem.read(where, scores);
    let n = input.n;
    let first = 0;
    if (input.dims !== undefined && input.dims.length > 1) {
      const d = input.dims;
      const batch = d[0];
      const seq = d.slice(1, -1).reduce((a, b) => a * b, 1);
      if (batch !== 1) {
        throw new RangeError(`${where}: scores is a tensor with ${batch} batch rows (dims [${d.join(', ')}]); use sampleBatch, or lastPosition() and one row at a time`);
      }
      if (seq === 0) throw new RangeError(`${where}: scores is empty (dims [${d.join(', ')}])`);
      n = d[d.length - 1];
      first = (seq - 1) * n;
    }
    const masks = checkMask(where, mem.m, o.mask, n);
    const outBytes = align8(room(n));
    const mBytes = maskBytes(masks);
    if (input.how === 'heap') {
      const p = mem.alloc(where, outBytes + mBytes + 8, 'results');
      return { x: input.ptr + 4 * first, out: p, n, mask: writeMask(mem.m, masks, p + outBytes) };
    }
    const xBytes = align8(n * 4);
    const p = mem.alloc(where, xBytes + outBytes + mBytes + 8);
    mem.write(where, input, p, 'scores', first, n);
    return { x: p, out: p + xBytes, n, mask: writeMask(mem.m, masks, p + xBytes + outBytes) };
  }

  #fail(fn, status, n, cols = n, h = this.#h) {
    const where = fn.startsWith('create') || (fn === 'sample' && h !== this.#h) ? fn : this.#where(fn);
    const S = this.#spec.status;
    switch (status) {
      case S.empty:
        throw new RangeError(`${where}: scores is empty`);
      case S.allMasked:
        throw new RangeError(
          `${where}: every entry of scores is -Infinity (masked${this.#bias?.size ? ' or banned by logitBias' : ''}${this.#options?.noRepeatNgramSize ? ' or banned by noRepeatNgramSize' : ''})`,
        );
      case S.nanScore: {
        const i = h.errorIndex;
        const at = cols !== n ? ` (row ${Math.floor(i / cols)}, entry ${i % cols})` : '';
        throw new RangeError(`${where}: scores[${i}]${at} is NaN`);
      }
      case S.badToken: {
        const t = h.errorIndex;
        if (fn === 'accept') throw new RangeError(`${where}: tokens must be non-negative integers`);
        const src = this.#bias?.has(t) ? 'logitBias index' : 'token in the penalty history';
        throw new RangeError(`${where}: ${src} ${t} is outside the vocabulary (${cols} entries)`);
      }
      case S.emptyMask: {
        const row = cols !== n ? ` (row ${h.errorIndex})` : '';
        throw new RangeError(`${where}: mask allows no token${row}`);
      }
      case S.noMemory:
        throw new RangeError(`${where}: ${fn === 'accept' || fn.startsWith('create') ? 'the history does' : 'scores do'} not fit in wasm memory`);
      default:
        throw new Error(`${where}: unexpected status ${status} from the core (a bug: please report it)`);
    }
  }

  /** One index drawn from probs(scores); opts.mask: a token bitmask. */
  sample(scores, opts) {
    return this.#call('sample', (h) => {
      const p = this.#stage('sample', scores, () => 0, opts);
      const r = h.sample(p.x, p.n, p.mask);
      if (r < 0) this.#fail('sample', -r, p.n);
      return r;
    });
  }

  /** n indices drawn independently from probs(scores), computed once. */
  sampleMany(scores, n, opts) {
    return this.#call('sampleMany', (h) => {
      checkInt('Sampler.sampleMany', 'n', n, 0, MAX_ELEMENTS);
      const p = this.#stage('sampleMany', scores, () => n * 4, opts);
      const status = h.sampleMany(p.x, p.n, n, p.out, p.mask);
      if (status !== 0) this.#fail('sampleMany', status, p.n);
      return this.#mem.m.HEAP32.slice(p.out >> 2, (p.out >> 2) + n);
    });
  }

  /**
   * One index per row (Int32Array), rows in order: scores holds a [rows,
   * vocab] tensor row-major (shape gives it), or is a runtime tensor
   * [batch, vocab] or [batch, seq, vocab] (then each row's last position).
   * opts.mask: one token bitmask per row (sampleBatch(tensor, opts) also works).
   */
  sampleBatch(scores, shape, opts) {
    return this.#call('sampleBatch', (h) => {
      const fn = 'Sampler.sampleBatch';
      const mem = this.#mem;
      if (opts === undefined && shape !== null && typeof shape === 'object' && !Array.isArray(shape) && !ArrayBuffer.isView(shape)) {
        opts = shape;
        shape = undefined;
      }
      const o = readOptions(fn, opts, CALL_OPTIONS);
      const input = mem.read(fn, scores);
      let rows;
      let vocab;
      let seq = 1;
      if (input.dims !== undefined) {
        if (shape !== undefined) throw new TypeError(`${fn}: scores is a tensor with dims [${input.dims.join(', ')}]; pass no shape`);
        const d = input.dims;
        if (d.length < 2) throw new RangeError(`${fn}: scores must be a [batch, vocab] or [batch, seq, vocab] tensor, got dims [${d.join(', ')}]`);
        rows = d[0];
        vocab = d[d.length - 1];
        seq = d.slice(1, -1).reduce((a, b) => a * b, 1);
        if (rows > 0 && seq === 0) throw new RangeError(`${fn}: scores is empty (dims [${d.join(', ')}])`);
      } else {
        if (!Array.isArray(shape) || shape.length !== 2) {
          throw new TypeError(`${fn}: shape must be [rows, vocab], got ${Array.isArray(shape) ? `${shape.length} dimensions` : describe(shape)}`);
        }
        rows = checkInt(fn, 'shape[0]', shape[0], 0, MAX_ELEMENTS);
        vocab = checkInt(fn, 'shape[1]', shape[1], 0, MAX_ELEMENTS);
        if (rows * vocab !== input.n) {
          throw new RangeError(`${fn}: shape [${rows}, ${vocab}] holds ${rows * vocab} elements but scores has ${input.n}`);
        }
      }
      if (rows > 0 && vocab === 0) throw new RangeError(`${fn}: scores is empty (vocab 0)`);
      const masks = rows > 0 ? checkMask(fn, mem.m, o.mask, vocab, rows) : undefined;
      const mBytes = maskBytes(masks);
      let x;
      let out;
      if (input.how === 'heap' && seq === 1) {
        x = input.ptr;
        out = mem.alloc(fn, align8(rows * 4) + mBytes + 8, 'results');
      } else {
        const xBytes = align8(rows * vocab * 4);
        const p = mem.alloc(fn, xBytes + align8(rows * 4) + mBytes + 8);
        if (seq === 1) mem.write(fn, input, p);
        else for (let r = 0; r < rows; r++) mem.write(fn, input, p + 4 * r * vocab, 'scores', (r * seq + seq - 1) * vocab, vocab);
        x = p;
        out = p + xBytes;
      }
      const status = h.sampleBatch(x, rows, vocab, out, writeMask(mem.m, masks, out + align8(rows * 4)));
      if (status !== 0) this.#fail('sampleBatch', status, rows * vocab, vocab);
      return mem.m.HEAP32.slice(out >> 2, (out >> 2) + rows);
    });
  }

  /** The distribution sample() draws from, after every filter: zeros for removed entries. */
  probs(scores, opts) {
    return this.#call('probs', (h) => {
      const p = this.#stage('probs', scores, (n) => 4 * n, opts);
      const status = h.probs(p.x, p.n, p.out, p.mask);
      if (status !== 0) this.#fail('probs', status, p.n);
      return this.#mem.m.HEAPF32.slice(p.out >> 2, (p.out >> 2) + p.n);
    });
  }

  /**
   * The min(k, n) most likely entries after logitBias and penalties (at T = 1;
   * decreasing, ties by lower index) with their log-probabilities there
   * (`before`) and in the final distribution (`after`, -Infinity if a filter
   * removed the entry).
   */
  logprobs(scores, k, opts) {
    return this.#call('logprobs', (h) => {
      checkInt('Sampler.logprobs', 'k', k, 1, MAX_ELEMENTS);
      const p = this.#stage('logprobs', scores, (n) => 12 * Math.min(k, n), opts);
      const kk = Math.min(k, p.n);
      const at = p.out;
      const status = h.logprobs(p.x, p.n, kk, at, at + 4 * kk, at + 8 * kk, p.mask);
      if (status !== 0) this.#fail('logprobs', status, p.n);
      const m = this.#mem.m;
      const i = at >> 2;
      return {
        indices: m.HEAP32.slice(i, i + kk),
        before: m.HEAPF32.slice(i + kk, i + 2 * kk),
        after: m.HEAPF32.slice(i + 2 * kk, i + 3 * kk),
      };
    });
  }

  /**
   * Speculative sampling: draftTokens (k tokens) drawn from draftProbs (k x
   * vocab), checked against the target's logits at the k + 1 positions
   * (targetLogits, (k + 1) x vocab, or a [1, seq, vocab] tensor: its last k + 1
   * positions) through this sampler's chain. Returns { accepted, tokens }, with
   * accepted + 1 tokens. opts.mask: one token bitmask per position (k + 1).
   */
  verifyDraft(draftTokens, draftProbs, targetLogits, opts) {
    return this.#call('verifyDraft', (h) => {
      const fn = 'Sampler.verifyDraft';
      const mem = this.#mem;
      const o = readOptions(fn, opts, CALL_OPTIONS);
      const tokens = readTokens(fn, 'draftTokens', draftTokens);
      const k = tokens.length;
      const target = mem.read(fn, targetLogits, 'targetLogits');
      const draft = mem.read(fn, draftProbs, 'draftProbs');
      let vocab;
      let first = 0;
      if (target.dims !== undefined) {
        const d = target.dims;
        vocab = d[d.length - 1];
        if (d.length > 2 && d[0] !== 1) throw new RangeError(`${fn}: targetLogits has ${d[0]} batch rows (dims [${d.join(', ')}]); verify one sequence at a time`);
        const rows = vocab === 0 ? 0 : target.n / vocab;
        if (rows < k + 1) throw new RangeError(`${fn}: targetLogits has ${rows} positions (dims [${d.join(', ')}]); ${k} draft tokens need ${k + 1}`);
        first = (rows - k - 1) * vocab;
      } else {
        if (target.n % (k + 1) !== 0) {
          throw new RangeError(`${fn}: targetLogits has ${target.n} entries, not ${k + 1} rows (one per draft token and one more) of the vocabulary`);
        }
        vocab = target.n / (k + 1);
      }
      if (vocab === 0) throw new RangeError(`${fn}: targetLogits is empty`);
      if (draft.n !== k * vocab && k > 0 && draft.n % k === 0 && draft.n > 0) {
        throw new RangeError(`${fn}: draftProbs (${draft.n} entries) and targetLogits (${target.n} entries) disagree: ${k} draft tokens need ${k} rows of draftProbs and ${k + 1} rows of targetLogits over one vocabulary (draftProbs gives ${draft.n / k} per row, targetLogits ${vocab})`);
      }
      if (draft.n !== k * vocab) {
        throw new RangeError(`${fn}: draftProbs has ${draft.n} entries; ${k} draft tokens over a vocabulary of ${vocab} need ${k * vocab}`);
      }
      tokens.forEach((t, j) => {
        if (t >= vocab) throw new RangeError(`${fn}: draftTokens[${j}] = ${t} is outside the vocabulary (${vocab} entries)`);
      });
      const masks = checkMask(fn, mem.m, o.mask, vocab, k + 1);
      const tBytes = align8(4 * (k + 1) * vocab);
      const dBytes = align8(4 * k * vocab);
      const p = mem.alloc(fn, tBytes + dBytes + align8(4 * (2 * k + 2)) + maskBytes(masks) + 8);
      mem.write(fn, target, p, 'targetLogits', first, (k + 1) * vocab);
      mem.write(fn, draft, p + tBytes, 'draftProbs');
      const io = p + tBytes + dBytes;
      const m = mem.m;
      m.HEAP32.set(tokens, io >> 2);
      const status = h.verifyDraft(io, p + tBytes, k, p, vocab, writeMask(m, masks, io + align8(4 * (2 * k + 2))), io + 4 * k);
      if (status !== 0) {
        const S = this.#spec.status;
        const i = h.errorIndex;
        if (status === S.badDraft) {
          throw new RangeError(`${fn}: draftProbs[${i}] (draft ${Math.floor(i / vocab)}, token ${i % vocab}) must be a probability in [0, 1], got ${m.HEAPF32[((p + tBytes) >> 2) + i]}`);
        }
        if (status === S.draftSum) throw new RangeError(`${fn}: draftProbs row ${i} does not sum to 1 (within 1e-3): pass probabilities, not logits`);
        if (status === S.nanScore) throw new RangeError(`${fn}: targetLogits row ${Math.floor(i / vocab)}, entry ${i % vocab} is NaN`);
        if (status === S.allMasked) throw new RangeError(`${fn}: every entry of targetLogits row ${i} is -Infinity (or banned)`);
        if (status === S.emptyMask) throw new RangeError(`${fn}: mask row ${i} allows no token`);
        this.#fail('verifyDraft', status, vocab);
      }
      const at = (io + 4 * k) >> 2;
      const accepted = m.HEAP32[at];
      return { accepted, tokens: m.HEAP32.slice(at + 1, at + 2 + accepted) };
    });
  }

  /** Records token(s) in the history the penalties read: a token id, or an array / typed array of them. */
  accept(tokens) {
    this.#call('accept', (h) => {
      const ids = readTokens('Sampler.accept', 'tokens', tokens, { single: true });
      if (ids.length === 0) return;
      const p = this.#mem.alloc('Sampler.accept', ids.length * 4 + 8, 'tokens');
      this.#mem.m.HEAP32.set(ids, p >> 2);
      const status = h.accept(p, ids.length);
      if (status !== 0) this.#fail('accept', status, 0);
    });
  }

  /** Forgets the history the penalties read (the seed and mirostat's mu stay). */
  clearHistory() {
    this.#call('clearHistory', (h) => h.clearHistory());
  }

  /** Restarts the streams from seed (a new random seed when omitted), clears the history, sets mirostat's mu to 2 * mirostatTau. */
  reset(seed) {
    this.#call('reset', (h) => {
      const s = seed === undefined ? randomSeed('Sampler.reset') : checkSeed('Sampler.reset', seed);
      this.#seed = s;
      h.reset(Number(s & 0xffffffffn), Number(s >> 32n));
    });
  }

  /** Frees the wasm side; later calls throw. Calling it again does nothing. */
  dispose() {
    if (this.#h === undefined) return;
    const mem = this.#mem;
    mem.enter('Sampler.dispose');
    try {
      registry?.unregister(this);
      this.#h.delete();
      this.#h = undefined;
    } finally {
      mem.leave();
    }
  }
}

if (typeof Symbol.dispose === 'symbol') {
  Sampler.prototype[Symbol.dispose] = Sampler.prototype.dispose;
}
