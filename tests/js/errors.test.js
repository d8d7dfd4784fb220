// Errors of the softmax family and of load(): wrong types, unknown options,
// bad temperature, shape, axis, out and masked give a TypeError or RangeError
// whose message names the argument; after each error the module still works;
// 100,000 calls with errors mixed in neither break the module nor grow its heap.
import { beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { BUILDS, mismatch, probTol } from './helpers.js';
import { normalArray, refSoftmax } from './reference.js';

const REF_210 = refSoftmax([2, 1, 0]);

/** Runs f, which must throw a TypeError or RangeError (of `type` if given) whose message matches re. */
function expectArgError(f, re, type) {
  let err;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err, `expected a throw matching ${re}`).toBeDefined();
  expect(err instanceof TypeError || err instanceof RangeError, `${err?.constructor?.name}: ${err?.message}`).toBe(true);
  if (type) expect(err, err.message).toBeInstanceOf(type);
  expect(err.message).toMatch(re);
  return err;
}

const SCORE_FNS = ['softmax', 'logSoftmax', 'softmaxNaive', 'logSumExp', 'softmaxSteps', 'argmax'];
const BAD_SCORES = [
  ['a string', 'abc'],
  ['a number', 5],
  ['an object', { 0: 1, 1: 2, length: 2 }],
  ['null', null],
  ['undefined', undefined],
  ['a BigInt', 5n],
  ['a sparse array with a hole', [1, , 3]], // eslint-disable-line no-sparse-arrays
  ['an array containing a string', [1, '2', 3]],
  ['an array containing a BigInt', [1, 2n]],
  ['an array containing null', [1, null]],
  ['an Int32Array', new Int32Array([1, 2, 3])],
  ['a Uint8Array', new Uint8Array([1, 2, 3])],
  ['a DataView', new DataView(new ArrayBuffer(8))],
];

