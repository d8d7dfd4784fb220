// Property test of the JS boundary (fast-check): random sequences of API calls
// on a module instance, with the inputs an adversarial but realistic caller
// hands over: getters and Proxies that call the library or dispose a sampler
// in the middle of a call, stale, overlapping and out-of-block buffer() views,
// buffers detached by a transfer or by wasm memory growth, Maps and class
// instances as options, huge and tiny values (beyond float32, subnormal, +-0,
// +-Infinity, NaN). Each step must give the float64 reference's answer or a
// TypeError / RangeError of the kind its faults call for, and after each step
// the module must be healthy: softmax of a probe vector is right, the live
// sampler count is what the steps left, and the buffer() block holds what the
// steps wrote there and nothing else.
//
// SMX_BOUNDARY_RUNS sequences (default 10,000, the CI value); a failure prints
// the shrunk sequence and the seed to replay it (SMX_BOUNDARY_SEED).
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { logTol, mismatch, probTol, probTolT } from './helpers.js';
import { normalArray, refSoftmax, slices } from './reference.js';

const RUNS = Number(process.env.SMX_BOUNDARY_RUNS ?? 10_000);
const SEED = process.env.SMX_BOUNDARY_SEED === undefined ? undefined : Number(process.env.SMX_BOUNDARY_SEED);
const dist = (name) => new URL(`../../web/dist/${name}`, import.meta.url);
const f32 = Math.fround;
const PROBE = normalArray(24, { seed: 31, sd: 3 });
const PROBE_REF = refSoftmax(PROBE);

// ---------------------------------------------------------------- generators

/** Scores: mostly normal(0, 4), with the values that sit at float32's edges. */
const SPECIAL = [-Infinity, 1e39, -1e39, 3.4028234663852886e38, -3.4028234663852886e38, 1e-46, -0, 0, 1e8, 1e8 + 1, NaN, 1e300];
const value = fc.oneof(
  { weight: 12, arbitrary: fc.double({ min: -12, max: 12, noNaN: true }) },
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL) },
);
const values = fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 9, arbitrary: fc.array(value, { minLength: 1, maxLength: 24 }) });

const getterAction = fc.constantFrom('reenter', 'reenterCaught', 'disposeSampler', 'detachOut');
const scoresSpec = fc.record({
  values,
  kind: fc.constantFrom('array', 'array', 'f32', 'f64', 'tensor', 'view', 'view', 'staleView', 'staleSub', 'detached'),
  start: fc.nat(40),
  via: fc.constantFrom('plain', 'plain', 'getter', 'proxy'),
  at: fc.nat(30),
  action: getterAction,
});
const outSpec = fc.constantFrom('none', 'none', 'none', 'js', 'js', 'view', 'view', 'view', 'view', 'stale', 'detached', 'wrongLength');
const temperature = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(undefined, undefined, undefined, 1, 0.5, 2, 1e-46, 1e39, 0, Infinity, 3.4e38, 1 + 2 ** -30) },
  { weight: 1, arbitrary: fc.constantFrom(-1, NaN, '2') },
);
const optsSpec = fc.record({
  form: fc.constantFrom('plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'nullProto', 'map', 'class', 'reenterGetter', 'shapeDetach'),
  temperature,
  shaped: fc.boolean(),
  axis: fc.constantFrom(undefined, 0, 1, -1, -2, 2),
});
const samplerOpts = fc.record({
  form: fc.constantFrom('plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'map', 'class'),
  temperature: fc.constantFrom(undefined, 1, 0.7, 0, 1e-46, Infinity, 1e39),
  extra: fc.constantFrom('none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'bigPenalty', 'biasOk', 'biasBan', 'tinyPenalty', 'hugePenalty', 'freq', 'presence', 'biasOverflow'),
  seed: fc.nat(1000),
});

const step = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant('buffer'), n: fc.nat(48) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('fill'), values: fc.array(value, { minLength: 48, maxLength: 48 }) }) },
  {
    weight: 8,
    arbitrary: fc.record({
      op: fc.constant('call'),
      fn: fc.constantFrom('softmax', 'logSoftmax', 'softmaxNaive', 'logSumExp', 'argmax', 'softmaxSteps'),
      scores: scoresSpec,
      out: outSpec,
      outStart: fc.nat(40),
      opts: optsSpec,
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('createSampler'), opts: samplerOpts }) },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('samplerCall'),
      which: fc.nat(4),
      method: fc.constantFrom('sample', 'probs', 'sampleMany', 'logprobs'),
      count: fc.nat(5),
      scores: scoresSpec,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('dispose'), which: fc.nat(4) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('grow') }) },
);
const run = fc.record({
  instance: fc.oneof({ weight: 24, arbitrary: fc.constantFrom('simd', 'base') }, { weight: 1, arbitrary: fc.constant('fresh') }),
  prelude: fc.option(fc.array(value, { minLength: 48, maxLength: 48 }), { freq: 2 }), // a filled buffer(48) first
  freshSimd: fc.boolean(),
  steps: fc.array(step, { minLength: 1, maxLength: 8 }),
});

