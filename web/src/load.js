// load(): picks the build (SIMD128 where the engine validates it, else the
// baseline), compiles and instantiates it through the Emscripten glue, and
// wraps it in a Softmax. Always settles: every failure rejects with an Error
// that says what failed (the cause attached), never an unhandled rejection.
import { saturatedFloatToInt, simd as detectSimdOnly } from '../dist/wasm-feature-detect.js';
import { Softmax } from './softmax.js';
import { describe, readOptions } from './validate.js';

// The SIMD build also uses the saturating float-to-int conversions (every
// engine with SIMD has them; both are checked). Resolves to the missing
// feature's name, or '' when the SIMD build can run.
const missingForSimd = async () => {
  if (!(await detectSimdOnly())) return 'WebAssembly SIMD';
  if (!(await saturatedFloatToInt())) return "WebAssembly's saturating float-to-int conversions";
  return '';
};

const FILES = {
  simd: { glue: () => import('../dist/softmax-simd.js'), wasm: 'softmax-simd.wasm' },
  base: { glue: () => import('../dist/softmax-base.js'), wasm: 'softmax-base.wasm' },
};
const LOAD_OPTIONS = ['simd', 'wasmBinary', 'module', 'locateFile'];

const compiled = new Map(); // variant -> Promise<WebAssembly.Module>: compiled once per page
const loaded = new Map(); // variant -> Promise<Softmax>, for load() without a custom source
const byModule = new WeakMap(); // a WebAssembly.Module or wasmBinary given -> Promise<Softmax>

const failure = (what, cause) => new Error(`load: ${what}: ${cause?.message ?? String(cause)}`, { cause });

async function compile(bytesPromise, what) {
  let bytes;
  try {
    bytes = await bytesPromise;
  } catch (e) {
    throw failure(`cannot read ${what}`, e);
  }
  try {
    return await WebAssembly.compile(bytes);
  } catch (e) {
    throw failure(`${what} is not a valid WebAssembly module`, e);
  }
}

/**
 * Builds load() for one environment. readWasm(url) resolves to the bytes of a
 * .wasm file (fetch in browsers, fs in Node); base() is the URL that a
 * relative locateFile result resolves against (the page, or Node's cwd).
 */
export function makeLoad(readWasm, base) {
  return async function load(opts) {
    const o = readOptions('load', opts, LOAD_OPTIONS);
    const simdOpt = o.simd ?? 'auto';
    if (simdOpt !== 'auto' && simdOpt !== true && simdOpt !== false) {
      throw new TypeError(`load: simd must be 'auto', true or false, got ${describe(simdOpt)}`);
    }
    const missing = await missingForSimd();
    const hasSimd = missing === '';
    if (simdOpt === true && !hasSimd) throw new RangeError(`load: simd: true, but this engine has no ${missing}`);
    const variant = simdOpt === false || !hasSimd ? 'base' : 'simd';
    const given = o.module ?? o.wasmBinary;
    if (given !== undefined && (typeof given === 'object' || typeof given === 'function') && byModule.has(given)) return byModule.get(given);
    const custom = given !== undefined || o.locateFile !== undefined;
    if (custom) {
      const p = instantiate(variant, customSource(variant, o, readWasm, base));
      if (given !== undefined) {
        byModule.set(given, p);
        p.catch(() => byModule.delete(given));
      }
      return p;
    }
    if (!loaded.has(variant)) {
      if (!compiled.has(variant)) {
        const url = new URL(`../dist/${FILES[variant].wasm}`, import.meta.url);
        compiled.set(variant, compile(Promise.resolve().then(() => readWasm(url)), url.href));
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

function customSource(variant, o, readWasm, base) {
  if (o.module !== undefined) {
    if (!(o.module instanceof WebAssembly.Module)) throw new TypeError(`load: module must be a WebAssembly.Module, got ${describe(o.module)}`);
    return Promise.resolve(o.module);
  }
  if (o.wasmBinary !== undefined) {
    if (!(o.wasmBinary instanceof ArrayBuffer) && !ArrayBuffer.isView(o.wasmBinary)) {
      throw new TypeError(`load: wasmBinary must be an ArrayBuffer or a Uint8Array, got ${describe(o.wasmBinary)}`);
    }
    return compile(Promise.resolve(o.wasmBinary), 'wasmBinary');
  }
  if (typeof o.locateFile !== 'function') throw new TypeError(`load: locateFile must be a function, got ${describe(o.locateFile)}`);
  const where = o.locateFile(FILES[variant].wasm);
  if (typeof where !== 'string' && !(where instanceof URL)) {
    throw new TypeError(`load: locateFile must return a string or a URL, got ${describe(where)}`);
  }
  let url;
  try {
    url = new URL(String(where), base());
  } catch (e) {
    throw failure(`locateFile returned ${JSON.stringify(String(where))}, not a URL`, e);
  }
  return compile(Promise.resolve().then(() => readWasm(url)), url.href);
}

async function instantiate(variant, modulePromise) {
  const wasmModule = await modulePromise;
  let create;
  try {
    ({ default: create } = await FILES[variant].glue());
  } catch (e) {
    throw failure(`cannot import the glue of the ${variant} build`, e);
  }
  // The glue's promise never settles if instantiation fails inside
  // instantiateWasm, so such a failure rejects through `failed`.
  let fail;
  const failed = new Promise((_, reject) => (fail = reject));
  let m;
  try {
    m = await Promise.race([
      create({
        instantiateWasm(imports, done) {
          WebAssembly.instantiate(wasmModule, imports).then((instance) => {
            try {
              done(instance, wasmModule);
            } catch (e) {
              fail(e);
            }
          }, fail);
          return {};
        },
        print() {},
        printErr() {},
      }),
      failed,
    ]);
  } catch (e) {
    throw failure('the wasm module could not be started (is it a softmax-wasm build?)', e);
  }
  if (typeof m?.softmax !== 'function' || typeof m?.optionTable !== 'function' || typeof m?.Sampler !== 'function') {
    throw new Error('load: the wasm module is not a softmax-wasm build (its bindings are missing)');
  }
  return new Softmax(m);
}
