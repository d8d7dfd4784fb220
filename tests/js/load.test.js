// load(): the SIMD / baseline choice, memoisation (one compile per page), and
// the three ways a host can hand over the .wasm.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

import { load } from '../../web/src/node.js';

const dist = (name) => new URL(`../../web/dist/${name}`, import.meta.url);
const p210 = (sm) => Array.from(sm.softmax([2, 1, 0]), (v) => Math.round(v * 1000) / 1000);

describe('load()', () => {
  test('picks SIMD where the engine validates it (Node 20 does), the baseline on request', async () => {
    expect((await load()).simd).toBe(true);
    expect((await load({ simd: 'auto' })).simd).toBe(true);
    expect((await load({ simd: false })).simd).toBe(false);
  });

  test('is memoised: every default load() of a build is the same instance', async () => {
    const [a, b] = await Promise.all([load(), load({ simd: 'auto' })]);
    expect(a).toBe(b);
    expect(await load({ simd: false })).toBe(await load({ simd: false }));
    expect(await load({ simd: false })).not.toBe(a);
  });

  test('takes the .wasm from locateFile, wasmBinary or a compiled WebAssembly.Module', async () => {
    const asked = [];
    const viaLocate = await load({
      locateFile: (name) => {
        asked.push(name);
        return dist(name);
      },
    });
    expect(asked).toEqual(['softmax-simd.wasm']);
    const bytes = readFileSync(dist('softmax-base.wasm'));
    const viaBytes = await load({ simd: false, wasmBinary: bytes });
    const viaModule = await load({ simd: false, module: await WebAssembly.compile(bytes) });
    for (const sm of [viaLocate, viaBytes, viaModule]) expect(p210(sm)).toEqual([0.665, 0.245, 0.09]);
    expect(viaBytes.simd).toBe(false);
    expect(viaLocate).not.toBe(await load()); // a custom source makes its own instance
  });

  test('a locateFile that points nowhere rejects, naming the file', async () => {
    await expect(load({ locateFile: () => new URL('file:///nonexistent/softmax-simd.wasm') })).rejects.toThrow(/softmax-simd\.wasm|ENOENT/);
    expect(p210(await load())).toEqual([0.665, 0.245, 0.09]);
  });
});