// ---------------------------------------------------------------- reference

const isHeapDetached = (v) => v.buffer.byteLength === 0;

/** softmax (log: log-softmax) of one slice of float32 values at float32 temperature T, in double. */
function refSlice(x, T, log) {
  if (x.some(Number.isNaN)) return x.map(() => NaN);
  const max = Math.max(...x);
  if (max === -Infinity) return x.map(() => NaN); // masked: 'nan'
  const share = (pick) => {
    const k = x.filter(pick).length;
    return x.map((v) => (pick(v) ? (log ? -Math.log(k) : 1 / k) : log ? -Infinity : 0));
  };
  if (T === Infinity) return share((v) => v !== -Infinity);
  if (T === 0 || max === Infinity) return share((v) => v === max);
  const z = x.map((v) => (v - max) / T);
  const sum = z.reduce((s, v) => s + Math.exp(v), 0);
  return z.map((v) => (log ? v - Math.log(sum) : Math.exp(v) / sum));
}

/** log-sum-exp of one slice, or undefined where the limit is not pinned down (T = 0, max 0). */
function refLse(x, T) {
  if (x.length === 0) return -Infinity;
  if (x.some(Number.isNaN)) return NaN;
  const max = Math.max(...x);
  if (max === -Infinity) return -Infinity;
  if (T === Infinity) return Math.log(x.filter((v) => v !== -Infinity).length);
  if (max === Infinity) return Infinity;
  if (T === 0) return max > 0 ? Infinity : max < 0 ? -Infinity : undefined;
  return max / T + Math.log(x.reduce((s, v) => s + Math.exp((v - max) / T), 0));
}

/** The textbook exp(x / T) / sum in float32, or undefined near exp's overflow (float32 and double exp differ there). */
function refNaive(x, T) {
  const q = x.map((v) => f32(v / T));
  if (q.some((v) => v > 88 && v < 89.5)) return undefined;
  const e = q.map((v) => (Number.isNaN(v) ? NaN : Math.exp(v) > 3.4028234663852886e38 ? Infinity : Math.exp(v)));
  const sum = e.reduce((s, v) => s + v, 0);
  return e.map((v) => v / sum);
}

function applyAlong(x, shape, axis, f) {
  const y = new Float64Array(x.length);
  for (const idx of slices(x.length, shape, axis ?? -1)) {
    const r = f(idx.map((i) => x[i]));
    if (r === undefined) return undefined;
    idx.forEach((i, k) => (y[i] = r[k]));
  }
  return y;
}

const firstMax = (x) => {
  let best = 0;
  for (let i = 0; i < x.length; i++) {
    if (Number.isNaN(x[i])) return i;
    if (x[i] > x[best]) best = i;
  }
  return best;
};

// ---------------------------------------------------------------- the run

/** Per-run state: the module, the buffer() views handed out, the samplers made. */
class Ctx {
  constructor(sm) {
    this.sm = sm;
    this.views = []; // every buffer() view of this run, the last one current
    this.samplers = []; // { s, opts } made in this run (disposed ones stay listed)
    this.live0 = sm.liveSamplers;
    this.block = undefined; // expected contents of the current buffer() block (a Float32Array copy)
  }
  get current() {
    return this.views.at(-1);
  }
  liveCount() {
    return this.samplers.filter((e) => !e.s.disposed).length;
  }
}

