// Wasm memory as the JavaScript API uses it: one scratch block for staged
// inputs and outputs, the buffer() block that users fill in place, the
// staging of scores, and the guard that keeps a call whole.
//
// The rules, enforced here for every call:
// - Every input is read once, into JS-owned or wasm-owned memory, and checked
//   as it is read; pointers are computed after that and used at once.
// - A call in progress rejects a nested call into the same module (a getter
//   or Proxy in the arguments that calls the library) with a TypeError naming
//   both; nothing user-written runs between staging and the wasm call.
// - A Float32Array that lies in wasm memory is used in place only when it
//   lies inside the current buffer() block; a view from an earlier buffer()
//   call, or one that memory growth detached, is a RangeError.
// - A JavaScript typed array (scores or `out`) is checked again where it is
//   read or written: a getter in the other arguments that detached or resized
//   it in between is a TypeError naming it, never NaN or a truncated result.
// - The scratch block is kept between calls, but one much larger than the
//   usual working set (over 8 MiB) is freed when the call ends.
import { byteOffsetOf, bufferOf, describe, isDetached, lengthOf, typedArrayKind } from './validate.js';
import { halfToFloat, isTensor, readTensor } from './scores.js';

export const MAX_ELEMENTS = 2 ** 28; // 1 GiB of float32: wasm32 memory cannot hold two of more
const KEEP_SCRATCH_BYTES = 8 * 2 ** 20;
const MAX_MALLOC = 2 ** 31 - 2 ** 16; // malloc takes a 32-bit size: larger requests would wrap

export const align8 = (bytes) => (bytes + 7) & ~7;

export class Memory {
  /** The Emscripten module (HEAP views, _malloc, _free, the bindings). */
  m;
  #busy = '';
  #scratch = 0;
  #scratchBytes = 0;
  #block = 0; // the buffer() block: [#block, #block + #blockBytes)
  #blockBytes = 0;
  #generation = 0;
  #views = new WeakMap(); // buffer() views -> their generation

  constructor(m) {
    this.m = m;
  }

  /** Marks the start of a call; a nested call throws. Pair with leave() in finally. */
  enter(fn) {
    if (this.#busy !== '') {
      const outer = this.#busy;
      throw new TypeError(
        `${fn}: called while ${outer} was reading its arguments (a getter, a Proxy or a callback in them calls the library); call ${fn} before or after ${outer}`,
      );
    }
    this.#busy = fn;
  }

