// The download size of what a page loads (SIMD build): the files, their bytes and
// gzip -9 bytes (zlib, no file name in the header, so the same on every machine).
// One list for the size budget of tests/pack, the benchmark report and the
// table of BENCHMARKS.md, which `npm run bench -- --sizes --write` regenerates
// between its `<!-- sizes -->` and `<!-- /sizes -->` lines (tests/pack checks it).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { buildSync } from 'esbuild';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * What a page downloads with the SIMD build: the wasm, its glue (minified at
 * build time) and the JS API with the feature detector as a bundler serves them,
 * bundled and minified (esbuild). The transformers.js adapter is extra.
 */
export function coreParts(root) {
  const api = buildSync({
    entryPoints: [join(root, 'web/src/index.js')],
    bundle: true,
    minify: true,
    format: 'esm',
    write: false,
    external: ['../dist/softmax-simd.js', '../dist/softmax-base.js'],
    logLevel: 'silent',
  }).outputFiles[0].contents;
  return [
    { file: 'web/dist/softmax-simd.wasm', shipped: ['web/dist/softmax-simd.wasm'], data: readFileSync(join(root, 'web/dist/softmax-simd.wasm')) },
    { file: 'web/dist/softmax-simd.js', shipped: ['web/dist/softmax-simd.js'], data: readFileSync(join(root, 'web/dist/softmax-simd.js')) },
    {
      file: 'web/src/*.js with web/dist/wasm-feature-detect.js, bundled and minified',
      shipped: ['web/src/index.js', 'web/dist/wasm-feature-detect.js'],
      data: api,
    },
  ];
}

export const gzipBytes = (file) => gzipSync(readFileSync(file), { level: 9 }).length;

/** Rows { file, shipped, bytes, gzip } of what a page loads, and their total. */
export function coreSizes(root) {
  const rows = coreParts(root).map(({ file, shipped, data }) => ({ file, shipped, bytes: data.length, gzip: gzipSync(data, { level: 9 }).length }));
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
