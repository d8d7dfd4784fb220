// softmax-wasm/transformers: a logits processor that runs softmax-wasm's seeded
// sampler chain inside the generate() of transformers.js.
//
// Each generation step, generate() hands its logits processors the token ids so
// far (input_ids, one row per batch entry) and the next-token logits (a Tensor
// of dims [batch, vocab]). For each row this processor draws one token with its
// own Sampler, then leaves only that token (0 there, -Infinity everywhere else),
// so that generate()'s greedy choice, or its multinomial draw, picks it.
//
// It uses only the public API (a loaded Softmax and its samplers) and imports
// nothing from transformers.js: a processor there is any function
// (input_ids, logits) => logits.

const ROW_OPTIONS_FED = ['history'];

const describe = (v) =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : ArrayBuffer.isView(v) ? v.constructor.name : typeof v;

/** The seed of batch row r: seed + r (mod 2^64), so row 0 draws what createSampler({ seed }) draws. */
function rowSeed(seed, r) {
  if (seed === undefined || r === 0) return seed;
  if (typeof seed === 'number' && Number.isSafeInteger(seed + r)) return seed + r;
  return BigInt.asUintN(64, BigInt(seed) + BigInt(r));
}

/**
 * A logits processor for transformers.js's generate() that samples with
 * softmax-wasm: `generate({ ..., do_sample: false, logits_processor: [createLogitsProcessor(sm, options)] })`.
 *
 * `options` are createSampler()'s, except `history`: each batch row gets its own
 * sampler (row r seeded with seed + r), whose history is the row's input_ids,
 * prompt included. A row whose ids do not extend the ids it saw last (a new
 * prompt, a new generate() call) starts again: reset(seed + r), then the new ids.
 */
export function createLogitsProcessor(sm, options = {}) {
  const fn = 'createLogitsProcessor';
  if (sm === null || typeof sm !== 'object' || typeof sm.createSampler !== 'function') {
    throw new TypeError(`${fn}: sm must be the object that load() resolves to, got ${describe(sm)}`);
  }
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${fn}: options must be an object, got ${describe(options)}`);
  }
  for (const name of ROW_OPTIONS_FED) {
    if (Object.hasOwn(options, name)) {
      throw new TypeError(`${fn}: option '${name}' is not taken: each row's history is its input_ids`);
    }
  }
  const seed = options.seed;
  const rows = []; // per batch row: { sampler, ids: number[] (the ids its history holds) }
  let disposed = false;

  const row = (r) => {
    if (rows[r] === undefined) {
      rows[r] = { sampler: sm.createSampler({ ...options, seed: rowSeed(seed, r) }), ids: [] };
    }
    return rows[r];
  };
  row(0); // options are checked now, not at the first generation step

  /** Brings row r's history up to `tokens` (bigint or number ids). */
  function sync(r, tokens) {
    const state = row(r);
    const { ids, sampler } = state;
    let extends_ = tokens.length >= ids.length;
    for (let i = 0; extends_ && i < ids.length; i++) extends_ = Number(tokens[i]) === ids[i];
    if (!extends_) {
      sampler.reset(rowSeed(seed, r));
      ids.length = 0;
    }
    if (tokens.length > ids.length) {
      const fresh = tokens.slice(ids.length); // BigInt ids, as generate() holds them, or numbers
      sampler.accept(fresh);
      for (const t of fresh) ids.push(Number(t));
    }
    return sampler;
  }

  function processor(inputIds, logits) {
    if (disposed) throw new TypeError('logits processor: used after dispose()');
    const data = logits?.data;
    const dims = logits?.dims;
    if (!(data instanceof Float32Array || data instanceof Float64Array)) {
      throw new TypeError(`logits processor: logits.data must be a Float32Array or a Float64Array, got ${describe(data)}`);
    }
    if (!Array.isArray(dims) || dims.length < 1 || dims.length > 3) {
      throw new TypeError(`logits processor: logits.dims must be [batch, vocab] or [batch, seq, vocab], got ${describe(dims)}`);
    }
    const vocab = dims.at(-1);
    const batch = dims.length === 1 ? 1 : dims[0];
    const seq = dims.length === 3 ? dims[1] : 1;
    if (batch * seq * vocab !== data.length) {
      throw new RangeError(`logits processor: logits.dims [${dims.join(', ')}] hold ${batch * seq * vocab} values but logits.data has ${data.length}`);
    }
    if (!Array.isArray(inputIds) || inputIds.length !== batch) {
      throw new TypeError(`logits processor: input_ids must be an array of ${batch} rows, got ${describe(inputIds)}${Array.isArray(inputIds) ? ` of ${inputIds.length}` : ''}`);
    }
    for (let b = 0; b < batch; b++) {
      const start = (b * seq + seq - 1) * vocab; // the last position of the row
      const scores = data.subarray(start, start + vocab);
      const token = sync(b, inputIds[b]).sample(scores);
      scores.fill(-Infinity);
      scores[token] = 0;
    }
    return logits;
  }

  processor._call = processor; // the name transformers.js's LogitsProcessor type gives the call
  processor.dispose = () => {
    if (disposed) return;
    disposed = true;
    for (const state of rows) state?.sampler.dispose();
  };
  if (typeof Symbol.dispose === 'symbol') processor[Symbol.dispose] = processor.dispose;
  return processor;
}