class Faults {
  list = [];
  add(type, re) {
    this.list.push([type, re]);
  }
  get any() {
    return this.list.length > 0;
  }
  matches(e) {
    return this.list.some(([type, re]) => e instanceof type && re.test(e.message));
  }
  describe() {
    return this.list.map(([t, re]) => `${t.name} ${re}`).join(' | ');
  }
}

/**
 * Builds the scores argument of a step. Returns { arg, x (the values the call
 * reads, as doubles), dims } and records the faults the argument carries.
 */
function makeScores(ctx, spec, faults, effects) {
  let x = spec.values.slice();
  let arg;
  const cur = ctx.current;
  let kind = spec.kind;
  if ((kind === 'view' || kind === 'staleSub') && cur === undefined) kind = 'f32';
  if (kind === 'staleView' && ctx.views.length < 2) kind = 'array';
  if (kind === 'array') {
    arg = x.slice();
    if (spec.via !== 'plain' && x.length > 0) {
      const at = spec.at % x.length;
      const effect = () => effects.getter(spec.action);
      if (spec.via === 'getter') Object.defineProperty(arg, at, { get: () => (effect(), x[at]), enumerable: true });
      else {
        const target = arg;
        arg = new Proxy(target, { get: (t, k, r) => (k === String(at) && effect(), Reflect.get(t, k, r)) });
      }
      effects.expect(spec.action, faults);
    }
  } else if (kind === 'f32' || kind === 'f64' || kind === 'tensor' || kind === 'detached') {
    const data = kind === 'f64' ? Float64Array.from(x) : Float32Array.from(x);
    x = Array.from(data);
    if (kind === 'detached') {
      structuredClone(data.buffer, { transfer: [data.buffer] });
      faults.add(TypeError, /scores(\.data)? is a detached/);
    }
    arg = kind === 'tensor' ? { data, dims: [data.length] } : data;
  } else if (kind === 'view') {
    if (isHeapDetached(cur)) {
      arg = cur;
      faults.add(TypeError, /scores is a buffer\(\) view that wasm memory growth invalidated/);
    } else {
      const start = Math.min(spec.start, cur.length);
      const len = Math.min(x.length, cur.length - start);
      arg = cur.subarray(start, start + len);
      x = Array.from(arg);
    }
  } else if (kind === 'staleView') {
    arg = ctx.views[spec.start % (ctx.views.length - 1)];
    faults.add(isHeapDetached(arg) ? TypeError : RangeError, isHeapDetached(arg) ? /scores is a buffer\(\) view that wasm memory growth/ : /scores is a view from an earlier buffer\(\) call/);
  } else {
    // staleSub: a subarray of some buffer() view of this run; accepted where it lies in the current block.
    const v = ctx.views[spec.start % ctx.views.length];
    if (isHeapDetached(v)) {
      arg = v; // no subarray can be made of a detached view
      faults.add(TypeError, /scores is a buffer\(\) view that wasm memory growth invalidated/);
      x = [];
    } else {
      const start = Math.min(spec.at, v.length);
      arg = v.subarray(start, Math.min(v.length, start + Math.max(1, x.length)));
      x = Array.from(arg);
      const lo = arg.byteOffset;
      const hi = lo + 4 * arg.length;
      const inside = isHeapDetached(cur) ? false : lo >= cur.byteOffset && hi <= cur.byteOffset + 4 * cur.length;
      if (arg.length > 0 && !inside) faults.add(RangeError, /scores is a view of wasm memory outside the current buffer\(\) block/);
    }
  }
  return { arg, x, dims: kind === 'tensor' ? [x.length] : undefined };
}

