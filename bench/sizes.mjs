// The download size of what a page loads (SIMD build): the files, their bytes and
// gzip -9 bytes (zlib, no file name in the header, so the same on every machine).
// One list for the size budget of tests/pack, the benchmark report and the
// table of BENCHMARKS.md, which `npm run bench -- --sizes --write` regenerates
// between its `<!-- sizes -->` and `<!-- /sizes -->` lines (tests/pack checks it).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The files a page loads with the SIMD build: the wasm, its glue, the JS API (the transformers.js adapter is extra). */
export function coreFiles(root) {
  return [
    'web/dist/softmax-simd.wasm',
    'web/dist/softmax-simd.js',
    ...readdirSync(join(root, 'web/src'))
      .filter((f) => f.endsWith('.js') && f !== 'transformers.js')
      .sort()
      .map((f) => `web/src/${f}`),
    'web/dist/wasm-feature-detect.js',
  ];
}

export const gzipBytes = (file) => gzipSync(readFileSync(file), { level: 9 }).length;

/** Rows { file, bytes, gzip } of the core files and their total. */
export function coreSizes(root) {
  const rows = coreFiles(root).map((file) => ({ file, bytes: statSync(join(root, file)).size, gzip: gzipBytes(join(root, file)) }));
  const total = rows.reduce((t, r) => ({ bytes: t.bytes + r.bytes, gzip: t.gzip + r.gzip }), { bytes: 0, gzip: 0 });
  return { rows, total };
}

const PEERS = [
  ['TF.js wasm backend: tfjs-backend-wasm-simd.wasm', 'node_modules/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm'],
  ['onnxruntime-web: ort-wasm-simd-threaded.wasm', 'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.wasm'],
];

/** The Markdown table; the peers' rows (for scale) when bench/node_modules has them. */
export function sizeTable(root, { peers = true } = {}) {
  const { rows, total } = coreSizes(root);
  const lines = ['| file | bytes | gzip -9 |', '|---|---:|---:|'];
  for (const r of rows) lines.push(`| ${r.file} | ${r.bytes} | ${r.gzip} |`);
  lines.push(`| **softmax-wasm, SIMD build, total** | **${total.bytes}** | **${total.gzip}** |`);
  for (const [label, p] of peers ? PEERS : []) {
    const f = join(root, 'bench', p);
    if (existsSync(f)) lines.push(`| (peer, for scale) ${label} | ${statSync(f).size} | ${gzipBytes(f)} |`);
  }
  return lines.join('\n');
}

const BEGIN = '<!-- sizes -->';
const END = '<!-- /sizes -->';

/** The table between the markers of a Markdown text, or null. */
export function markedTable(markdown) {
  const i = markdown.indexOf(BEGIN);
  const j = markdown.indexOf(END);
  return i < 0 || j < i ? null : markdown.slice(i + BEGIN.length, j).trim();
}

/** markdown with the table between the markers replaced. */
export function withTable(markdown, table) {
  const i = markdown.indexOf(BEGIN);
  const j = markdown.indexOf(END);
  if (i < 0 || j < i) throw new Error(`no ${BEGIN} ... ${END} block`);
  return `${markdown.slice(0, i + BEGIN.length)}\n${table}\n${markdown.slice(j)}`;
}
