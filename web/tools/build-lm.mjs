// node web/tools/build-lm.mjs [--check]
// Builds web/components/model/lm.json, the word-level trigram model of
// <softmax-generate>, from web/tools/lm-corpus.txt (an original text of this
// project, see web/components/model/README.md). The output is deterministic:
// --check rebuilds in memory and exits 1 if the committed file differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { tokenize } from '../components/model/lm.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CORPUS = join(HERE, 'lm-corpus.txt');
const OUT = join(HERE, '..', 'components', 'model', 'lm.json');
const DISCOUNT = 0.4; // small: on a text this short, a larger discount hands too much mass to the unigram tail

export function buildModel(text) {
  const body = text
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');
  // A sentence end in front, so the first words are seen after one as every other sentence start is.
  const tokens = ['.', ...tokenize(body)];
  const counts = new Map();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  const vocab = [...counts.keys()].sort((x, y) => counts.get(y) - counts.get(x) || (x < y ? -1 : 1));
  const id = new Map(vocab.map((w, i) => [w, i]));
  const tri = new Map();
  for (let i = 2; i < tokens.length; i++) {
    const key = `${id.get(tokens[i - 2])},${id.get(tokens[i - 1])},${id.get(tokens[i])}`;
    tri.set(key, (tri.get(key) ?? 0) + 1);
  }
  const rows = [...tri].map(([k, n]) => [...k.split(',').map(Number), n]);
  rows.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
  const model = {
    format: 'softmax-wasm word trigram, interpolated Kneser-Ney',
    source: 'web/tools/lm-corpus.txt, an original text of softmax-wasm (MIT); built by web/tools/build-lm.mjs',
    tokens: tokens.length,
    discount: DISCOUNT,
    vocab,
    trigrams: rows.flat(),
  };
  return `${JSON.stringify(model)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const json = buildModel(readFileSync(CORPUS, 'utf8'));
  const gz = gzipSync(json, { level: 9 }).length;
  if (process.argv.includes('--check')) {
    const same = readFileSync(OUT, 'utf8') === json;
    console.log(same ? 'lm.json is up to date' : 'lm.json differs from a fresh build: run node web/tools/build-lm.mjs');
    process.exit(same ? 0 : 1);
  }
  writeFileSync(OUT, json);
  const m = JSON.parse(json);
  console.log(`wrote ${OUT}: ${m.vocab.length} words, ${m.trigrams.length / 4} trigrams from ${m.tokens} tokens; ${json.length} bytes, ${gz} bytes gzip`);
}