/** What a getter in the arguments does, and the fault it brings. */
function getterEffects(ctx, using) {
  const state = { out: undefined };
  return {
    state,
    getter(action) {
      const { sm } = ctx;
      if (action === 'reenter') sm.softmax([1, 2]);
      else if (action === 'reenterCaught') {
        try {
          sm.buffer(4);
        } catch (e) {
          if (!(e instanceof TypeError) || !/called while/.test(e.message)) throw new Error(`nested call: ${e}`);
          return;
        }
        throw new Error('a nested buffer() call was not rejected');
      } else if (action === 'disposeSampler') (using ?? ctx.samplers.find((e) => !e.s.disposed)?.s ?? sm.createSampler({ seed: 1 })).dispose();
      else if (action === 'detachOut' && state.out && !(state.out.buffer === ctx.current?.buffer)) {
        if (state.out.buffer.byteLength > 0 && !state.out.buffer.resizable) structuredClone(state.out.buffer, { transfer: [state.out.buffer] });
      }
    },
    expect(action, faults) {
      if (action === 'reenter' || action === 'disposeSampler') faults.add(TypeError, /called while .* was reading its arguments/);
      if (action === 'detachOut') state.detachOut = true;
    },
  };
}

function makeOptions(spec, faults, fn, n, ctx, sc) {
  const o = {};
  if (spec.temperature !== undefined) o.temperature = spec.temperature;
  let shape;
  if (spec.shaped && n % 2 === 0 && n > 0 && fn !== 'softmaxSteps') {
    shape = [2, n / 2];
    o.shape = shape;
    const data = sc.arg;
    if (spec.form === 'shapeDetach' && ArrayBuffer.isView(data) && data.buffer !== ctx.current?.buffer && data.length > 0) {
      // shape is read after scores were checked: its getter detaches them before they are copied in.
      const getterShape = [...shape];
      Object.defineProperty(getterShape, 0, { get: () => (data.buffer.byteLength && structuredClone(data.buffer, { transfer: [data.buffer] }), 2), enumerable: true });
      o.shape = getterShape;
      faults.add(TypeError, /scores was detached during the call/);
    }
    if (spec.axis !== undefined) o.axis = spec.axis;
  } else if (spec.axis === 0 || spec.axis === -1) {
    if (fn !== 'softmaxSteps') o.axis = spec.axis;
  }
  const T = spec.temperature;
  if (T !== undefined) {
    if (typeof T !== 'number') faults.add(TypeError, /temperature must be a number/);
    else if (Number.isNaN(T) || T < 0) faults.add(RangeError, /temperature must/);
  }
  if (o.axis !== undefined) {
    const ndim = shape ? 2 : 1;
    if (!shape && o.axis !== 0 && o.axis !== -1) faults.add(RangeError, /axis/);
    if (shape && (o.axis < -ndim || o.axis >= ndim)) faults.add(RangeError, /axis .* is out of range/);
  }
  let arg = o;
  if (spec.form === 'nullProto') arg = Object.assign(Object.create(null), o);
  else if (spec.form === 'map') {
    arg = new Map(Object.entries(o));
    faults.add(TypeError, /options must be an object, got a Map/);
  } else if (spec.form === 'class') {
    arg = new (class Options {})();
    Object.assign(arg, o);
    faults.add(TypeError, /options must be an object.*plain object/);
  } else if (spec.form === 'reenterGetter') {
    arg = { ...o };
    Object.defineProperty(arg, 'temperature', { get: () => ctx.sm.argmax([1]), enumerable: true });
    faults.add(TypeError, /argmax: called while/);
  }
  return { arg, o, shape, axis: o.axis, T: T === undefined ? 1 : T };
}