describe.each(BUILDS)('$build build', ({ simd }) => {
  let sm;
  beforeAll(async () => {
    sm = await load({ simd });
  });
  const stillWorks = () => expect(mismatch(sm.softmax([2, 1, 0]), REF_210, probTol, 'softmax([2, 1, 0])')).toBeNull();

  describe('scores of a wrong type', () => {
    for (const fn of SCORE_FNS) {
      test.each(BAD_SCORES)(`${fn}(%s) -> TypeError naming scores`, (_, bad) => {
        expectArgError(() => sm[fn](bad), /scores/, TypeError);
        stillWorks();
      });
    }
  });

  describe('options', () => {
    test.each(['softmax', 'logSoftmax', 'softmaxNaive', 'logSumExp', 'softmaxSteps'])('%s: unknown option names are errors', (fn) => {
      expectArgError(() => sm[fn]([1, 2], { temprature: 2 }), /temprature/);
      expectArgError(() => sm[fn]([1, 2], { bogus: 1 }), /bogus/);
      expectArgError(() => sm[fn]([1, 2], { temperature: 1, dim: -1 }), /dim/);
      stillWorks();
    });

    test('options that belong to another function are unknown there', () => {
      expectArgError(() => sm.logSumExp([1, 2], { masked: 'zeros' }), /masked/);
      expectArgError(() => sm.softmaxSteps([1, 2], { shape: [2] }), /shape/);
      expectArgError(() => sm.softmaxSteps([1, 2], { axis: 0 }), /axis/);
      expectArgError(() => sm.softmaxSteps([1, 2], { out: new Float32Array(2) }), /out/);
      stillWorks();
    });

    test.each([5, 'x', null, [1], true])('options that are not an object (%s) -> TypeError', (bad) => {
      expectArgError(() => sm.softmax([1, 2], bad), /options/, TypeError);
      stillWorks();
    });
  });

  describe('temperature', () => {
    const cases = [
      ['negative', -1, RangeError],
      ['-0.001', -0.001, RangeError],
      ['-Infinity', -Infinity, RangeError],
      ['NaN', NaN, RangeError],
      ['a string', '2', TypeError],
      ['null', null, TypeError],
      ['a BigInt', 2n, TypeError],
    ];
    for (const fn of ['softmax', 'logSoftmax', 'softmaxNaive', 'logSumExp', 'softmaxSteps']) {
      test.each(cases)(`${fn}: temperature %s -> error naming temperature`, (_, t, type) => {
        expectArgError(() => sm[fn]([1, 2, 3], { temperature: t }), /temperature/, type);
        stillWorks();
      });
    }
  });

  describe('shape', () => {
    const cases = [
      ['a product that differs from the length', [2, 2], 3],
      ['a product larger than the length', [2, 3], 5],
      ['negative entries whose product matches', [-1, -3], 3],
      ['a negative entry', [3, -1], 3],
      ['fractional entries whose product matches', [1.5, 2], 3],
      ['a NaN entry', [NaN], 3],
      ['an Infinity entry', [Infinity], 3],
      ['a string entry', ['3'], 3],
      ['no dimensions', [], 3],
      ['a string', '3', 3],
      ['a number', 3, 3],
      ['null', null, 3],
      ['an object', { 0: 3, length: 1 }, 3],
    ];
    for (const fn of ['softmax', 'logSoftmax', 'softmaxNaive', 'logSumExp']) {
      test.each(cases)(`${fn}: shape with %s -> error naming shape`, (_, shape, n) => {
        expectArgError(() => sm[fn](normalArray(n), { shape }), /shape/);
        stillWorks();
      });
    }
  });

  describe('axis', () => {
    const cases = [
      ['2 for a 2-D shape', [2, 3], 2, RangeError],
      ['-3 for a 2-D shape', [2, 3], -3, RangeError],
      ['3 for a 3-D shape', [1, 2, 3], 3, RangeError],
      ['-4 for a 3-D shape', [1, 2, 3], -4, RangeError],
      ['fractional (0.5)', [2, 3], 0.5, RangeError],
      ['NaN', [2, 3], NaN, RangeError],
      ['Infinity', [2, 3], Infinity, RangeError],
      ['a string', [2, 3], '0', TypeError],
      ['null', [2, 3], null, TypeError],
      ['1 for 1-D scores', undefined, 1, RangeError],
      ['-2 for 1-D scores', undefined, -2, RangeError],
      ['fractional for 1-D scores', undefined, -0.5, RangeError],
    ];
    for (const fn of ['softmax', 'logSoftmax', 'softmaxNaive', 'logSumExp']) {
      test.each(cases)(`${fn}: axis %s -> error naming axis`, (_, shape, axis, type) => {
        expectArgError(() => sm[fn](normalArray(6), { shape, axis }), /axis/, type);
        stillWorks();
      });
    }
  });

  describe('out', () => {
    const cases = [
      ['a Float64Array', new Float64Array(3), TypeError],
      ['a number[]', [0, 0, 0], TypeError],
      ['an Int32Array', new Int32Array(3), TypeError],
      ['null', null, TypeError],
      ['a string', 'out', TypeError],
      ['too short', new Float32Array(2), RangeError],
      ['too long', new Float32Array(4), RangeError],
    ];
    for (const fn of ['softmax', 'logSoftmax', 'softmaxNaive']) {
      test.each(cases)(`${fn}: out %s -> error naming out`, (_, out, type) => {
        const before = ArrayBuffer.isView(out) ? Array.from(out) : undefined;
        expectArgError(() => sm[fn]([2, 1, 0], { out }), /out/, type);
        if (before) expect(Array.from(out)).toEqual(before); // untouched
        stillWorks();
      });
    }
    test('logSumExp: out of the wrong type or length (one per slice), or for 1-D scores', () => {
      const x = normalArray(6);
      expectArgError(() => sm.logSumExp(x, { shape: [2, 3], out: new Float32Array(6) }), /out/, RangeError);
      expectArgError(() => sm.logSumExp(x, { shape: [2, 3], out: new Float64Array(2) }), /out/, TypeError);
      expectArgError(() => sm.logSumExp(x, { shape: [2, 3], axis: 0, out: new Float32Array(2) }), /out/, RangeError);
      expectArgError(() => sm.logSumExp(x, { out: new Float32Array(1) }), /out/, TypeError);
      stillWorks();
    });
  });

  describe('masked', () => {
    const cases = ['NaN', 'zero', 'Uniform', '', null, 0, true, ['nan']];
    for (const fn of ['softmax', 'logSoftmax', 'softmaxNaive', 'softmaxSteps']) {
      test.each(cases)(`${fn}: masked %s -> error naming masked`, (masked) => {
        expectArgError(() => sm[fn]([-Infinity, -Infinity], { masked }), /masked/);
        stillWorks();
      });
    }
    test("masked: 'throw' on an all -Infinity slice -> RangeError; the module keeps working", () => {
      expectArgError(() => sm.softmax([-Infinity, -Infinity], { masked: 'throw' }), /-Infinity|masked/, RangeError);
      stillWorks();
    });
  });

  describe('sigmoid and argmax', () => {
    test.each([['a string', '2'], ['undefined', undefined], ['null', null], ['a BigInt', 2n], ['an array', [2]]])(
      'sigmoid(%s) -> TypeError naming z',
      (_, z) => {
        expectArgError(() => sm.sigmoid(z), /\bz\b/, TypeError);
        stillWorks();
      },
    );
    test.each([['-1', -1, RangeError], ['1.5', 1.5, RangeError], ['NaN', NaN, RangeError], ['a string', '3', TypeError], ['undefined', undefined, TypeError]])(
      'buffer(%s) -> error naming n',
      (_, n, type) => {
        expectArgError(() => sm.buffer(n), /\bn\b/, type);
        stillWorks();
      },
    );
    test('argmax([]) -> RangeError naming scores', () => {
      expectArgError(() => sm.argmax([]), /scores/, RangeError);
      stillWorks();
    });
  });

  test('100,000 calls with thrown errors mixed in (1 in 10): still works, the wasm heap has not grown', () => {
    expect(typeof sm.heapBytes).toBe('number');
    const x64 = normalArray(64, { seed: 3, sd: 3 });
    const x1000 = normalArray(1000, { seed: 4, sd: 3 });
    const masked2d = normalArray(1000, { seed: 5 });
    for (let i = 0; i < 1000; i += 10) masked2d[i + 5] = -Infinity; // column 5 of [100, 10] all -Infinity
    const out = new Float32Array(1000);
    const valid = [
      () => sm.softmax(x64),
      () => sm.logSoftmax(x1000, { shape: [10, 100], axis: 0 }),
      () => sm.softmax(x1000, { shape: [100, 10], axis: 0, out }),
      () => sm.logSumExp(x1000, { shape: [10, 10, 10], axis: 1 }),
      () => sm.softmaxSteps(x64, { temperature: 0.5 }),
      () => sm.softmaxNaive(x64),
      () => sm.argmax(x1000),
      () => sm.sigmoid(1.5),
      () => sm.softmax(masked2d, { shape: [100, 10], axis: 0, masked: 'zeros' }),
    ];
    const invalid = [
      () => sm.softmax('abc'),
      () => sm.softmax([1, 2, 3], { shape: [2, 2] }),
      () => sm.logSoftmax(x1000, { shape: [10, 100], axis: 2 }),
      () => sm.softmax(x64, { temperature: -1 }),
      () => sm.softmax(x64, { bogus: 1 }),
      () => sm.softmax(x64, { out: new Float32Array(3) }),
      // thrown after the wasm call: an all -Infinity column met halfway through a strided pass
      () => sm.softmax(masked2d, { shape: [100, 10], axis: 0, masked: 'throw' }),
      () => sm.logSoftmax(masked2d, { shape: [100, 10], axis: 0, masked: 'throw' }),
      () => sm.softmaxSteps([-Infinity, -Infinity], { masked: 'throw' }),
      () => sm.softmax([1, , 2]), // eslint-disable-line no-sparse-arrays
    ];
    // warm up: every call once, so that scratch buffers reach their size
    for (const f of valid) f();
    for (const f of invalid) expect(f).toThrow();
    const heap = sm.heapBytes;
    let thrown = 0;
    let k = 0;
    for (let i = 0; i < 100_000; i++) {
      if (i % 10 === 9) {
        try {
          invalid[k++ % invalid.length]();
        } catch (e) {
          if (!(e instanceof TypeError || e instanceof RangeError)) throw e;
          thrown++;
        }
      } else {
        valid[i % valid.length]();
      }
    }
    expect(thrown).toBe(10_000);
    expect(sm.heapBytes).toBe(heap);
    stillWorks();
    expect(mismatch(sm.softmax(x1000, { shape: [100, 10], axis: 0 }), refSoftmax(x1000, { shape: [100, 10], axis: 0 }), probTol)).toBeNull();
  });
});

