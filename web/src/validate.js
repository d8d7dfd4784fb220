// Argument checks of the JavaScript API, with no wasm in sight: every error is
// a TypeError (wrong type) or RangeError (wrong value) whose message starts
// with the function and names the argument. Options objects are read once,
// into a snapshot, before anything else happens (a getter that answers
// differently the second time cannot split a check from its use).

/** A short description of a value for error messages. */
export const describe = (v) =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'an array'
      : ArrayBuffer.isView(v)
        ? typedArrayKind(v) ?? v.constructor?.name ?? 'a view'
        : v instanceof Map
          ? 'a Map'
          : typeof v === 'bigint'
            ? `a BigInt (${v})`
            : typeof v;

// The engine's own typed-array accessors: a subclass or an own property
// cannot make a view lie about its kind, length or place.
const TypedArray = Object.getPrototypeOf(Int8Array.prototype);
const getter = (proto, key) => Object.getOwnPropertyDescriptor(proto, key).get;
const taKind = getter(TypedArray, Symbol.toStringTag);
const taLength = getter(TypedArray, 'length');
const taBuffer = getter(TypedArray, 'buffer');
const taByteOffset = getter(TypedArray, 'byteOffset');
const abByteLength = getter(ArrayBuffer.prototype, 'byteLength');

/** 'Float32Array', 'Uint16Array', ... for a typed array, else undefined. */
export const typedArrayKind = (v) => taKind.call(v);
export const lengthOf = (view) => taLength.call(view);
export const bufferOf = (view) => taBuffer.call(view);
export const byteOffsetOf = (view) => taByteOffset.call(view);

/** Whether a typed array's buffer has been detached (transferred, or wasm memory grew). */
export function isDetached(view) {
  if (taLength.call(view) !== 0) return false;
  const buffer = taBuffer.call(view);
  if (buffer instanceof ArrayBuffer && abByteLength.call(buffer) === 0) {
    try {
      new Uint8Array(buffer, 0, 0); // throws on a detached buffer
    } catch {
      return true;
    }
  }
  return false;
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

export function checkInt(fn, name, v, min, max) {
  checkNumber(fn, name, v, { min, integer: true });
  if (v > max) throw new RangeError(`${fn}: ${name} must be <= ${max}, got ${v}`);
  return v;
}

// Names other libraries use for our options (Hugging Face transformers,
// llama.cpp, the OpenAI API) for a did-you-mean, where they are not ours in
// snake_case (top_p finds topP without an entry).
const ALIASES = {
  temp: 'temperature',
  typical: 'typicalP',
  min_tokens_to_keep: 'minKeep',
  repeat_penalty: 'repetitionPenalty',
  penalty_repeat: 'repetitionPenalty',
  penalty_freq: 'frequencyPenalty',
  penalty_present: 'presencePenalty',
  repeat_last_n: 'penaltyLastN',
  mirostat_lr: 'mirostatEta',
  mirostat_ent: 'mirostatTau',
  samplers: 'order',
  dim: 'axis',
  token_bitmask: 'mask', // XGrammar's name
  bitmask: 'mask',
  tokenbitmask: 'mask', // tokenBitmask, by the lower-case lookup
};

const camel = (s) => s.replace(/[_-]([a-z])/g, (_, c) => c.toUpperCase());

function editDistance(a, b) {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const t = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = t;
    }
  }
  return d[b.length];
}

/** The known name that `key` most likely meant, or undefined. */
export function didYouMean(key, known) {
  const alias = ALIASES[key] ?? ALIASES[key.toLowerCase()];
  if (alias && known.includes(alias)) return alias;
  const c = camel(key);
  const exact = known.find((k) => k.toLowerCase() === c.toLowerCase());
  if (exact) return exact;
  let best;
  let bestD = Infinity;
  for (const k of known) {
    const dist = editDistance(c.toLowerCase(), k.toLowerCase());
    if (dist < bestD) [best, bestD] = [k, dist];
  }
  return bestD <= Math.max(1, Math.floor(best?.length / 4)) ? best : undefined;
}

const EMPTY = Object.freeze({});

