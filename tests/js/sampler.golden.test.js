// tests/golden/sampler.json (written by the native build, see
// tests/native/sampler_golden.h) replayed in Node with both wasm builds: the
// same seed and scores must give the same 1,000 indices, one sample() call at
// a time and through sampleMany().
import { readFileSync } from 'node:fs';

import { beforeAll, describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';
import { goldenOptions, goldenScores } from './helpers.js';

const golden = JSON.parse(readFileSync(new URL('../golden/sampler.json', import.meta.url), 'utf8'));

test('the golden file holds at least 10 cases of 1,000 draws', () => {
  expect(golden.cases.length).toBeGreaterThanOrEqual(10);
  for (const c of golden.cases) expect(c.draws).toHaveLength(1000);
});

describe.each([
  { build: 'SIMD', simd: true },
  { build: 'baseline', simd: false },
])('$build build', ({ simd }) => {
  let sm;
  beforeAll(async () => {
    sm = await load({ simd });
  });

  test.each(golden.cases.map((c) => [c.name, c]))('%s', (_, c) => {
    const x = goldenScores(c.scores);
    const s = sm.createSampler(goldenOptions(c));
    const got = new Int32Array(c.draws.length);
    for (let i = 0; i < got.length; i++) {
      got[i] = s.sample(x);
      if (c.accept) s.accept(got[i]);
    }
    expect(Array.from(got)).toEqual(c.draws);
    if (!c.accept) {
      s.reset(BigInt(c.seed));
      expect(Array.from(s.sampleMany(x, c.draws.length))).toEqual(c.draws);
    }
    s.dispose();
  });
});
