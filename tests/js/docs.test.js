// The README's API reference, the hand-written .d.ts and the runtime objects
// name the same members and options, so that none of them can drift.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

import { load } from '../../web/src/node.js';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const dts = ts.createSourceFile('index.d.ts', readFileSync(new URL('web/src/index.d.ts', root), 'utf8'), ts.ScriptTarget.Latest);

/** Member names of an interface of the .d.ts, with those of the interfaces it extends. */
function members(name) {
  const node = dts.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!node) throw new Error(`index.d.ts has no interface ${name}`);
  const own = node.members.filter((m) => m.name && ts.isIdentifier(m.name)).map((m) => m.name.text);
  const inherited = (node.heritageClauses ?? []).flatMap((h) => h.types.map((t) => members(t.expression.getText(dts))));
  return [...new Set([...own, ...inherited.flat()])].sort();
}

/** The README section under a '## title' heading. */
const section = (title) => readme.split(/^## /m).find((s) => s.startsWith(title)) ?? '';
const api = section('API');
const sampling = section('Sampling');
const tableRow = (text, first) => text.split('\n').find((l) => l.startsWith(`| \`${first}`)) ?? '';
const ticked = (text) => [...text.matchAll(/`(\w+)`/g)].map((m) => m[1]);
const unique = (a) => [...new Set(a)].sort();

describe('README API reference = index.d.ts = runtime', () => {
  it('every Softmax member is in the API table, and nothing else', () => {
    const documented = unique([...api.matchAll(/^\| `sm\.(\w+)/gm)].map((m) => m[1]));
    expect(documented).toEqual(members('Softmax'));
  });

  it('the loaded object has exactly the members of the Softmax interface', async () => {
    const sm = await load();
    const proto = Object.getOwnPropertyNames(Object.getPrototypeOf(sm)).filter((k) => k !== 'constructor');
    const runtime = unique([...proto, ...Object.keys(sm)].filter((k) => k !== 'heapBytes'));
    expect(runtime).toEqual(members('Softmax'));
  });

  it('every option of the softmax family is documented on its row', () => {
    for (const [fn, iface] of [['softmax', 'SoftmaxOptions'], ['logSumExp', 'LogSumExpOptions'], ['softmaxSteps', 'StepsOptions']]) {
      const row = tableRow(api, `sm.${fn}(`);
      const named = members(iface).filter((o) => ticked(row).includes(o));
      expect(named, `${fn} row`).toEqual(members(iface));
    }
    expect(unique(ticked(tableRow(api, 'load(')).filter((o) => members('LoadOptions').includes(o)))).toEqual(members('LoadOptions'));
  });

  it('every Sampler method is in the Sampling example, and nothing else', () => {
    const shown = unique([...sampling.matchAll(/^s\.(\w+)\(/gm)].map((m) => m[1]));
    const methods = members('Sampler').filter((m) => !['seed', 'options', 'disposed', 'mirostatMu'].includes(m));
    expect(shown).toEqual(methods);
  });

  it('every sampler option has a row in the Sampling table, and nothing else', () => {
    const rows = sampling.split('\n').filter((l) => /^\| `\w+`/.test(l));
    const documented = unique(rows.flatMap((l) => ticked(l.split('|')[1])));
    expect(documented).toEqual(members('SamplerOptions'));
  });

  it('a sampler has exactly the members of the Sampler interface', async () => {
    const sm = await load();
    const s = sm.createSampler({ seed: 1 });
    const proto = Object.getOwnPropertyNames(Object.getPrototypeOf(s)).filter((k) => k !== 'constructor');
    s.dispose();
    expect(unique(proto)).toEqual(members('Sampler'));
  });
});

describe("the core's option table = index.d.ts = README", () => {
  // The table the JS layer validates against is the core's (cpp/include/smx/sampler_options.h),
  // read from the module; the docs must list exactly its options.
  it('SamplerOptions in index.d.ts are the option table', async () => {
    const sm = await load();
    const s = sm.createSampler({ seed: 1 });
    const numeric = Object.keys(s.options).filter((k) => !['order', 'drySequenceBreakers'].includes(k));
    s.dispose();
    const lists = ['seed', 'logitBias', 'history', 'order', 'drySequenceBreakers'];
    expect(unique([...numeric, ...lists])).toEqual(members('SamplerOptions'));
  });

  it('every numeric option of the table has a row in the Sampling table', async () => {
    const sm = await load();
    const s = sm.createSampler({ seed: 1 });
    const rows = sampling.split('\n').filter((l) => /^\| `\w+`/.test(l));
    for (const [name, value] of Object.entries(s.options)) {
      if (typeof value !== 'number') continue;
      const row = rows.find((l) => ticked(l.split('|')[1]).includes(name));
      expect(row, `${name} has a row`).toBeDefined();
    }
    s.dispose();
  });

  it('an unknown snake_case option suggests ours', async () => {
    const sm = await load();
    for (const [bad, good] of [['top_p', 'topP'], ['repeat_penalty', 'repetitionPenalty'], ['min_tokens_to_keep', 'minKeep'], ['temprature', 'temperature']]) {
      expect(() => sm.createSampler({ [bad]: 1 })).toThrow(new RegExp(`did you mean '${good}'`));
    }
  });

  it("every other library's name the README maps to ours gets that suggestion", async () => {
    const sm = await load();
    // The transformers.js paragraph ("`top_k` -> `topK`") and llama.cpp's
    // parameter names in the Sampling table's last column ("llama.cpp `penalty_repeat`").
    const pairs = [...readme.matchAll(/`([a-z]+(?:_[a-z]+)+)`\s*->\s*`(\w+)`/g)].map((m) => [m[1], m[2]]);
    for (const row of sampling.split('\n').filter((l) => /^\| `\w+`/.test(l))) {
      const cells = row.split('|');
      const ours = ticked(cells[1]);
      for (const m of cells[3].matchAll(/llama\.cpp `([a-z]+_[a-z_]+)`/g)) if (ours.length === 1) pairs.push([m[1], ours[0]]);
    }
    expect(pairs.length).toBeGreaterThan(10);
    for (const [theirs, good] of pairs) {
      expect(() => sm.createSampler({ [theirs]: 1 }), theirs).toThrow(new RegExp(`did you mean '${good}'`));
    }
  });
});
