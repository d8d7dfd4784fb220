// Reliability at the JS boundary: inputs that reach paths the bad-input matrix
// does not walk (stale and overlapping buffer() views, getters and Proxies that
// call the library or change the arguments mid-call, detached buffers, options
// that are not plain objects or do not survive their float32 conversion,
// foreign wasm modules, a scratch block left large). Every case expects the
// right answer (float64 reference) or a TypeError / RangeError naming the
// argument, and then a healthy module: softmax still matches the reference and
// the live sampler count is back where it was. Both wasm builds.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { BUILDS, logTol, mismatch, probTol, probTolT } from './helpers.js';
import { normalArray, refLogSoftmax, refLogSumExp, refSoftmax } from './reference.js';

const distUrl = (name) => new URL(`../../web/dist/${name}`, import.meta.url);
const wasmBytes = (simd) => readFileSync(distUrl(`softmax-${simd ? 'simd' : 'base'}.wasm`));
const PROBE = normalArray(300, { seed: 12, sd: 4 });
const PROBE_REF = refSoftmax(PROBE);

/** A module instance of its own (for cases that fill or grow wasm memory). */
const fresh = (simd) => load({ simd, locateFile: (name) => distUrl(name) });

/** Runs f, expects a `type` error whose message matches re; returns the error. */
function throwsNamed(f, type, re) {
  let err;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err, `expected a ${type.name} matching ${re}`).toBeInstanceOf(type);
  expect(err.message).toMatch(re);
  return err;
}

const near = (got, ref, tol = probTol) => expect(mismatch(got, ref, tol)).toBeNull();

function expectHealthy(sm) {
  near(sm.softmax(PROBE), PROBE_REF);
  const s = sm.createSampler({ seed: 5, temperature: 0 });
  try {
    expect(s.sample([0, 3, 1])).toBe(1);
  } finally {
    s.dispose();
  }
}

/**
 * The name an error message starts with, as a regex source. sm.sample(scores,
 * opts) is createSampler(opts).sample(scores): its errors about scores name
 * Sampler.sample.
 */
const caller = (fn) => (fn === 'sample' ? '(sample|Sampler\\.sample)' : fn.replace('.', '\\.'));

/** Detaches a typed array's buffer, as postMessage with a transfer list does. */
const detach = (view) => structuredClone(view.buffer, { transfer: [view.buffer] });

/** An array whose element `at` runs effect() when read, then yields its value. */
function withGetter(values, at, effect) {
  const x = [...values];
  Object.defineProperty(x, at, { get: () => (effect(), values[at]), enumerable: true });
  return x;
}

/** A Proxy of an array that runs effect() when element `at` is read. */
const proxyOf = (values, at, effect) =>
  new Proxy([...values], { get: (t, k, r) => (k === String(at) && effect(), Reflect.get(t, k, r)) });

