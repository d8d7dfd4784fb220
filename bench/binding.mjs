// The binding's per-call cost: each C++ function bound by Embind
// (cpp/bindings/bindings.cpp, through cpp/bindings/fast_invoker.js), called
// through its Embind closure and called directly as the wasm function that
// Embind itself calls, on the same module instance and the same heap inputs.
//
// Where the direct function comes from. The module exports no bound function
// (no EMSCRIPTEN_KEEPALIVE beside Embind), but Emscripten 3.1.6's glue keeps
// the instance's exports as Module.asm, which holds the function table. At
// start-up Embind's C++ side hands each binding to the glue through an import:
//   _embind_register_function(name, argCount, argTypes, signature, invoker, fn)
//   _embind_register_class_function(classType, name, argCount, argTypes,
//       signature, invoker, context, isPureVirtual)
// where fn is the bound function's table index and context points at a copy
// of the member-function pointer ({ table index, this adjustment }). A first
// instance, started with every import wrapped to record its arguments, tells
// those indices (the import is recognised by its arguments: the name string
// at the expected position); the indices come from the module's element
// segments, so they hold for a second, unwrapped instance, which is the one
// timed. That instance's direct results are checked against its Embind
// results before anything is timed.
//
// No Node or DOM APIs: the Node benchmark and the browser page both use it,
// each passing the build's glue factory and compiled module.
import { Softmax } from '../web/src/softmax.js';

async function start(create, wasmModule, wrapImport) {
  return create({
    instantiateWasm(imports, done) {
      if (wrapImport) {
        for (const space of Object.values(imports)) {
          for (const [k, f] of Object.entries(space)) if (typeof f === 'function') space[k] = wrapImport(k, f);
        }
      }
      WebAssembly.instantiate(wasmModule, imports).then((instance) => done(instance, wasmModule));
      return {};
    },
    print() {},
    printErr() {},
  });
}

function cString(heap, p) {
  if (!Number.isInteger(p) || p <= 0 || p >= heap.length) return null;
  let s = '';
  for (let i = p; heap[i] !== 0 && i < heap.length && s.length < 64; i++) s += String.fromCharCode(heap[i]);
  return s;
}

/**
 * One instance of a build (create: the default export of its glue, wasmModule:
 * its compiled .wasm) and, for the named bindings, the wasm functions Embind
 * calls: { m, table, fn(name), method(name) }.
 */
export async function bindingTargets(create, wasmModule) {

  const calls = [];
  const recorded = await start(create, wasmModule, (k, f) => (...args) => {
    calls.push(args);
    return f(...args);
  });
  const heap = recorded.HEAPU8;
  const u32 = recorded.HEAPU32;
  const functions = new Map();
  const methods = new Map();
  for (const a of calls) {
    if (a.length === 6) {
      const name = cString(heap, a[0]);
      if (name) functions.set(name, a[5]);
    } else if (a.length === 8) {
      const name = cString(heap, a[1]);
      if (name && u32[(a[6] >> 2) + 1] === 0) methods.set(name, u32[a[6] >> 2]);
    }
  }

  const m = await start(create, wasmModule, null);
  const table = Object.values(m.asm).find((v) => v instanceof WebAssembly.Table);
  if (!table) throw new Error('binding: Module.asm holds no function table');
  const lookup = (map, kind) => (name) => {
    if (!map.has(name)) throw new Error(`binding: no ${kind} ${name} was registered with Embind`);
    return table.get(map.get(name));
  };
  return { m, table, fn: lookup(functions, 'function'), method: lookup(methods, 'method') };
}

/**
 * The rows of the binding table: per operation, the same C++ function called
 * through its Embind closure and directly (same instance, same heap inputs),
 * and the public API call for the same work on `sm`, the library's own
 * loaded module (SIMD build). Resolves to { rows: [{ label, embind, direct,
 * api, apiLabel }], dispose() }.
 */