/** A softmax-family call: the expected result or faults, the call, and the checks. */
function familyStep(ctx, st) {
  const { sm } = ctx;
  const fn = st.fn;
  const faults = new Faults();
  const effects = getterEffects(ctx, undefined);
  const sc = makeScores(ctx, st.scores, faults, effects);
  const n = sc.x.length;
  const oo = fn === 'argmax' ? { arg: undefined, o: {}, T: 1 } : makeOptions(st.opts, faults, fn, n, ctx, sc);
  if (sc.dims !== undefined && oo.shape !== undefined) faults.add(TypeError, /scores is a tensor with dims .* pass no shape/);
  // out
  const axisOk = oo.shape !== undefined && (oo.axis ?? -1) >= -2 && (oo.axis ?? -1) < 2;
  const slicesN = axisOk ? slices(n, oo.shape, oo.axis ?? -1).length : 1;
  const outLen = fn === 'logSumExp' ? slicesN : n;
  let out;
  let outInBlock = false;
  const takesOut = fn === 'softmax' || fn === 'logSoftmax' || fn === 'softmaxNaive' || (fn === 'logSumExp' && oo.shape !== undefined);
  if (takesOut && st.out !== 'none' && st.opts.form !== 'map') {
    const cur = ctx.current;
    let kind = st.out;
    if ((kind === 'view' || kind === 'stale') && (cur === undefined || ctx.views.length < (kind === 'stale' ? 2 : 1))) kind = 'js';
    if (kind === 'view' && !isHeapDetached(cur) && cur.length - Math.min(st.outStart, cur.length) < outLen) kind = 'js';
    if (kind === 'js') out = new Float32Array(outLen);
    else if (kind === 'wrongLength') {
      out = new Float32Array(outLen + 1);
      faults.add(RangeError, /out has length/);
    } else if (kind === 'detached') {
      out = new Float32Array(outLen);
      structuredClone(out.buffer, { transfer: [out.buffer] });
      faults.add(TypeError, /out is a detached/);
      if (outLen === 0) faults.add(RangeError, /out has length/);
    } else if (kind === 'stale') {
      out = ctx.views[st.outStart % (ctx.views.length - 1)];
      faults.add(isHeapDetached(out) ? TypeError : RangeError, /out is a (view from an earlier buffer\(\) call|buffer\(\) view that wasm memory growth)/);
      if (out.length !== outLen) faults.add(RangeError, /out has length/);
    } else if (isHeapDetached(cur)) {
      out = cur;
      faults.add(TypeError, /out is a buffer\(\) view that wasm memory growth invalidated/);
    } else {
      const start = Math.min(st.outStart, cur.length - outLen);
      out = cur.subarray(start, start + outLen);
      outInBlock = true;
    }
    if (oo.arg instanceof Map || st.opts.form === 'class') out = undefined;
    else oo.arg.out = out;
    if (out !== undefined && effects.state.detachOut !== undefined && !outInBlock && kind === 'js') {
      effects.state.out = out;
      faults.add(TypeError, /out was detached during the call/);
    }
  }
  if (fn === 'argmax' && n === 0) faults.add(RangeError, /argmax: scores is empty/);

  let result;
  let error;
  try {
    result = fn === 'argmax' ? sm.argmax(sc.arg) : sm[fn](sc.arg, oo.arg);
  } catch (e) {
    error = e;
  }
  const label = `${fn}(${JSON.stringify(sc.x)}, ${JSON.stringify(oo.o)})`;
  if (faults.any) {
    if (error === undefined) throw new Error(`${label}: expected ${faults.describe()}, got a result`);
    if (!faults.matches(error)) throw new Error(`${label}: expected ${faults.describe()}, got ${error}`);
    tally(`${error.constructor.name}: ${error.message.replace(/^[\w.]+: /, '').slice(0, 28)}`);
    return;
  }
  if (error !== undefined) throw new Error(`${label}: unexpected ${error?.stack ?? error}`);
  tally(`${fn} checked`);
  if (sc.arg?.buffer === ctx.current?.buffer && ArrayBuffer.isView(sc.arg)) tally('  (scores in wasm memory)');
  if (outInBlock) tally(`  (out in the buffer() block${ArrayBuffer.isView(sc.arg) && sc.arg.buffer === out.buffer ? ', with scores there too' : ''})`);
  if (st.scores.via !== 'plain' && st.scores.action === 'reenterCaught') tally('  (a getter caught its rejected nested call)');
  if (outInBlock) ctx.block.set(out, out.byteOffset / 4 - ctx.current.byteOffset / 4); // what the call wrote there
  // The float64 reference, on the float32 values the library reads.
  const x = sc.x.map(f32);
  const T = f32(oo.T);
  const tol = T === 1 ? probTol : probTolT;
  let ref;
  let got = result;
  let tolerance = tol;
  if (fn === 'argmax') {
    if (result !== firstMax(x)) throw new Error(`${label}: argmax ${result}, expected ${firstMax(x)}`);
    return;
  }
  if (fn === 'softmaxSteps') {
    got = result.probs;
    ref = refSlice(x, T, false);
  } else if (fn === 'softmax') ref = applyAlong(x, oo.shape, oo.axis, (s) => refSlice(s, T, false));
  else if (fn === 'logSoftmax') {
    ref = applyAlong(x, oo.shape, oo.axis, (s) => refSlice(s, T, true));
    tolerance = logTol;
  } else if (fn === 'softmaxNaive') {
    ref = applyAlong(x, oo.shape, oo.axis, (s) => refNaive(s, T));
    tolerance = (r) => 1e-5 * Math.abs(r) + 1e-36;
  } else {
    const per = slices(n, oo.shape, oo.axis ?? -1).map((idx) => refLse(idx.map((i) => x[i]), T));
    if (per.some((v) => v === undefined)) return;
    ref = per;
    tolerance = logTol;
    if (oo.shape === undefined) {
      // 1-D: a double, which may lie beyond float32's range (max / T).
      const r = per[0];
      const ok = Number.isNaN(r) ? Number.isNaN(result) : Number.isFinite(r) ? Math.abs(result - r) <= logTol(r) : result === r;
      if (!ok) throw new Error(`${label}: ${result}, expected ${r}`);
      return;
    }
  }
  if (ref === undefined) return;
  if (out !== undefined && result !== out) throw new Error(`${label}: did not return out`);
  const bad = mismatch(got, ref, tolerance, label);
  if (bad !== null) throw new Error(bad);
}