describe.each(BUILDS)('reliability ($build build)', ({ simd }) => {
  let sm;
  let live;
  beforeAll(async () => {
    sm = await load({ simd });
  });
  beforeEach(() => {
    live = sm.liveSamplers;
  });
  afterEach(() => {
    expectHealthy(sm);
    expect(sm.liveSamplers).toBe(live);
  });

  describe('1. buffer() views from an earlier buffer() call', () => {
    test('as out or as scores: RangeError naming it, nothing written', () => {
      const a = sm.buffer(64);
      sm.buffer(16);
      throwsNamed(() => sm.softmax(new Float32Array(64), { out: a }), RangeError, /softmax: out is a view from an earlier buffer\(\) call/);
      const b = sm.buffer(64);
      b.set(normalArray(64, { seed: 3 }));
      const before = b.slice();
      throwsNamed(() => sm.logSoftmax(a, { out: b }), RangeError, /logSoftmax: scores is a view from an earlier buffer\(\) call/);
      expect(b).toEqual(before);
      // The current view works in place.
      near(sm.softmax(b, { out: b }), refSoftmax(before));
    });

    test('every entry point that takes scores rejects a stale view', () => {
      const stale = sm.buffer(8);
      stale.set([1, 2, 3, 4, 5, 6, 7, 8]);
      sm.buffer(8);
      const s = sm.createSampler({ seed: 1 });
      try {
        const calls = {
          softmax: () => sm.softmax(stale),
          logSoftmax: () => sm.logSoftmax(stale),
          softmaxNaive: () => sm.softmaxNaive(stale),
          logSumExp: () => sm.logSumExp(stale),
          softmaxSteps: () => sm.softmaxSteps(stale),
          argmax: () => sm.argmax(stale),
          'Sampler.sample': () => s.sample(stale),
          'Sampler.probs': () => s.probs(stale),
          'Sampler.sampleBatch': () => s.sampleBatch(stale, [2, 4]),
          sample: () => sm.sample(stale, { seed: 1 }),
        };
        for (const [fn, call] of Object.entries(calls)) {
          throwsNamed(call, RangeError, new RegExp(`^${caller(fn)}: scores is a view from an earlier buffer`));
        }
      } finally {
        s.dispose();
      }
    });

    test('a view of wasm memory outside the current block: RangeError naming it', () => {
      const b = sm.buffer(16);
      const low = new Float32Array(b.buffer, 0, 16); // the first bytes of wasm memory
      const across = new Float32Array(b.buffer, b.byteOffset + 8, 16); // runs past the block
      throwsNamed(() => sm.softmax(low), RangeError, /scores is a view of wasm memory outside the current buffer\(\) block/);
      throwsNamed(() => sm.softmax(new Float32Array(16), { out: low }), RangeError, /out is a view of wasm memory outside/);
      throwsNamed(() => sm.softmax(new Float32Array(16), { out: across }), RangeError, /out is a view of wasm memory outside/);
      throwsNamed(() => sm.logSumExp([1, 2, 3, 4], { shape: [2, 2], out: low.subarray(0, 2) }), RangeError, /out is a view of wasm memory outside/);
    });
  });

  describe('2. load() with a wasm that is not a softmax-wasm build', () => {
    const EMPTY = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]); // the 8-byte empty module
    // (module (func (export "f"))): valid, no imports, not ours
    const FOREIGN = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0, 7, 5, 1, 1, 0x66, 0, 0, 10, 4, 1, 2, 0, 0x0b]);
    // (module (import "x" "y" (func))): valid, with an import the glue does not provide
    const IMPORTS = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 2, 7, 1, 1, 0x78, 1, 0x79, 0, 0]);

    /** load(opts) settles within 10 s as a rejection with no unhandled rejection on the side. */
    async function rejects(opts, re) {
      const unhandled = [];
      const onUnhandled = (e) => unhandled.push(e);
      process.on('unhandledRejection', onUnhandled);
      let timer;
      try {
        const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve('pending after 10 s'), 10_000)));
        const result = await Promise.race([load(opts).then(() => 'resolved', (e) => e), timeout]);
        expect(result).toBeInstanceOf(Error);
        expect(result.message).toMatch(re);
        await new Promise((resolve) => setTimeout(resolve, 50)); // let a stray rejection surface
      } finally {
        clearTimeout(timer);
        process.off('unhandledRejection', onUnhandled);
      }
      expect(unhandled).toEqual([]);
    }

    test.each([
      ['the empty module as wasmBinary', () => ({ wasmBinary: EMPTY })],
      ['the empty module as module', () => ({ module: new WebAssembly.Module(EMPTY) })],
      ['a foreign module as wasmBinary', () => ({ wasmBinary: FOREIGN })],
      ['a foreign module as module', () => ({ module: new WebAssembly.Module(FOREIGN) })],
      ['a module with unknown imports as module', () => ({ module: new WebAssembly.Module(IMPORTS) })],
    ])('%s: rejects, saying the module could not be started', async (_name, opts) => {
      expect(WebAssembly.validate(EMPTY) && WebAssembly.validate(FOREIGN)).toBe(true);
      await rejects({ simd, ...opts() }, /^load: the wasm module could not be started \(is it a softmax-wasm build\?\)/);
    });

    test('bytes that are not WebAssembly: rejects naming wasmBinary', async () => {
      await rejects({ simd, wasmBinary: new TextEncoder().encode('not wasm') }, /^load: wasmBinary is not a valid WebAssembly module/);
    });

    test('a missing file: rejects naming the file, not a bare ENOENT', async () => {
      await rejects({ simd, locateFile: () => new URL('file:///nonexistent/softmax.wasm') }, /^load: cannot read file:\/\/\/nonexistent\/softmax\.wasm: .*ENOENT/);
    });
  });

  describe('3. getters and Proxies that call the library mid-call', () => {
    // Each outer call reads an argument whose getter makes an inner call: the
    // inner call is rejected with a TypeError naming both, and the outer call
    // fails with it (the getter does not catch it).
    const X = [0.5, 2, -1, 3];
    const outers = {
      softmax: (sm_, x) => sm_.softmax(x),
      logSoftmax: (sm_, x) => sm_.logSoftmax(x),
      softmaxNaive: (sm_, x) => sm_.softmaxNaive(x),
      logSumExp: (sm_, x) => sm_.logSumExp(x, { shape: [2, 2] }),
      softmaxSteps: (sm_, x) => sm_.softmaxSteps(x),
      argmax: (sm_, x) => sm_.argmax(x),
      sample: (sm_, x) => sm_.sample(x, { seed: 2 }),
      'Sampler.sample': (_, x, s) => s.sample(x),
      'Sampler.sampleMany': (_, x, s) => s.sampleMany(x, 4),
      'Sampler.probs': (_, x, s) => s.probs(x),
      'Sampler.logprobs': (_, x, s) => s.logprobs(x, 2),
      'Sampler.sampleBatch': (_, x, s) => s.sampleBatch(x, [2, 2]),
      'Sampler.accept': (_, x, s) => s.accept(x), // tokens, read element by element
      createSampler: (sm_, x) => sm_.createSampler({ history: x }).dispose(),
    };
    const inners = {
      softmax: (sm_) => sm_.softmax([1, 2]),
      buffer: (sm_) => sm_.buffer(1 << 16),
      createSampler: (sm_) => sm_.createSampler({ seed: 1 }),
      'Sampler.dispose': (_, s) => s.dispose(),
      'Sampler.sample': (_, s) => s.sample([1, 2]),
      argmax: (sm_) => sm_.argmax([1, 2]),
    };
    const rows = [];
    for (const outer of Object.keys(outers)) for (const inner of Object.keys(inners)) for (const via of ['getter', 'Proxy']) rows.push([outer, inner, via]);

    test.each(rows)('%s reading scores whose getter calls %s (%s): TypeError naming both', (outer, inner, via) => {
      const s = sm.createSampler({ seed: 9 });
      const other = sm.createSampler({ seed: 9 });
      try {
        const values = outer === 'Sampler.accept' || outer === 'createSampler' ? [1, 2, 3, 0] : X;
        const effect = () => inners[inner](sm, inner === 'Sampler.dispose' && outer.startsWith('Sampler') ? s : other);
        const x = via === 'getter' ? withGetter(values, 1, effect) : proxyOf(values, 1, effect);
        const callee = inner.replace('.', '\\.');
        throwsNamed(() => outers[outer](sm, x, s), TypeError, new RegExp(`^${callee}: called while ${caller(outer)} was reading its arguments`));
        // The sampler the getter tried to dispose is alive and keeps its stream.
        expect(s.disposed).toBe(false);
        expect(other.disposed).toBe(false);
      } finally {
        s.dispose();
        other.dispose();
      }
    });

    test('a getter in the options that calls the library: TypeError naming both', () => {
      const opts = {
        get temperature() {
          sm.softmax([1]);
          return 2;
        },
      };
      throwsNamed(() => sm.softmax([1, 2], opts), TypeError, /^softmax: called while softmax was reading its arguments/);
      const sOpts = {
        get topK() {
          sm.buffer(4);
          return 2;
        },
      };
      throwsNamed(() => sm.createSampler(sOpts), TypeError, /^buffer: called while createSampler was reading its arguments/);
      const tensor = {
        get data() {
          sm.logSumExp([1]);
          return new Float32Array([1, 2]);
        },
        dims: [2],
      };
      throwsNamed(() => sm.logSoftmax(tensor), TypeError, /^logSumExp: called while logSoftmax/);
    });

    test('a getter that catches the rejected nested call: the outer call is right', () => {
      const caught = [];
      const effect = () => {
        try {
          sm.softmax([1, 2, 3]);
        } catch (e) {
          caught.push(e);
        }
      };
      const values = normalArray(40, { seed: 21 });
      near(sm.softmax(withGetter(values, 7, effect)), refSoftmax(values));
      near(sm.logSoftmax(proxyOf(values, 39, effect)), refLogSoftmax(values), logTol);
      expect(Math.abs(sm.logSumExp(withGetter(values, 0, effect)) - refLogSumExp(values)[0])).toBeLessThanOrEqual(logTol(refLogSumExp(values)[0]));
      expect(caught).toHaveLength(3);
      for (const e of caught) expect(e).toBeInstanceOf(TypeError);
    });

    test('a sampler disposed by a getter during sample(): rejected, the sampler stays whole', () => {
      const s = sm.createSampler({ seed: 77 });
      const twin = sm.createSampler({ seed: 77 });
      try {
        let tried = 0;
        const x = withGetter([1, 2, 3, 2.5], 2, () => {
          tried++;
          s.dispose();
        });
        throwsNamed(() => s.sample(x), TypeError, /^Sampler\.dispose: called while Sampler\.sample was reading/);
        expect(tried).toBe(1);
        expect(s.disposed).toBe(false);
        // The failed call drew nothing: the stream matches a twin sampler's.
        const y = [1, 2, 3, 2.5];
        expect(Array.from(s.sampleMany(y, 16))).toEqual(Array.from(twin.sampleMany(y, 16)));
        // And a getter that catches the rejection lets sample() finish on the live sampler.
        const z = withGetter(y, 0, () => expect(() => s.dispose()).toThrow(TypeError));
        expect(s.sample(z)).toBe(twin.sample(y));
      } finally {
        s.dispose();
        twin.dispose();
      }
      expect(s.disposed).toBe(true);
      throwsNamed(() => s.sample([1, 2]), TypeError, /Sampler\.sample: the sampler is disposed/);
    });

    test('a getter that detaches or resizes scores or out: TypeError naming it, not NaN or a short result', () => {
      const s = sm.createSampler({ seed: 4 });
      try {
        for (const n of [6, 40]) {
          const vals = normalArray(n, { seed: n });
          // scores detached by a getter in shape (read after scores)
          const x = Float32Array.from(vals);
          const shape = withGetter([2, n / 2], 0, () => detach(x));
          throwsNamed(() => sm.softmax(x, { shape }), TypeError, /^softmax: scores was detached during the call/);
          // scores of a resizable buffer shrunk by such a getter
          const ab = new ArrayBuffer(4 * n, { maxByteLength: 8 * n });
          const r = new Float32Array(ab);
          r.set(vals);
          throwsNamed(() => sm.logSoftmax(r, { shape: withGetter([2, n / 2], 1, () => ab.resize(8)) }), TypeError, /^logSoftmax: scores was resized to 2 elements/);
          // out detached or shrunk by a getter in scores (read after out is checked)
          const out = new Float32Array(n);
          throwsNamed(() => sm.softmax(withGetter(vals, 1, () => detach(out)), { out }), TypeError, /^softmax: out was detached during the call/);
          const ob = new ArrayBuffer(4 * n, { maxByteLength: 4 * n });
          throwsNamed(() => sm.softmax(withGetter(vals, 1, () => ob.resize(4)), { out: new Float32Array(ob) }), TypeError, /^softmax: out was resized to 1 element /);
          const lo = new Float32Array(2);
          throwsNamed(() => sm.logSumExp(withGetter(vals, 3, () => detach(lo)), { shape: [2, n / 2], out: lo }), TypeError, /^logSumExp: out was detached/);
          // sampleBatch reads shape after scores
          const xb = Float32Array.from(vals);
          throwsNamed(() => s.sampleBatch(xb, withGetter([2, n / 2], 0, () => detach(xb))), TypeError, /^Sampler\.sampleBatch: scores was detached/);
        }
      } finally {
        s.dispose();
      }
    });

    test("a getter that grows another module's memory: a view of it as scores or out is rejected", async () => {
      const other = await fresh(simd);
      const out = other.buffer(3);
      const grow = () => other.softmax(new Float32Array(2 ** 21));
      throwsNamed(() => sm.softmax(withGetter([1, 2, 3], 1, grow), { out }), TypeError, /^softmax: out was detached/);
      const b = other.buffer(6);
      b.set([1, 2, 3, 4, 5, 6]);
      throwsNamed(() => sm.softmax(b, { shape: withGetter([2, 3], 0, () => other.softmax(new Float32Array(2 ** 22))) }), TypeError, /^softmax: scores was detached/);
      // Views of another module's memory that nothing changes are read as any JS array.
      const c = other.buffer(3);
      c.set([1, 2, 3]);
      near(sm.softmax(c), refSoftmax([1, 2, 3]));
      expectHealthy(other);
    });
  });

  describe('4. options that are finite as doubles but 0 or infinite as float32', () => {
    test.each([
      [{ repetitionPenalty: 1e39 }, /repetitionPenalty = 1e\+39 is Infinity as a float32/],
      [{ repetitionPenalty: 1e-46 }, /repetitionPenalty = 1e-46 is 0 as a float32/],
      [{ frequencyPenalty: 1e39 }, /frequencyPenalty = 1e\+39 is Infinity as a float32/],
      [{ presencePenalty: -1e39 }, /presencePenalty = -1e\+39 is -Infinity as a float32/],
      [{ temperature: 1e39, dynatempRange: 1 }, /dynatempRange needs a finite temperature, got temperature 1e\+39/],
      [{ logitBias: { 0: -1e39 } }, /logitBias\[0\] = -1e\+39 overflows float32/],
      [{ logitBias: new Map([[2, 1e39]]) }, /logitBias\[2\] = 1e\+39 overflows float32/],
    ])('createSampler(%o) and sample(): RangeError naming the option', (opts, re) => {
      throwsNamed(() => sm.createSampler(opts), RangeError, new RegExp(`^createSampler: ${re.source}`));
      throwsNamed(() => sm.sample([1, 2, 3], opts), RangeError, new RegExp(`^sample: ${re.source}`));
    });

    test('the float32 extremes themselves are accepted and act as documented', () => {
      const x = [1, 2, 3];
      // A huge repetition penalty divides the positive logits of the history to ~0.
      const s = sm.createSampler({ seed: 1, temperature: 0, repetitionPenalty: 3.4e38, history: [2] });
      const tiny = sm.createSampler({ seed: 1, temperature: 0, repetitionPenalty: 1.5e-45 });
      try {
        expect(s.sample(x)).toBe(1); // token 2's logit 3 / 3.4e38 ~ 0 < 2
        expect(tiny.sample(x)).toBe(2); // no history: the penalty touches nothing
      } finally {
        s.dispose();
        tiny.dispose();
      }
      // A float32-finite negative bias is a penalty, not a ban: the token keeps its place when all others are banned.
      expect(sm.sample([1, 2, 3], { seed: 1, logitBias: { 0: -3.4e38, 1: -Infinity, 2: -Infinity } })).toBe(0);
    });
  });

  describe('5. overlapping buffer() subviews as scores and out', () => {
    test.each([
      ['out one to the right', 0, 1],
      ['out one to the left', 1, 0],
      ['out two to the right', 0, 2],
      ['the same view', 2, 2],
    ])('%s: as if scores were copied first', (_name, from, to) => {
      const vals = [1, 2, 3, 4, 5, 6];
      for (const [fn, ref, tol] of [
        ['softmax', refSoftmax, probTol],
        ['logSoftmax', refLogSoftmax, logTol],
        ['softmaxNaive', refSoftmax, probTol],
      ]) {
        const b = sm.buffer(6);
        b.set(vals);
        const out = b.subarray(to, to + 3);
        expect(sm[fn](b.subarray(from, from + 3), { out })).toBe(out);
        near(out, ref(vals.slice(from, from + 3)), tol);
        // Outside out, nothing changed.
        for (let i = 0; i < 6; i++) if (i < to || i >= to + 3) expect(b[i]).toBe(vals[i]);
      }
      // The reproduction of the report, exactly.
      const b = sm.buffer(6);
      b.set([1, 2, 3, 4, 5, 6]);
      sm.softmax(b.subarray(0, 3), { out: b.subarray(1, 4) });
      near(b.subarray(1, 4), refSoftmax([1, 2, 3]));
    });

    test('logSumExp with out inside the scores it reads', () => {
      const vals = normalArray(12, { seed: 8 });
      const b = sm.buffer(12);
      b.set(vals);
      const out = b.subarray(5, 8);
      sm.logSumExp(b, { shape: [3, 4], out });
      near(out, refLogSumExp(vals, { shape: [3, 4] }), logTol);
      // N-D with the axis in the middle, out over the start.
      b.set(vals);
      const out2 = b.subarray(0, 6);
      sm.softmax(b.subarray(0, 12), { shape: [2, 3, 2], axis: 1, out: b.subarray(0, 12) });
      near(b.subarray(0, 12), refSoftmax(vals, { shape: [2, 3, 2], axis: 1 }));
      b.set(vals);
      sm.logSumExp(b, { shape: [2, 3, 2], axis: 1, out: out2.subarray(0, 4) });
      near(b.subarray(0, 4), refLogSumExp(vals, { shape: [2, 3, 2], axis: 1 }), logTol);
    });
  });

  describe('6. detached typed arrays', () => {
    const transferred = (Kind, values) => {
      const x = Kind.from(values);
      detach(x);
      return x;
    };
    test('transferred scores: every entry point throws a TypeError naming scores', () => {
      const s = sm.createSampler({ seed: 1 });
      try {
        for (const Kind of [Float32Array, Float64Array]) {
          const x = transferred(Kind, [1, 2, 3]);
          const calls = {
            softmax: () => sm.softmax(x),
            logSoftmax: () => sm.logSoftmax(x),
            softmaxNaive: () => sm.softmaxNaive(x),
            logSumExp: () => sm.logSumExp(x),
            softmaxSteps: () => sm.softmaxSteps(x),
            argmax: () => sm.argmax(x),
            sample: () => sm.sample(x, { seed: 1 }),
            'Sampler.sample': () => s.sample(x),
            'Sampler.sampleMany': () => s.sampleMany(x, 2),
            'Sampler.probs': () => s.probs(x),
            'Sampler.logprobs': () => s.logprobs(x, 1),
            'Sampler.sampleBatch': () => s.sampleBatch(x, [1, 3]),
          };
          for (const [fn, call] of Object.entries(calls)) {
            throwsNamed(call, TypeError, new RegExp(`^${caller(fn)}: scores is a detached ${Kind.name}`));
          }
        }
        const t = { data: transferred(Float32Array, [1, 2]), dims: [2] };
        throwsNamed(() => sm.softmax(t), TypeError, /^softmax: scores\.data is a detached Float32Array/);
        throwsNamed(() => s.accept(transferred(Int32Array, [1, 2])), TypeError, /^Sampler\.accept: tokens is a detached Int32Array/);
        throwsNamed(() => sm.createSampler({ history: transferred(Int32Array, [1]) }), TypeError, /^createSampler: history is a detached Int32Array/);
        throwsNamed(() => sm.softmax([1, 2], { out: transferred(Float32Array, [0, 0]) }), TypeError, /^softmax: out is a detached Float32Array/);
      } finally {
        s.dispose();
      }
    });

    test('a large buffer() view as out, scores copied in or an N-D axis: the call does not grow memory under it', async () => {
      const own = await fresh(simd);
      const N = 2 ** 22; // 16 MiB of float32: far more than a fresh instance holds
      const x = new Float32Array(N);
      for (let i = 0; i < N; i++) x[i] = (i % 7) - 3;
      const e = [-3, -2, -1, 0, 1, 2, 3].map(Math.exp);
      let total = 0;
      for (let i = 0; i < N; i++) total += e[i % 7];
      for (const fn of ['softmax', 'logSoftmax']) {
        const out = own.buffer(N);
        const r = own[fn](x, { out });
        expect(r).toBe(out);
        expect(out.length).toBe(N);
        for (const i of [0, 3, N - 1]) {
          const p = e[i % 7] / total;
          const want = fn === 'softmax' ? p : Math.log(p);
          expect(Math.abs(out[i] - want)).toBeLessThanOrEqual(1e-6 * Math.abs(want));
        }
      }
      // In place along the leading axis of a [N / 4, 4] tensor (the core transposes into its own scratch).
      const b = own.buffer(N);
      b.set(x);
      const r = own.softmax(b, { shape: [N / 4, 4], axis: 0, out: b });
      expect(r).toBe(b);
      expect(b.length).toBe(N);
      let col = 0;
      for (let i = 0; i < N; i += 4) col += b[i];
      expect(Math.abs(col - 1)).toBeLessThan(1e-3);
      expectHealthy(own);
    }, 60_000);

    test('a buffer() view and its subarray after wasm memory grew: TypeError naming it', async () => {
      const own = await fresh(simd);
      const b = own.buffer(16);
      b.set(normalArray(16, { seed: 2 }));
      const sub = b.subarray(2, 10);
      const heap = own.heapBytes;
      own.softmax(new Float32Array(2 ** 20)); // 4 MiB: more than the fresh instance holds
      expect(own.heapBytes).toBeGreaterThan(heap);
      throwsNamed(() => own.softmax(sub), TypeError, /^softmax: scores is a detached Float32Array \(its buffer was transferred, or it viewed wasm memory that has since grown\)/);
      throwsNamed(() => own.logSumExp(b), TypeError, /^logSumExp: scores is a buffer\(\) view that wasm memory growth invalidated; call buffer\(\) again/);
      throwsNamed(() => own.softmax(new Float32Array(16), { out: b }), TypeError, /^softmax: out is a buffer\(\) view that wasm memory growth invalidated/);
      const s = own.createSampler({ seed: 1 });
      throwsNamed(() => s.sample(sub), TypeError, /^Sampler\.sample: scores is a detached Float32Array/);
      s.dispose();
      expectHealthy(own);
      expect(own.liveSamplers).toBe(0);
    });
  });

  describe('7. options that would be silently ignored', () => {
    const FNS = {
      softmax: (o) => sm.softmax([1, 2], o),
      logSoftmax: (o) => sm.logSoftmax([1, 2], o),
      softmaxNaive: (o) => sm.softmaxNaive([1, 2], o),
      logSumExp: (o) => sm.logSumExp([1, 2], o),
      softmaxSteps: (o) => sm.softmaxSteps([1, 2], o),
      createSampler: (o) => sm.createSampler(o).dispose(),
      sample: (o) => sm.sample([1, 2], o),
    };
    class Options {
      temperature = 2;
    }
    test.each(Object.keys(FNS))('%s: a Map, a class instance or inherited keys -> TypeError naming options', (fn) => {
      throwsNamed(() => FNS[fn](new Map([['temperature', 2]])), TypeError, new RegExp(`^${fn}: options must be an object, got a Map`));
      throwsNamed(() => FNS[fn](new Options()), TypeError, new RegExp(`^${fn}: options must be an object.*plain object`));
      throwsNamed(() => FNS[fn](Object.create({ temprature: 2 })), TypeError, new RegExp(`^${fn}: options must be an object.*plain object`));
      const hidden = {};
      Object.defineProperty(hidden, 'temprature', { value: 2 }); // not enumerable
      throwsNamed(() => FNS[fn](hidden), TypeError, new RegExp(`^${fn}: unknown option 'temprature' \\(did you mean 'temperature'\\?\\)`));
      throwsNamed(() => FNS[fn]({ [Symbol('t')]: 1 }), TypeError, new RegExp(`^${fn}: unknown option Symbol\\(t\\)`));
    });

    test('softmaxNaive has no masked policy: masked is an unknown option', () => {
      throwsNamed(() => sm.softmaxNaive([1, 2], { masked: 'zeros' }), TypeError, /^softmaxNaive: unknown option 'masked'/);
    });

    test('a known key that is not enumerable, or on a null-prototype object, is honoured', () => {
      const hidden = {};
      Object.defineProperty(hidden, 'temperature', { value: 2 });
      const bare = Object.assign(Object.create(null), { temperature: 2 });
      const ref = refSoftmax([1, 2, 4], { temperature: 2 });
      near(sm.softmax([1, 2, 4], hidden), ref, probTolT);
      near(sm.softmax([1, 2, 4], bare), ref, probTolT);
      const s = sm.createSampler(Object.assign(Object.create(null), { seed: 3, temperature: 2 }));
      try {
        expect(s.options.temperature).toBe(2);
        near(s.probs([1, 2, 4]), ref, probTolT);
      } finally {
        s.dispose();
      }
    });
  });

  describe('8. sm.simd is read from the module that runs', () => {
    test('a WebAssembly.Module of either build, whatever simd asked for', async () => {
      for (const moduleSimd of [true, false]) {
        for (const asked of ['auto', simd]) {
          const other = await load({ simd: asked, module: new WebAssembly.Module(wasmBytes(moduleSimd)) });
          expect(other.simd).toBe(moduleSimd);
          expectHealthy(other);
        }
      }
      const viaBytes = await load({ simd, wasmBinary: wasmBytes(!simd) });
      expect(viaBytes.simd).toBe(!simd);
      expect((await load({ simd })).simd).toBe(simd);
    });
  });

  describe('9. arguments read once, as what they are', () => {
    test('an axis getter that answers differently the second time is read once', () => {
      let reads = 0;
      const opts = {
        shape: [2, 3],
        get axis() {
          return reads++ === 0 ? 0 : 5;
        },
      };
      const x = [1, 2, 3, 4, 5, 7];
      near(sm.softmax(x, opts), refSoftmax(x, { shape: [2, 3], axis: 0 }));
      expect(reads).toBe(1);
      reads = 0;
      near(sm.logSumExp(x, opts), refLogSumExp(x, { shape: [2, 3], axis: 0 }), logTol);
      expect(reads).toBe(1);
      // A shape whose element getter changes its answer: read once too.
      let shapeReads = 0;
      const shape = withGetter([2, 3], 1, () => shapeReads++);
      Object.defineProperty(shape, 0, { get: () => (shapeReads++ === 0 ? 2 : 6), enumerable: true });
      near(sm.softmax(x, { shape, axis: 0 }), refSoftmax(x, { shape: [2, 3], axis: 0 }));
      expect(shapeReads).toBe(2);
    });

    test('a Float64Array view of wasm memory is read as float64', () => {
      const b = sm.buffer(8);
      const v = new Float64Array(b.buffer, b.byteOffset, 4);
      const vals = [1e8, 1e8 + 1, -3.5, 0.25];
      v.set(vals);
      near(sm.softmax(v), refSoftmax(vals));
      near(sm.logSoftmax(v, { out: new Float32Array(4) }), refLogSoftmax(vals), logTol);
      expect(sm.argmax(v)).toBe(0); // 1e8 and 1e8 + 1 are one float32
      // As out, only a Float32Array is accepted.
      throwsNamed(() => sm.softmax([1, 2, 3, 4], { out: v }), TypeError, /^softmax: out must be a Float32Array, got Float64Array/);
    });
  });

  describe('10. methods detached from the module', () => {
    test('destructured and passed as callbacks, they work', () => {
      const { softmax, logSoftmax, logSumExp, softmaxNaive, softmaxSteps, argmax, sigmoid, buffer, createSampler, sample, lastPosition } = sm;
      const x = normalArray(20, { seed: 4 });
      near(softmax(x), refSoftmax(x));
      near(logSoftmax(x), refLogSoftmax(x), logTol);
      expect(Math.abs(logSumExp(x) - refLogSumExp(x)[0])).toBeLessThanOrEqual(logTol(refLogSumExp(x)[0]));
      near(softmaxNaive(x), refSoftmax(x));
      near(softmaxSteps(x).probs, refSoftmax(x));
      expect(argmax([1, 5, 2])).toBe(1);
      const zs = [1, 2, -3, 0];
      near(Float32Array.from(zs.map(sigmoid)), zs.map((z) => 1 / (1 + Math.exp(-z))));
      const b = buffer(3);
      b.set([2, 1, 0]);
      near(softmax(b, { out: b }), refSoftmax([2, 1, 0]));
      const s = createSampler({ seed: 1, temperature: 0 });
      expect(s.sample([0, 1, 9, 2])).toBe(2);
      s.dispose();
      expect(sample([0, 1, 9, 2], { temperature: 0 })).toBe(2);
      expect(Array.from(lastPosition({ data: new Float32Array([1, 2, 3, 4]), dims: [1, 2, 2] }).data)).toEqual([3, 4]);
      expect([[2, 1, 0], [0, 3]].map(argmax)).toEqual([0, 1]);
    });
  });

  describe('11. float32 conversion and memory', () => {
    test('scores beyond float32 are rounded to it first (documented)', () => {
      // 1e39 and 2e39 are both +Infinity as float32: the +Infinity entries share the mass.
      expect(Array.from(sm.softmax([1e39, 2e39]))).toEqual([0.5, 0.5]);
      expect(Array.from(sm.softmax([1e39, 3e38]))).toEqual([1, 0]);
      expect(sm.logSumExp([1e39, 1])).toBe(Infinity);
      // 1e8 and 1e8 + 1 are one float32: equal probabilities, as the float32 reference says.
      const y = sm.softmax(new Float64Array([1e8, 1e8 + 1]));
      near(y, refSoftmax([1e8, 1e8 + 1]));
      expect(Array.from(y)).toEqual([0.5, 0.5]);
      // Below the smallest float32, a score is 0.
      near(sm.softmax([1e-46, 0]), [0.5, 0.5]);
    });

    test('temperature is rounded to float32: below 1.4e-45 it is 0 (greedy), above 3.4e38 Infinity (uniform)', () => {
      expect(Array.from(sm.softmax([1, 2, 0], { temperature: 1e-46 }))).toEqual([0, 1, 0]);
      expect(Array.from(sm.softmax([1, 2, 0], { temperature: 1e39 }))).toEqual(Array.from(sm.softmax([1, 2, 0], { temperature: Infinity })));
      near(sm.softmax([1, 2, 0], { temperature: 1e39 }), [1 / 3, 1 / 3, 1 / 3]);
      // 1 + 2^-30 is 1 as a float32: the T = 1 result to the bit.
      expect(sm.softmax([1, 2, 0.5], { temperature: 1 + 2 ** -30 })).toEqual(sm.softmax([1, 2, 0.5]));
      const s = sm.createSampler({ seed: 11, temperature: 1e-46 });
      try {
        expect(Array.from(s.sampleMany([1, 2, 0], 50)).every((i) => i === 1)).toBe(true);
      } finally {
        s.dispose();
      }
    });

    test('a call far larger than the working set does not keep its scratch block', async () => {
      // 2^27 one-element slices: 512 MiB of scores and 1 GiB of float64 results
      // staged in wasm memory. Kept, that block would leave no room for a 1 GiB buffer.
      const own = await fresh(simd);
      let x = new Float32Array(2 ** 27);
      x[5] = 3;
      let r = own.logSumExp(x, { shape: [2 ** 27, 1] });
      expect(r.length).toBe(2 ** 27);
      expect([r[0], r[5]]).toEqual([0, 3]);
      x = null;
      r = null;
      const b = own.buffer(2 ** 28);
      expect(b.length).toBe(2 ** 28);
      b[7] = 10;
      const picked = own.argmax(b);
      expect(picked).toBe(7);
      own.buffer(0);
      expectHealthy(own);
    });

    test('accept() beyond wasm memory names the history, and the sampler keeps working', async () => {
      const own = await fresh(simd);
      own.buffer(2 ** 28); // 1 GiB of the 2 GiB
      const s = own.createSampler({ seed: 2, temperature: 0, repetitionPenalty: 1e6 });
      throwsNamed(() => s.accept(new Int32Array(2 ** 27)), RangeError, /^Sampler\.accept: (the history does|tokens do) not fit in wasm memory/);
      own.buffer(0);
      s.accept([2]);
      expect(s.sample([0, 1, 3])).toBe(1); // token 2 was penalised
      s.dispose();
      expectHealthy(own);
      expect(own.liveSamplers).toBe(0);
    });
  });

  describe('12. load() with a custom source', () => {
    test('is memoised per module or wasmBinary object', async () => {
      const module = new WebAssembly.Module(wasmBytes(simd));
      const bytes = wasmBytes(simd);
      const [a, b] = await Promise.all([load({ simd, module }), load({ simd, module })]);
      expect(a).toBe(b);
      expect(await load({ simd, wasmBinary: bytes })).toBe(await load({ simd, wasmBinary: bytes }));
      expect(await load({ simd, wasmBinary: bytes })).not.toBe(a);
      expectHealthy(a);
    });

    test('a relative locateFile result resolves against the working directory in Node', async () => {
      const dir = relative(process.cwd(), fileURLToPath(distUrl('')));
      expect(dir.startsWith('/')).toBe(false);
      const asked = [];
      const own = await load({ simd, locateFile: (name) => (asked.push(name), `${dir}/${name}`) });
      expect(asked).toEqual([`softmax-${simd ? 'simd' : 'base'}.wasm`]);
      expect(own.simd).toBe(simd);
      expectHealthy(own);
    });
  });
});