export async function bindingRows(sm, { create, wasmModule }) {
  const { m, fn, method } = await bindingTargets(create, wasmModule);
  // Two samplers configured through the public API on this instance, one
  // seed: their Embind handles (and so the C++ objects' addresses) are caught
  // as the API creates them.
  const handles = [];
  const createSampler = m.Sampler.create;
  m.Sampler.create = (...a) => {
    const h = createSampler(...a);
    handles.push(h);
    return h;
  };
  const own = new Softmax(m);
  const keep = [own.createSampler({ seed: 42 }), own.createSampler({ seed: 42 })];
  m.Sampler.create = createSampler;
  const [viaEmbind, viaDirect] = handles;

  const p = m._malloc(256);
  const x = p;
  const y = p + 64;
  const shape = p + 128;
  const f32 = (ptr) => ptr >> 2;
  const nan = m.Masked.nan;
  const direct = { argmax: fn('argmax'), softmax: fn('softmax'), sigmoid: fn('sigmoid'), sample: method('sample') };

  // The same answers both ways before anything is timed.
  const same = (what, a, b) => {
    if (!Object.is(a, b)) throw new Error(`binding: ${what}: ${a} through Embind, ${b} by the direct call`);
  };
  m.HEAPF32.set([1, 5, 2], f32(x));
  same('argmax', m.argmax(x, 3), direct.argmax(x, 3));
  same('sigmoid', m.sigmoid(0.25), direct.sigmoid(0.25));
  m.HEAPF32.set([2, 1, 0], f32(x));
  same('softmax status', m.softmax(x, y, 3, shape, 0, -1, 1, nan), 0);
  const embindOut = Array.from(m.HEAPF32.subarray(f32(y), f32(y) + 3));
  m.HEAPF32.fill(0, f32(y), f32(y) + 3);
  same('softmax status', direct.softmax(x, y, 3, shape, 0, -1, 1, nan.value), 0);
  embindOut.forEach((v, i) => same(`softmax[${i}]`, v, m.HEAPF32[f32(y) + i]));
  for (let i = 0; i < 16; i++) same(`draw ${i}`, viaEmbind.sample(x, 3, 0), direct.sample(viaDirect.$$.ptr, x, 3, 0));

  const thisPtr = viaDirect.$$.ptr;
  const one = Float32Array.of(2);
  const three = Float32Array.of(2, 1, 0);
  const sampler = sm.createSampler({ seed: 42 });
  return {
    rows: [
      {
        label: '`argmax`, n = 1',
        embind: () => m.argmax(x, 1),
        direct: () => direct.argmax(x, 1),
        apiLabel: '`sm.argmax(Float32Array.of(2))`',
        api: () => sm.argmax(one),
      },
      {
        label: '`softmax`, n = 3 (8 arguments, an enum among them)',
        embind: () => m.softmax(x, y, 3, shape, 0, -1, 1, nan),
        direct: () => direct.softmax(x, y, 3, shape, 0, -1, 1, 0),
        apiLabel: '`sm.softmax([2, 1, 0])`',
        api: () => sm.softmax([2, 1, 0]),
      },
      {
        label: '`sigmoid`',
        embind: () => m.sigmoid(0.5),
        direct: () => direct.sigmoid(0.5),
        apiLabel: '`sm.sigmoid(0.5)`',
        api: () => sm.sigmoid(0.5),
      },
      {
        label: '`Sampler.sample`, n = 3 (a method: `this` + 3 arguments, no mask)',
        embind: () => viaEmbind.sample(x, 3, 0),
        direct: () => direct.sample(thisPtr, x, 3, 0),
        apiLabel: '`sampler.sample(Float32Array.of(2, 1, 0))`',
        api: () => sampler.sample(three),
      },
    ],
    dispose() {
      for (const s of [...keep, sampler]) s.dispose();
      m._free(p);
    },
  };
}

/**
 * Times the rows of bindingRows() interleaved (an empty closure beside them:
 * the timing loop's own cost) with `timer` (bench/timing.mjs). Resolves to
 * { rounds, emptyNs, rows: [{ label, apiLabel, directNs, embindNs, apiNs }] }.
 */
export async function timeBinding(sm, build, timer) {
  const { rows, dispose } = await bindingRows(sm, build);
  const entries = [{ name: 'empty', run: () => 0 }];
  for (const [i, r] of rows.entries()) {
    entries.push({ name: `embind ${i}`, run: r.embind }, { name: `direct ${i}`, run: r.direct }, { name: `api ${i}`, run: r.api });
  }
  let best;
  try {
    best = await timer.timeInterleaved(entries);
  } finally {
    dispose();
  }
  const ns = (k) => best.get(k) * 1000;
  return {
    rounds: timer.rounds,
    emptyNs: ns('empty'),
    rows: rows.map((r, i) => ({ label: r.label, apiLabel: r.apiLabel, directNs: ns(`direct ${i}`), embindNs: ns(`embind ${i}`), apiNs: ns(`api ${i}`) })),
  };
}

/** The Markdown table of a timeBinding() result. */
export function bindingTable({ rows }) {
  const f = (v) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1));
  return [
    '| call | direct wasm call | Embind | Embind − direct | public API call | public API |',
    '|---|---:|---:|---:|---|---:|',
    ...rows.map((r) => `| ${r.label} | ${f(r.directNs)} | ${f(r.embindNs)} | ${f(r.embindNs - r.directNs)} | ${r.apiLabel} | ${f(r.apiNs)} |`),
  ].join('\n');
}