  leave() {
    this.#busy = '';
    if (this.#scratchBytes > KEEP_SCRATCH_BYTES) {
      this.m._free(this.#scratch);
      this.#scratch = 0;
      this.#scratchBytes = 0;
    }
  }

  /** The scratch block, at least `bytes` long (wasm memory may grow: re-read HEAP views after). */
  alloc(fn, bytes, what = 'scores') {
    if (bytes <= this.#scratchBytes) return this.#scratch;
    if (bytes > MAX_MALLOC) throw new RangeError(`${fn}: ${what} do not fit in wasm memory (${bytes} bytes)`);
    this.m._free(this.#scratch);
    this.#scratch = 0;
    this.#scratchBytes = 0;
    const size = bytes > KEEP_SCRATCH_BYTES ? bytes : Math.min(Math.max(bytes, 2 * this.#scratchBytes, 4096), KEEP_SCRATCH_BYTES);
    const p = this.m._malloc(size);
    if (p === 0) throw new RangeError(`${fn}: ${what} do not fit in wasm memory (${bytes} bytes)`);
    this.#scratch = p;
    this.#scratchBytes = size;
    return p;
  }

  /** A new buffer() block of n float32s; earlier buffer() views stop being valid. */
  buffer(n) {
    this.m._free(this.#block);
    this.#block = 0;
    this.#blockBytes = 0;
    this.#generation++;
    // Room for the calls that use the buffer (a staged copy of scores and the
    // core's own scratch for an N-D axis, up to n floats each), reserved now:
    // a call that grew wasm memory would invalidate the view returned here.
    const room = this.m._malloc(Math.min(MAX_MALLOC, 3 * n * 4 + 65536));
    if (room !== 0) this.m._free(room);
    const p = this.m._malloc(Math.max(4, n * 4));
    if (p === 0) throw new RangeError(`buffer: ${n} elements do not fit in wasm memory`);
    this.#block = p;
    this.#blockBytes = n * 4;
    const view = new Float32Array(this.m.HEAPF32.buffer, p, n);
    this.#views.set(view, this.#generation);
    return view;
  }

  /**
   * Where a typed array lies: { inHeap: false } for JS memory, or
   * { inHeap: true, ptr, n } for a valid place in wasm memory (a Float32Array
   * inside the current buffer() block). Throws for a detached array, a stale
   * or stray view of wasm memory.
   */
  place(fn, name, view, kind) {
    const buffer = bufferOf(view);
    if (buffer === this.m.HEAPU8.buffer) {
      const ptr = byteOffsetOf(view);
      const n = lengthOf(view);
      const gen = this.#views.get(view);
      if (gen !== undefined && gen !== this.#generation) {
        throw new RangeError(`${fn}: ${name} is a view from an earlier buffer() call; buffer() views are valid until the next buffer() call`);
      }
      if (kind !== 'Float32Array') return { inHeap: false, wasmCopy: true };
      const end = ptr + 4 * n;
      if (n > 0 && !(ptr >= this.#block && end <= this.#block + this.#blockBytes)) {
        throw new RangeError(
          `${fn}: ${name} is a view of wasm memory outside the current buffer() block; use the view that buffer() returned (valid until the next buffer() call)`,
        );
      }
      return { inHeap: true, ptr, n };
    }
    if (isDetached(view)) {
      const what = this.#views.has(view)
        ? 'a buffer() view that wasm memory growth invalidated; call buffer() again'
        : `a detached ${kind} (its buffer was transferred, or it viewed wasm memory that has since grown)`;
      throw new TypeError(`${fn}: ${name} is ${what}`);
    }
    return { inHeap: false, wasmCopy: false };
  }

  /**
   * Reads scores once and says how to stage them: { n, dims, src, data, how }, how
   * one of 'heap' (in place at ptr), 'array', 'typed' (a JS typed array of
   * numbers), 'half' (Uint16Array of half bits). dims: a tensor's dims.
   */
  read(fn, scores, name = 'scores') {
    if (Array.isArray(scores)) {
      const n = scores.length;
      if (n > MAX_ELEMENTS) throw new RangeError(`${fn}: ${name} has ${n} elements, more than wasm memory holds`);
      return { n, dims: undefined, src: scores, how: 'array', ptr: 0 };
    }
    let data = scores;
    let dims;
    let half = false;
    if (isTensor(scores)) {
      ({ data, dims, half } = readTensor(fn, scores, name));
    }
    const kind = ArrayBuffer.isView(data) ? typedArrayKind(data) : undefined;
    if (!(kind === 'Float32Array' || kind === 'Float64Array' || kind === 'Float16Array' || half)) {
      throw new TypeError(
        `${fn}: ${name} must be an array of numbers, a Float32Array, a Float64Array or a tensor ({ data, dims }), got ${describe(scores)}`,
      );
    }
    const where = this.place(fn, name, data, kind);
    const n = lengthOf(data);
    if (n > MAX_ELEMENTS) throw new RangeError(`${fn}: ${name} has ${n} elements, more than wasm memory holds`);
    if (where.inHeap) return { n, dims, src: data, how: 'heap', ptr: where.ptr };
    // Another kind of view of wasm memory: copied out first, since staging may grow (and detach) it.
    // data: the caller's array (applyTokenBitmask writes into it).
    const src = where.wasmCopy ? data.slice() : data;
    return { n, dims, src, data, how: half ? 'half' : 'typed', ptr: 0 };
  }

  /**
   * Writes input (from read) at byte offset `at` of wasm memory, checking
   * array elements as they are read. Call after alloc, with nothing in between.
   */
  write(fn, input, at, name = 'scores', first = 0, count = input.n) {
    const h = this.m.HEAPF32;
    const base = at >> 2;
    const src = input.src;
    if (input.how === 'typed' || input.how === 'half') stillWhole(fn, name, src, first + count);
    if (input.how === 'array') {
      for (let i = 0; i < count; i++) {
        const v = src[first + i];
        if (typeof v !== 'number') {
          throw new TypeError(`${fn}: ${name}[${first + i}] must be a number, got ${first + i in src ? describe(v) : 'a hole'}`);
        }
        h[base + i] = v;
      }
    } else if (input.how === 'half') {
      const table = halfToFloat();
      for (let i = 0; i < count; i++) h[base + i] = table[src[first + i]];
    } else if (input.how === 'heap') {
      h.copyWithin(base, (input.ptr >> 2) + first, (input.ptr >> 2) + first + count);
    } else if (count <= 16) {
      for (let i = 0; i < count; i++) h[base + i] = src[first + i];
    } else {
      h.set(first === 0 && count === src.length ? src : src.subarray(first, first + count), base);
    }
  }

  /**
   * After a call that wrote into a buffer() view in place: the view must still
   * be usable. The call may have had to grow wasm memory (scores much larger
   * than the buffer, copied in), which detaches every view of it.
   */
  checkGrown(fn, name, view) {
    if (!isDetached(view)) return;
    throw new RangeError(
      `${fn}: ${name} is a buffer() view and this call had to grow wasm memory, which invalidates every view of it; call buffer() again and repeat the call (memory does not shrink: it then fits)`,
    );
  }

  /** Copies n float32s at byte offset `at` of wasm memory into out (a JS Float32Array checked at entry). */
  writeOut(fn, out, at, n, name = 'out') {
    stillWhole(fn, name, out, n, n);
    const heap = this.m.HEAPF32;
    const i = at >> 2;
    if (n <= 16) for (let k = 0; k < n; k++) out[k] = heap[i + k];
    else out.set(heap.subarray(i, i + n));
    return out;
  }

  /** Heap memory in bytes (diagnostics). */
  get heapBytes() {
    return this.m.HEAPU8.length;
  }
}

/**
 * A JS typed array checked at entry must still hold `min` elements (exactly
 * `exact` when given) where it is used: a getter in the other arguments may
 * have detached it (a transfer, or growth of another module's memory) or
 * resized its buffer.
 */
export function stillWhole(fn, name, view, min, exact) {
  const n = lengthOf(view);
  if (exact === undefined ? n >= min : n === exact) return;
  throw new TypeError(
    `${fn}: ${name} was ${n === 0 && isDetached(view) ? 'detached' : `resized to ${n} element${n === 1 ? '' : 's'}`} during the call (by a getter or Proxy in the arguments, or, for a buffer() view, by wasm memory growth); pass arrays that nothing changes until the call returns`,
  );
}