describe('load()', () => {
  test("load({ simd: 'yes' }) -> TypeError naming simd", async () => {
    const e = await load({ simd: 'yes' }).catch((err) => err);
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/simd/);
  });

  test.each([[{ bogus: 1 }, /bogus/], [{ SIMD: true }, /SIMD/]])('load(%o) -> TypeError naming the unknown option', async (opts, re) => {
    const e = await load(opts).catch((err) => err);
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(re);
  });

  test.each([
    [{ simd: 1 }, /simd/],
    [{ wasmBinary: 'bytes' }, /wasmBinary/],
    [{ module: {} }, /module/],
    [{ locateFile: 'softmax-simd.wasm' }, /locateFile/],
  ])('load(%o) -> error naming the argument', async (opts, re) => {
    const e = await load(opts).catch((err) => err);
    expect(e instanceof TypeError || e instanceof RangeError).toBe(true);
    expect(e.message).toMatch(re);
  });

  test('load(5) and load(null) -> TypeError', async () => {
    for (const bad of [5, null, 'simd']) {
      const e = await load(bad).catch((err) => err);
      expect(e).toBeInstanceOf(TypeError);
    }
  });

  test('a wasmBinary that cannot be instantiated rejects load() (it does not hang)', async () => {
    // (module (import "x" "y" (func))): valid, but its import does not exist
    const bytes = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 2, 7, 1, 1, 0x78, 1, 0x79, 0, 0]);
    expect(WebAssembly.validate(bytes)).toBe(true);
    let timer;
    const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve('still pending after 10 s'), 10_000)));
    const result = await Promise.race([load({ simd: false, wasmBinary: bytes }).then(() => 'resolved', (e) => e), timeout]);
    clearTimeout(timer);
    expect(result).toBeInstanceOf(Error);
    // and the memoised default load still works
    const sm = await load({ simd: false });
    expect(mismatch(sm.softmax([2, 1, 0]), REF_210, probTol)).toBeNull();
  });

  test('load() is memoised per build', async () => {
    expect(await load({ simd: true })).toBe(await load({ simd: true }));
    expect(await load({ simd: false })).toBe(await load({ simd: false }));
    expect(await load({ simd: false })).not.toBe(await load({ simd: true }));
    expect((await load()).simd).toBe(true); // Node 20 validates SIMD128
  });
});