function samplerOptions(spec, faults) {
  const o = { seed: spec.seed };
  if (spec.temperature !== undefined) o.temperature = spec.temperature;
  const e = spec.extra;
  if (e === 'bigPenalty') o.repetitionPenalty = 3.4e38; // float32-finite, no history: no effect
  if (e === 'tinyPenalty') (o.repetitionPenalty = 1e-46), faults.add(RangeError, /repetitionPenalty = 1e-46 is 0 as a float32/);
  if (e === 'hugePenalty') (o.repetitionPenalty = 1e39), faults.add(RangeError, /repetitionPenalty = 1e\+39 is Infinity as a float32/);
  if (e === 'freq') (o.frequencyPenalty = 1e39), faults.add(RangeError, /frequencyPenalty = 1e\+39 is Infinity/);
  if (e === 'presence') (o.presencePenalty = -1e39), faults.add(RangeError, /presencePenalty = -1e\+39 is -Infinity/);
  if (e === 'biasOk') o.logitBias = { 0: -3.4e38 };
  if (e === 'biasBan') o.logitBias = { 0: -Infinity };
  if (e === 'biasOverflow') (o.logitBias = { 0: -1e39 }), faults.add(RangeError, /logitBias\[0\] = -1e\+39 overflows float32/);
  let arg = o;
  if (spec.form === 'map') (arg = new Map(Object.entries(o))), faults.add(TypeError, /createSampler: options must be an object, got a Map/);
  if (spec.form === 'class') (arg = Object.assign(new (class SamplerOptions {})(), o)), faults.add(TypeError, /createSampler: options must be an object.*plain object/);
  return { arg, o };
}

function createStep(ctx, st) {
  const faults = new Faults();
  const { arg, o } = samplerOptions(st.opts, faults);
  let s;
  let error;
  try {
    s = ctx.sm.createSampler(arg);
  } catch (e) {
    error = e;
  }
  if (faults.any) {
    if (error === undefined || !faults.matches(error)) throw new Error(`createSampler(${JSON.stringify(o)}): expected ${faults.describe()}, got ${error ?? 'a sampler'}`);
    tally(`createSampler ${error.constructor.name}: ${error.message.replace(/^[\w.]+: /, '').slice(0, 28)}`);
    return;
  }
  if (error !== undefined) throw new Error(`createSampler(${JSON.stringify(o)}): unexpected ${error}`);
  tally('createSampler checked');
  ctx.samplers.push({ s, opts: o });
}

/** The distribution a sampler of options o draws from: float32 logits after logitBias, then T. */
function refProbs(x, o) {
  const y = x.slice();
  const b = o.logitBias?.[0];
  if (b !== undefined && y.length > 0) y[0] = b === -Infinity ? -Infinity : f32(y[0] + f32(b));
  const T = f32(o.temperature ?? 1);
  if (y.every((v) => v === -Infinity)) return y.map(() => 0); // all masked: the sampler throws
  if (T === 0) return y.map((_, i) => (i === firstMax(y) ? 1 : 0)); // greedy: the first maximum
  return refSlice(y, T, false);
}