/**
 * Reads an options object once: a plain object (or undefined), with only
 * known keys, own or inherited, enumerable or not. Returns a snapshot of the
 * known keys whose value is not undefined.
 */
export function readOptions(fn, opts, known) {
  if (opts === undefined) return EMPTY;
  if (opts === null || typeof opts !== 'object') {
    throw new TypeError(`${fn}: options must be an object, got ${describe(opts)}`);
  }
  const proto = Object.getPrototypeOf(opts);
  if (proto !== Object.prototype && proto !== null) {
    throw new TypeError(`${fn}: options must be an object, got ${describe(opts)}${Array.isArray(opts) ? '' : ' (options must be a plain object literal)'}`);
  }
  // Own names, enumerable or not, then own symbols: two calls that cost ~100 ns
  // less than Reflect.ownKeys on a small object literal.
  const symbols = Object.getOwnPropertySymbols(opts);
  if (symbols.length) throw new TypeError(`${fn}: unknown option ${String(symbols[0])}`);
  const snapshot = {};
  for (const key of Object.getOwnPropertyNames(opts)) {
    if (!known.includes(key)) {
      const hint = didYouMean(key, known);
      throw new TypeError(`${fn}: unknown option '${key}'${hint ? ` (did you mean '${hint}'?)` : ''} (known: ${known.join(', ')})`);
    }
    const v = opts[key];
    if (v !== undefined) snapshot[key] = v;
  }
  return snapshot;
}

/** 'n', '[0, 1]', '(0, Infinity)' and so on: a range for messages. */
export const formatRange = (r) => `${r.loOpen ? '(' : '['}${r.lo}, ${r.hi}${r.hiOpen ? ')' : ']'}`;

/** A seed: a non-negative safe integer or a BigInt < 2^64, as a BigInt. */
export function checkSeed(fn, seed) {
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

export function randomSeed(fn) {
  const c = globalThis.crypto;
  if (!c || typeof c.getRandomValues !== 'function') {
    throw new Error(`${fn}: no crypto.getRandomValues in this environment; pass a seed`);
  }
  const [lo, hi] = c.getRandomValues(new Uint32Array(2));
  return (BigInt(hi) << 32n) | BigInt(lo);
}

const INT32_MAX = 2 ** 31 - 1;
const TOKEN_ARRAYS = new Set(['Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array', 'Int16Array', 'Uint16Array', 'Uint8Array']);

function tokenAt(fn, name, t) {
  if (typeof t === 'bigint') {
    if (t < 0n || t > BigInt(INT32_MAX)) throw new RangeError(`${fn}: ${name} must be a token index (an integer in [0, 2^31)), got ${t}`);
    return Number(t);
  }
  if (typeof t !== 'number') throw new TypeError(`${fn}: ${name} must be a number or a BigInt, got ${describe(t)}`);
  if (!Number.isInteger(t) || t < 0 || t > INT32_MAX) {
    throw new RangeError(`${fn}: ${name} must be a token index (an integer in [0, 2^31)), got ${t}`);
  }
  return t;
}

/**
 * Token ids as the model runtimes hand them over: (with `single`) a number
 * or a BigInt, an array of either, an Int32Array, Uint32Array, BigInt64Array or
 * BigUint64Array. Returns a new Int32Array (each element read once).
 */
export function readTokens(fn, name, tokens, { single = false } = {}) {
  if (single && (typeof tokens === 'number' || typeof tokens === 'bigint')) return Int32Array.of(tokenAt(fn, `${name}[0]`, tokens));
  const kind = ArrayBuffer.isView(tokens) ? typedArrayKind(tokens) : undefined;
  if (!Array.isArray(tokens) && !TOKEN_ARRAYS.has(kind)) {
    throw new TypeError(
      `${fn}: ${name} must be token ids (a number, a BigInt, an array of them, an Int32Array, Uint32Array or BigInt64Array), got ${describe(tokens)}`,
    );
  }
  if (kind !== undefined && isDetached(tokens)) throw new TypeError(`${fn}: ${name} is a detached ${kind}`);
  const n = kind !== undefined ? lengthOf(tokens) : tokens.length;
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = tokenAt(fn, `${name}[${i}]`, tokens[i]);
  return out;
}
