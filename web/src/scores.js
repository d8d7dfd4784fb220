// Scores as users hold them: number[], Float32Array, Float64Array, and the
// tensors of the model runtimes (onnxruntime-web, transformers.js): any object
// with `data` (a typed array) and `dims` (its shape), and `type` where the
// runtime gives one ('float32', 'float64', 'float16': IEEE half bits in a
// Uint16Array). Pure JavaScript: nothing here touches wasm memory.
import { describe, isDetached, lengthOf, typedArrayKind } from './validate.js';

const FLOAT_TYPES = new Set(['float32', 'float64', 'float16']);

/** Whether v looks like a runtime tensor ({ data, dims }). */
export const isTensor = (v) =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v) && 'data' in v && 'dims' in v;

/**
 * Reads a tensor once: { data, dims, half }. data is a Float32Array,
 * Float64Array (or Float16Array), or a Uint16Array of half bits (half: true).
 */
export function readTensor(fn, t, name = 'scores') {
  const data = t.data;
  const dimsIn = t.dims;
  const type = t.type;
  if (type !== undefined && !FLOAT_TYPES.has(type)) {
    throw new TypeError(`${fn}: ${name} is a tensor of type '${String(type)}'; logits must be 'float32', 'float16' or 'float64'`);
  }
  const kind = ArrayBuffer.isView(data) ? typedArrayKind(data) : undefined;
  const half = kind === 'Uint16Array';
  if (half ? type !== 'float16' : !(kind === 'Float32Array' || kind === 'Float64Array' || kind === 'Float16Array')) {
    throw new TypeError(
      `${fn}: ${name}.data must be a Float32Array, a Float64Array or (type 'float16') a Uint16Array of half bits, got ${describe(data)}${type ? ` with type '${type}'` : ''}`,
    );
  }
  if (isDetached(data)) throw new TypeError(`${fn}: ${name}.data is a detached ${kind}`);
  if (!Array.isArray(dimsIn) && !(ArrayBuffer.isView(dimsIn) && typedArrayKind(dimsIn) !== undefined)) {
    throw new TypeError(`${fn}: ${name}.dims must be an array of non-negative integers, got ${describe(dimsIn)}`);
  }
  const dims = Array.from(dimsIn, (d, i) => {
    const v = typeof d === 'bigint' ? Number(d) : d;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 2 ** 31 - 1) {
      throw new RangeError(`${fn}: ${name}.dims[${i}] must be a non-negative integer, got ${String(d)}`);
    }
    return v;
  });
  if (dims.length === 0) throw new RangeError(`${fn}: ${name}.dims must have at least one dimension`);
  const n = lengthOf(data);
  const product = dims.reduce((p, d) => p * d, 1);
  if (product !== n) {
    throw new RangeError(`${fn}: ${name}.dims [${dims.join(', ')}] hold ${product} elements but ${name}.data has ${n}`);
  }
  return { data, dims, half };
}

let halfTable;
/** float32 values of all 65536 half-precision bit patterns (built on first use). */
export function halfToFloat() {
  if (halfTable) return halfTable;
  halfTable = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const e = (h >> 10) & 0x1f;
    const m = h & 0x3ff;
    halfTable[h] = e === 0 ? sign * m * 2 ** -24 : e === 31 ? (m ? NaN : sign * Infinity) : sign * (1024 + m) * 2 ** (e - 25);
  }
  return halfTable;
}

/**
 * The logits of the last position of each batch row of a [batch, seq, vocab]
 * (or [batch, vocab], or [vocab]) tensor, as a tensor { data, dims: [batch,
 * vocab], type }: what a generation step samples from. With batch 1 (the
 * usual case) data is a view of the tensor's own data, no copy; with more rows
 * it is a copy (the rows' last positions are not contiguous).
 */
export function lastPosition(tensor) {
  if (!isTensor(tensor)) throw new TypeError(`lastPosition: tensor must be an object with data and dims, got ${describe(tensor)}`);
  const { data, dims, half } = readTensor('lastPosition', tensor, 'tensor');
  const type = tensor.type ?? (typedArrayKind(data) === 'Float64Array' ? 'float64' : half ? 'float16' : 'float32');
  const vocab = dims[dims.length - 1];
  const batch = dims.length >= 2 ? dims[0] : 1;
  const seq = dims.length >= 3 ? dims.slice(1, -1).reduce((p, d) => p * d, 1) : 1;
  if (dims.length === 1) return { data, dims: [1, vocab], type };
  if (seq === 0) throw new RangeError(`lastPosition: tensor has no positions (dims [${dims.join(', ')}])`);
  if (batch === 1) {
    const start = (seq - 1) * vocab;
    return { data: data.subarray(start, start + vocab), dims: [1, vocab], type };
  }
  const out = new data.constructor(batch * vocab);
  for (let b = 0; b < batch; b++) {
    const start = (b * seq + seq - 1) * vocab;
    out.set(data.subarray(start, start + vocab), b * vocab);
  }
  return { data: out, dims: [batch, vocab], type };
}
