// Bit-identical outputs: the golden file made by the native build
// (tests/golden/softmax.json, see tests/native/golden_softmax.h) checked in
// both wasm builds, and the SIMD and baseline builds against each other.
import { existsSync, readFileSync } from 'node:fs';

import { beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { BUILDS } from './helpers.js';
import { mulberry32, normalArray } from './reference.js';

const GOLDEN = new URL('../golden/softmax.json', import.meta.url);
const golden = existsSync(GOLDEN) ? JSON.parse(readFileSync(GOLDEN, 'utf8')) : null;

const hex = (u) => u.toString(16).padStart(8, '0');

/** Where the bit patterns of two typed arrays differ (count, first index, both patterns); null if identical. */
function bitsDiff(a, b) {
  if (a.length !== b.length) return `length ${a.length} vs ${b.length}`;
  const w = a.BYTES_PER_ELEMENT;
  const ua = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const ub = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  let first = -1;
  let count = 0;
  for (let e = 0; e < a.length; e++) {
    for (let k = 0; k < w; k++) {
      if (ua[e * w + k] !== ub[e * w + k]) {
        if (first < 0) first = e;
        count++;
        break;
      }
    }
  }
  if (first < 0) return null;
  const word = (arr) => (w === 4 ? hex(new DataView(arr.buffer, arr.byteOffset + first * 4, 4).getUint32(0, true)) : '');
  return `${count} element(s) differ; first [${first}]: ${a[first]} (${word(a)}) vs ${b[first]} (${word(b)})`;
}

describe('golden file tests/golden/softmax.json (made by the native build)', () => {
  if (!golden) {
    test.skip('tests/golden/softmax.json is absent: no golden bits to check (the native tool tests/native/tools/make_golden.cpp writes it)', () => {});
    return;
  }

  test('the file has cases in the expected format', () => {
    expect(Array.isArray(golden.cases)).toBe(true);
    expect(golden.cases.length).toBeGreaterThan(0);
    for (const c of golden.cases) {
      expect(['softmax', 'logSoftmax', 'softmaxNaive']).toContain(c.op);
      expect(c.x.length).toBe(c.y.length);
      expect(c.shape.reduce((p, d) => p * d, 1)).toBe(c.x.length);
    }
  });

  describe.each(BUILDS)('$build build', ({ simd }) => {
    let sm;
    beforeAll(async () => {
      sm = await load({ simd });
    });
    const cases = golden.cases.map((c, i) => ({ ...c, i, n: c.x.length }));
    test.each(cases)('case $i: $op T=$temperature shape [$shape] axis $axis', (c) => {
      const x = new Float32Array(Uint32Array.from(c.x, (h) => parseInt(h, 16)).buffer);
      const expected = new Float32Array(Uint32Array.from(c.y, (h) => parseInt(h, 16)).buffer);
      const temperature = c.temperature === 'Infinity' ? Infinity : Number(c.temperature);
      const y = sm[c.op](x, { temperature, shape: c.shape, axis: c.axis });
      expect(bitsDiff(y, expected)).toBeNull();
    });
  });
});

describe('SIMD and baseline builds give bit-identical outputs', () => {
  let a;
  let b;
  beforeAll(async () => {
    a = await load({ simd: true });
    b = await load({ simd: false });
    expect(a.simd).toBe(true);
    expect(b.simd).toBe(false);
  });

  const SIZES = [
    ...Array.from({ length: 70 }, (_, i) => i + 1),
    127, 128, 129, 255, 256, 257, 1000, 1023, 1025, 4099, 32000, 128256, 262144,
  ];

  test('softmax, logSoftmax, logSumExp, softmaxNaive at many sizes and temperatures', () => {
    const bad = [];
    for (const n of SIZES) {
      const x = Float32Array.from(normalArray(n, { seed: 1000 + n, sd: 3 }));
      const masked = x.slice();
      for (let i = 1; i < n; i += 4) masked[i] = -Infinity;
      const temps = n <= 4099 ? [1, 0.3, 2, 10, 0, Infinity] : [1, 0.3];
      for (const input of [x, masked]) {
        for (const temperature of temps) {
          const o = { temperature };
          for (const op of ['softmax', 'logSoftmax']) {
            const d = bitsDiff(a[op](input, o), b[op](input, o));
            if (d) bad.push(`${op} n=${n} T=${temperature}${input === masked ? ' masked' : ''}: ${d}`);
          }
          const la = a.logSumExp(input, o);
          const lb = b.logSumExp(input, o);
          if (!Object.is(la, lb)) bad.push(`logSumExp n=${n} T=${temperature}: ${la} vs ${lb}`);
        }
      }
      if (n <= 4099) {
        const small = x.map((v) => v / 3);
        const d = bitsDiff(a.softmaxNaive(small), b.softmaxNaive(small));
        if (d) bad.push(`softmaxNaive n=${n}: ${d}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test('edge inputs: magnitudes 1e3, 1e30, 3e38, +-Infinity, NaN', () => {
    const rng = mulberry32(77);
    const bad = [];
    for (const scale of [1e3, 1e30, 3e38]) {
      for (const n of [3, 17, 64, 257, 1000]) {
        const x = Float32Array.from({ length: n }, () => (rng() * 2 - 1) * scale);
        for (const temperature of [1, 0.3, 2, 1e-3]) {
          for (const op of ['softmax', 'logSoftmax']) {
            const d = bitsDiff(a[op](x, { temperature }), b[op](x, { temperature }));
            if (d) bad.push(`${op} scale=${scale} n=${n} T=${temperature}: ${d}`);
          }
        }
      }
    }
    for (const x of [[1, Infinity, 3, Infinity], [NaN, 1, 2], [-Infinity, -Infinity]]) {
      for (const masked of ['nan', 'zeros', 'uniform']) {
        const d = bitsDiff(a.softmax(x, { masked }), b.softmax(x, { masked }));
        if (d) bad.push(`softmax [${x}] ${masked}: ${d}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test('N-D tensors along every axis', () => {
    const bad = [];
    for (const shape of [[3, 4, 5], [7, 33, 2], [64, 65], [2, 1000]]) {
      const len = shape.reduce((p, d) => p * d, 1);
      const x = Float32Array.from(normalArray(len, { seed: len, sd: 3 }));
      for (let axis = -shape.length; axis < shape.length; axis++) {
        const o = { shape, axis };
        for (const op of ['softmax', 'logSoftmax', 'logSumExp']) {
          const d = bitsDiff(a[op](x, o), b[op](x, o));
          if (d) bad.push(`${op} [${shape}] axis ${axis}: ${d}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  test('softmaxSteps and sigmoid', () => {
    const bad = [];
    for (const n of [1, 3, 5, 16, 37, 100, 1000]) {
      const x = normalArray(n, { seed: 5000 + n, sd: 3 });
      for (const temperature of [1, 0.3, 2]) {
        const sa = a.softmaxSteps(x, { temperature });
        const sb = b.softmaxSteps(x, { temperature });
        for (const k of ['scaled', 'shifted', 'exps', 'probs', 'rawExps']) {
          const d = bitsDiff(sa[k], sb[k]);
          if (d) bad.push(`softmaxSteps.${k} n=${n} T=${temperature}: ${d}`);
        }
        for (const k of ['max', 'sum', 'rawSum']) if (!Object.is(sa[k], sb[k])) bad.push(`softmaxSteps.${k} n=${n}: ${sa[k]} vs ${sb[k]}`);
      }
    }
    const rng = mulberry32(8);
    for (let i = 0; i < 5000; i++) {
      const z = (rng() - 0.5) * 2 * 10 ** (rng() * 3 - 1);
      if (!Object.is(a.sigmoid(z), b.sigmoid(z))) bad.push(`sigmoid(${z}): ${a.sigmoid(z)} vs ${b.sigmoid(z)}`);
    }
    expect(bad).toEqual([]);
  });
});