function samplerStep(ctx, st) {
  const faults = new Faults();
  const entry = ctx.samplers.length ? ctx.samplers[st.which % ctx.samplers.length] : undefined;
  if (entry === undefined) return;
  const { s, opts } = entry;
  const effects = getterEffects(ctx, s);
  const sc = makeScores(ctx, st.scores, faults, effects);
  if (s.disposed) faults.add(TypeError, /the sampler is disposed/);
  const x = sc.x.map(f32);
  const p = x.length ? refProbs(x, opts) : [];
  if (x.length === 0) faults.add(RangeError, /scores is empty/);
  else if (x.some(Number.isNaN)) faults.add(RangeError, /scores\[\d+\].* is NaN/);
  else if (p.every(Number.isNaN) || p.every((v) => v === 0)) faults.add(RangeError, /every entry of scores is -Infinity/);
  const k = st.count + 1;
  let result;
  let error;
  try {
    if (st.method === 'sample') result = s.sample(sc.arg);
    else if (st.method === 'probs') result = s.probs(sc.arg);
    else if (st.method === 'sampleMany') result = s.sampleMany(sc.arg, st.count);
    else result = s.logprobs(sc.arg, k);
  } catch (e) {
    error = e;
  }
  const label = `Sampler.${st.method}(${JSON.stringify(sc.x)}) with ${JSON.stringify(opts)}`;
  if (faults.any) {
    if (error === undefined) throw new Error(`${label}: expected ${faults.describe()}, got ${result}`);
    if (!faults.matches(error)) throw new Error(`${label}: expected ${faults.describe()}, got ${error}`);
    tally(`${error.constructor.name}: ${error.message.replace(/^[\w.]+: /, '').slice(0, 28)}`);
    return;
  }
  if (error !== undefined) throw new Error(`${label}: unexpected ${error?.stack ?? error}`);
  tally(`Sampler.${st.method} checked`);
  const T = f32(opts.temperature ?? 1);
  const drawn = (i) => Number.isInteger(i) && i >= 0 && i < x.length && p[i] > 0;
  if (st.method === 'sample' && !drawn(result)) throw new Error(`${label}: drew ${result}, reference probability ${p[result]}`);
  if (st.method === 'sampleMany' && !(result.length === st.count && Array.from(result).every(drawn))) throw new Error(`${label}: drew ${result}`);
  if (st.method === 'probs') {
    const bad = mismatch(result, p, T === 1 ? probTol : probTolT, label);
    if (bad !== null) throw new Error(bad);
  }
  if (st.method === 'logprobs') {
    const b = opts.logitBias?.[0];
    const y = x.slice();
    if (b !== undefined) y[0] = b === -Infinity ? -Infinity : f32(y[0] + f32(b));
    const order = y.map((v, i) => i).sort((i, j) => (y[j] > y[i] ? 1 : y[j] < y[i] ? -1 : i - j)).slice(0, Math.min(k, y.length));
    const got = Array.from(result.indices);
    // Entries of equal score may come in either order only when both are -Infinity (removed).
    const same = got.length === order.length && got.every((g, i) => g === order[i] || y[g] === y[order[i]]);
    if (!same) throw new Error(`${label}: logprobs indices ${got}, expected ${order}`);
    const before = refSlice(y, 1, true);
    const bad = mismatch(result.before, got.map((i) => before[i]), logTol, `${label} before`);
    if (bad !== null) throw new Error(bad);
  }
}

function bufferStep(ctx, st) {
  const v = ctx.sm.buffer(st.n);
  if (!(v instanceof Float32Array) || v.length !== st.n) throw new Error(`buffer(${st.n}) gave ${v}`);
  ctx.views.push(v);
  ctx.block = v.slice();
}

function fillStep(ctx, st) {
  const cur = ctx.current;
  if (cur === undefined || isHeapDetached(cur)) return;
  cur.set(st.values.slice(0, cur.length));
  ctx.block = cur.slice();
}

