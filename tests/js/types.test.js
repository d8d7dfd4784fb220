// The hand-written web/src/index.d.ts against tsc --strict: a consumer that
// uses every member must type-check, and every wrong use in misuse.ts must be
// a type error (each line carries @ts-expect-error; checked with and without it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, test } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsc = join(root, 'node_modules/.bin/tsc');
const typesDir = join(root, 'tests/js/types');

function runTsc(args) {
  const r = spawnSync(tsc, args, { cwd: root, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('index.d.ts under tsc --strict', () => {
  test('consumer.ts (every API member, used correctly) and misuse.ts (every line an expected error) type-check', () => {
    const r = runTsc(['-p', join(typesDir, 'tsconfig.json'), '--strict', '--noEmit']);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  test('without the @ts-expect-error directives, every line of misuse.ts is a type error', () => {
    const lines = readFileSync(join(typesDir, 'misuse.ts'), 'utf8')
      .replace("'../../../web/src/index.js'", JSON.stringify(join(root, 'web/src/index.js')))
      .split('\n');
    const kept = [];
    const expected = []; // 1-based line numbers, in the stripped file, that must fail
    for (const line of lines) {
      if (line.trim().startsWith('// @ts-expect-error')) expected.push(kept.length + 1);
      else kept.push(line);
    }
    expect(expected.length).toBeGreaterThanOrEqual(20);
    const dir = mkdtempSync(join(tmpdir(), 'smx-types-'));
    try {
      writeFileSync(join(dir, 'misuse.ts'), kept.join('\n'));
      const config = JSON.parse(readFileSync(join(typesDir, 'tsconfig.json'), 'utf8'));
      config.files = ['misuse.ts'];
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
      const r = runTsc(['-p', join(dir, 'tsconfig.json'), '--strict', '--noEmit', '--pretty', 'false']);
      expect(r.status).not.toBe(0);
      const failing = new Set([...r.output.matchAll(/misuse\.ts\((\d+),\d+\): error TS/g)].map((m) => Number(m[1])));
      const missing = expected.filter((l) => !failing.has(l)).map((l) => `${l}: ${kept[l - 1].trim()}`);
      expect(missing).toEqual([]);
      // and nothing else fails (an error elsewhere would mean a broken test file)
      expect([...failing].filter((l) => !expected.includes(l))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