/** Grows wasm memory (fresh instances only, where it stays small): every buffer() view is detached after. */
function growStep(ctx) {
  const { sm } = ctx;
  if (!ctx.fresh || sm.heapBytes > 32 * 2 ** 20) return;
  const before = sm.heapBytes;
  const n = before / 4 + 1024;
  const y = sm.softmax(new Float32Array(n));
  if (!(y.length === n && Math.abs(y[0] - 1 / n) <= 1e-6 / n)) throw new Error('grow: a wrong uniform softmax');
  if (!(sm.heapBytes > before)) throw new Error('grow: wasm memory did not grow');
  for (const v of ctx.views) if (!isHeapDetached(v)) throw new Error('grow: a buffer() view survived memory growth');
}

/** Heap health after a step. */
function checkHealth(ctx, label) {
  const { sm } = ctx;
  const bad = mismatch(sm.softmax(PROBE), PROBE_REF, probTol, `${label}: probe`);
  if (bad !== null) throw new Error(bad);
  if (sm.liveSamplers !== ctx.live0 + ctx.liveCount()) throw new Error(`${label}: ${sm.liveSamplers} live samplers, expected ${ctx.live0 + ctx.liveCount()}`);
  const cur = ctx.current;
  if (cur !== undefined && !isHeapDetached(cur)) {
    for (let i = 0; i < cur.length; i++) {
      if (!Object.is(cur[i], ctx.block[i]) && !(Number.isNaN(cur[i]) && Number.isNaN(ctx.block[i]))) {
        throw new Error(`${label}: the buffer() block changed at ${i}: ${ctx.block[i]} -> ${cur[i]}`);
      }
    }
  }
}

const modules = {};
let runs = 0;
let freshRuns = 0;
let stepsRun = 0;
const outcomes = new Map(); // what the steps ended in, for the closing line: a run that checks nothing shows here
const tally = (key) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);

async function oneRun(r) {
  runs++;
  let sm;
  if (r.instance === 'fresh') {
    freshRuns++;
    sm = await load({ simd: r.freshSimd, locateFile: (name) => dist(name) });
  } else sm = modules[r.instance];
  const ctx = new Ctx(sm);
  ctx.fresh = r.instance === 'fresh';
  try {
    if (r.prelude !== null) {
      bufferStep(ctx, { n: 48 });
      fillStep(ctx, { values: r.prelude });
    }
    r.steps.forEach((st, i) => {
      stepsRun++;
      const label = `step ${i} (${st.op}${st.fn ? ` ${st.fn}` : st.method ? ` ${st.method}` : ''})`;
      if (st.op === 'buffer') bufferStep(ctx, st);
      else if (st.op === 'fill') fillStep(ctx, st);
      else if (st.op === 'call') familyStep(ctx, st);
      else if (st.op === 'createSampler') createStep(ctx, st);
      else if (st.op === 'samplerCall') samplerStep(ctx, st);
      else if (st.op === 'dispose') {
        const e = ctx.samplers[st.which % Math.max(1, ctx.samplers.length)];
        e?.s.dispose();
      } else growStep(ctx);
      checkHealth(ctx, label);
    });
  } finally {
    for (const { s } of ctx.samplers) s.dispose();
  }
  if (sm.liveSamplers !== ctx.live0) throw new Error(`after the run: ${sm.liveSamplers} live samplers, expected ${ctx.live0}`);
}

describe(`JS boundary: random call sequences (${RUNS} runs)`, () => {
  beforeAll(async () => {
    modules.simd = await load({ simd: true });
    modules.base = await load({ simd: false });
  });

  test('every step is right or a named error; the module stays healthy', async () => {
    const t0 = performance.now();
    await fc.assert(fc.asyncProperty(run, oneRun), { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) });
    const seconds = (performance.now() - t0) / 1000;
    console.log(`boundary property: ${runs} runs (${freshRuns} on fresh instances), ${stepsRun} steps in ${seconds.toFixed(1)} s`);
    if (process.env.SMX_BOUNDARY_TALLY) console.log([...outcomes].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${String(v).padStart(7)}  ${k}`).join('\n'));
    for (const sm of Object.values(modules)) {
      expect(mismatch(sm.softmax(PROBE), PROBE_REF, probTol)).toBeNull();
      expect(sm.liveSamplers).toBe(0);
    }
  });
});
