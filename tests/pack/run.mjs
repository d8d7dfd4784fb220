// Packaging test: `npm pack`, then install the tarball into temporary projects
// that cannot see the repository, and use it the ways users do. Prints 'ok' or
// 'FAIL' per check and closes with 'N passed, N failed'.
//
//   the tarball      its files, the size budget, BENCHMARKS.md's size table, package.json's links and
//                    exports, the README's links, `npm run bench -- --help`
//   Node             ES module (the README snippet, every example of the API table and the sampling
//                    snippet, checked against the values the README prints), what load() memoises,
//                    CommonJS under --no-experimental-require-module, worker_threads, the exported .wasm
//   TypeScript       tsc --strict as ES module (nodenext, bundler) and as CommonJS (node16), each
//                    compiled and run on Node, `using` included; the widgets' types
//   browsers         (headless Chromium) a Vite build and the Vite dev server with the README's config,
//                    worker and a widget import; a plain page; the no-SIMD fallback; a widget under the
//                    README's CSP; a module worker; the one-file build from another origin under CORS (and
//                    refused without it); the demo served from the package
//   transformers.js  tests/pack/transformers/ as a clean project: the adapter against transformers.js 4.x,
//                    end to end in generate() and pipeline() with a tiny model it writes, its README
//                    snippet, from TypeScript and CommonJS; onnxruntime's and transformers.js's tensors
//                    (float32, float16) and BigInt token ids
//
//   node tests/pack/run.mjs [--only=word]     (checks whose name contains the word; the set-up runs anyway)
//
// Every code block of the README carries a `<!-- snippet: NAME -->` line and is
// run here where a user would run it (tests/pack/snippets.mjs). The generated
// files (web/tools/build.mjs --js) are rebuilt first; the wasm must be built.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

import { chromium } from 'playwright-core';
import sirv from 'sirv';

import { coreSizes, markedTable, sizeTable } from '../../bench/sizes.mjs';
import { checkedModule, codeBlocks, matchesStated, numbersOf, printedValues, statedValue, tableExamples } from './snippets.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'softmax-wasm-pack-'));
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
const sh = (cmd, args, cwd, opts = {}) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
const npm = (args, cwd) => sh('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], cwd);
/** node with the flags given; returns stdout, throws with stderr on a non-zero exit. */
function node(args, cwd) {
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const results = [];
async function check(name, fn) {
  if (only && !name.includes(only)) return;
  const t0 = performance.now();
  try {
    await fn();
    results.push([name, true]);
    console.log(`ok   ${name} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (e) {
    results.push([name, false]);
    console.log(`FAIL ${name}\n     ${String(e?.stack ?? e).split('\n').slice(0, 12).join('\n     ')}`);
  }
}
const assert = (cond, msg) => {
  if (!cond) throw new Error(msg);
};
// [2, 1, 0] in double precision, the course's 0.665 / 0.245 / 0.090.
const REF = (() => {
  const e = [2, 1, 0].map((v) => Math.exp(v - 2));
  const s = e.reduce((a, b) => a + b);
  return e.map((v) => v / s);
})();
const close = (got) => got?.length === 3 && got.every((v, i) => Math.abs(v - REF[i]) <= 1e-6 * REF[i]);

// ---- the README's snippets ----
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = codeBlocks(readme);
const snippet = (name) => {
  const b = blocks.find((x) => x.name === name);
  if (!b) throw new Error(`README has no block marked <!-- snippet: ${name} -->`);
  return b.code;
};
/** Checks a snippet's printed lines against the values its console.log comments state. */
function checkPrinted(code, stdout, name) {
  const stated = printedValues(code);
  // One record per console.log: Node prints a long typed array over several lines.
  const lines = stdout.trim().split(/\n(?=[^\s\]])/);
  assert(lines.length >= stated.length, `README ${name}: printed ${lines.length} lines, expected ${stated.length}`);
  stated.forEach((s, i) => matchesStated(numbersOf(lines[i]), s, `README ${name}, printed line ${i + 1}`));
}
const CSP = snippet('csp').match(/^Content-Security-Policy:\s*(.+)$/m)?.[1];

// ---- the tarball ----
if (!existsSync(join(root, 'web/dist/softmax-simd.wasm'))) throw new Error('web/dist has no wasm build: run npm run build first');
sh(process.execPath, [join(root, 'web/tools/build.mjs'), '--js'], root); // the generated files follow web/src
const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], root));
const tarball = join(work, packed[0].filename);
const shipped = packed[0].files.map((f) => f.path).sort();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
console.log(`     tarball ${packed[0].filename}: ${packed[0].size} bytes, ${packed[0].unpackedSize} unpacked, ${shipped.length} files`);

const EXPECTED_FILES = [
  'CHANGELOG.md', 'LICENSE', 'README.md', 'SECURITY.md', 'package.json',
  'web/dist/softmax-base.js', 'web/dist/softmax-base.wasm', 'web/dist/softmax-simd.js', 'web/dist/softmax-simd.wasm',
  'web/dist/wasm-feature-detect.js', 'web/dist/softmax-wasm.cjs', 'web/dist/softmax-wasm.js', 'web/dist/softmax-wasm.d.cts',
  'web/dist/transformers.cjs', 'web/dist/transformers.d.cts',
  'web/src/index.d.ts', 'web/src/index.js', 'web/src/node.js', 'web/src/transformers.js', 'web/src/transformers.d.ts',
  'web/components/index.js', 'web/components/index.d.ts', 'web/demo/index.html',
];
await check('tarball holds the API, types, builds, generated entries, widgets, demo and docs, nothing else', () => {
  const missing = EXPECTED_FILES.filter((f) => !shipped.includes(f));
  const allowed = (f) =>
    EXPECTED_FILES.includes(f) ||
    /^web\/src\/[\w-]+\.(js|d\.ts)$/.test(f) ||
    /^web\/components\/[\w-]+\.(js|d\.ts|css)$/.test(f) ||
    /^web\/components\/model\/(lm\.js|lm\.json|README\.md)$/.test(f) ||
    /^web\/demo\/([\w-]+\/)?[\w-]+\.(html|js|css|svg)$/.test(f);
  const extra = shipped.filter((f) => !allowed(f));
  assert(missing.length === 0, `missing: ${missing}`);
  assert(extra.length === 0, `unexpected: ${extra}`);
});

// Embind's runtime is most of the glue. 52 KiB held it with the softmax family
// and the sampler; token masks, draft verification and the sampler's one-pass
// paths (top-p, typical, eta within ~2x one softmax) bring it to 56 KiB.
const budget = 56 * 1024;
await check(`size budget: SIMD .wasm + glue + JS API, gzip -9, <= ${budget} bytes`, () => {
  // The core a page loads (bench/sizes.mjs); the transformers.js adapter is loaded only by those who import it.
  const { rows, total } = coreSizes(root);
  for (const r of rows) console.log(`     ${String(r.gzip).padStart(6)} B gz  ${r.file}`);
  console.log(`     ${String(total.gzip).padStart(6)} B gz  total (budget ${budget})`);
  assert(rows.every((r) => r.shipped.every((f) => shipped.includes(f))), 'a core file is not in the tarball');
  assert(total.gzip <= budget, `${total.gzip} > ${budget}`);
  const stated = Number(readFileSync(join(root, 'README.md'), 'utf8').match(/SIMD wasm \+ glue \+ JS API (\d+) KB gzipped/)?.[1]);
  assert(Math.abs(stated * 1000 - total.gzip) < 1000, `the README says ${stated} KB gzipped; the files are ${total.gzip} bytes`);
});

await check("BENCHMARKS.md's size table is the current files (npm run bench -- --sizes --write)", () => {
  const ours = (table) => (table ?? '').split('\n').filter((l) => !l.includes('(peer, for scale)')).join('\n');
  const inDoc = markedTable(readFileSync(join(root, 'BENCHMARKS.md'), 'utf8'));
  assert(ours(inDoc) === sizeTable(root, { peers: false }), `the files give\n${sizeTable(root, { peers: false })}`);
});

await check('bench tooling: `npm run bench -- --help` prints the options and runs nothing, from the root and in bench/', () => {
  for (const cwd of [root, join(root, 'bench')]) {
    const t0 = performance.now();
    const text = sh('npm', ['run', '--silent', 'bench', '--', '--help'], cwd);
    assert(text.startsWith('Usage: npm run bench') && text.includes('--sizes') && performance.now() - t0 < 10000, `${cwd}: ${text.slice(0, 200)}`);
  }
  const bad = spawnSync('npm', ['run', '--silent', 'bench', '--', '--no-such-option'], { cwd: root, encoding: 'utf8' });
  assert(bad.status !== 0 && bad.stderr.includes('unknown option --no-such-option'), `an unknown option: ${bad.status} ${bad.stderr}`);
});

const repoUrl = pkg.repository?.url?.replace(/^git\+/, '').replace(/\.git$/, '');
await check('package.json: repository, homepage, bugs; engines; every exports target ships', () => {
  assert(/^https:\/\/\S+$/.test(repoUrl ?? ''), `repository.url ${pkg.repository?.url}`);
  assert(pkg.homepage?.startsWith(repoUrl) && pkg.bugs?.url?.startsWith(repoUrl), 'homepage and bugs.url point into the repository');
  assert(pkg.engines?.node === `>=${process.versions.node.split('.')[0]}`, `engines.node ${pkg.engines?.node}: the tests run on Node ${process.versions.node}`);
  const targets = [];
  const walk = (v) => (typeof v === 'string' ? targets.push(v) : Object.values(v).forEach(walk));
  walk(pkg.exports);
  for (const t of [...targets, pkg.main, pkg.types, pkg.unpkg, pkg.jsdelivr]) {
    const path = t.replace(/^\.\//, '');
    const ok = path.includes('*') ? shipped.some((f) => f.startsWith(path.slice(0, path.indexOf('*')))) : shipped.includes(path);
    assert(ok, `${t} is not in the tarball`);
  }
});

await check('README and SECURITY.md: every link ships in the tarball or points at the repository', () => {
  for (const file of ['README.md', 'SECURITY.md']) {
    const text = readFileSync(join(root, file), 'utf8');
    const links = [...text.matchAll(/\]\(([^)\s]+)\)|<(https?:[^>\s]+)>/g)].map((m) => m[1] ?? m[2]);
    for (const link of links) {
      if (link.startsWith('#')) continue;
      if (/^https?:/.test(link)) assert(link.startsWith(`${repoUrl}/`), `${file}: ${link} is outside the repository`);
      else assert(shipped.includes(link.replace(/^\.\//, '').replace(/#.*/, '')), `${file}: ${link} is not in the tarball`);
    }
  }
});

const RUN_HERE = ['install', 'vite-config', 'node-esm', 'node-cjs', 'typescript', 'page', 'csp', 'cdn', 'worker', 'transformers', 'widget', 'sampling', 'token-mask', 'speculative', 'start-output', 'build-steps'];
await check('README: every code block is marked with a snippet name that this test runs', () => {
  const unnamed = blocks.filter((b) => !b.name).map((b) => `line ${b.line}`);
  assert(unnamed.length === 0, `unnamed blocks: ${unnamed}`);
  const unknown = blocks.filter((b) => !RUN_HERE.includes(b.name)).map((b) => b.name);
  assert(unknown.length === 0, `blocks no check runs: ${unknown}`);
  assert(snippet('install').trim() === `npm install ${pkg.name}`, snippet('install'));
  assert(CSP?.includes("'wasm-unsafe-eval'") && !CSP.includes("'unsafe-eval'"), `csp: ${CSP}`);
});

await check('README: the tested Node and TypeScript versions it names are the ones here', () => {
  const tsVersion = JSON.parse(readFileSync(join(root, 'node_modules/typescript/package.json'), 'utf8')).version;
  const ts = tsVersion.split('.').slice(0, 2).join('.');
  assert(readme.includes(`Node ${process.versions.node.split('.')[0]} `), `README does not say Node ${process.versions.node.split('.')[0]}`);
  assert(readme.includes(`TypeScript ${ts}`), `README does not say TypeScript ${ts}`);
});

await check("README: the quick start's printed examples are what `npm run examples` prints", () => {
  const printed = sh(process.execPath, [join(root, 'web/tools/examples.mjs')], root).split('\n').map((l) => l.trimEnd());
  const shown = snippet('start-output').split('\n');
  const upTo = shown.findIndex((l) => l.trim() === '...');
  for (const line of shown.slice(0, upTo).map((l) => l.trimEnd())) assert(printed.includes(line), `not printed: ${line}`);
});

await check('README: the build-from-source commands name scripts and targets that exist', () => {
  for (const line of snippet('build-steps').split('\n')) {
    const cmd = line.replace(/#.*/, '').trim();
    if (!cmd) continue;
    for (const m of cmd.matchAll(/bash (\S+)/g)) assert(existsSync(join(root, m[1])), `${m[1]} does not exist`);
    for (const m of cmd.matchAll(/npm run (\S+)/g)) assert(pkg.scripts[m[1]], `no npm script ${m[1]}`);
    for (const m of cmd.matchAll(/npx (\S+)/g)) assert(existsSync(join(root, 'node_modules/.bin', m[1])), `no ${m[1]} in node_modules/.bin`);
    if (cmd.includes('cmake -S .')) assert(existsSync(join(root, 'CMakeLists.txt')), 'no CMakeLists.txt');
  }
});

// ---- a consumer project with no access to the repository ----
const app = join(work, 'app');
mkdirSync(app);
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
const tsVersion = JSON.parse(readFileSync(join(root, 'node_modules/typescript/package.json'), 'utf8')).version;
npm(['install', tarball, `typescript@${tsVersion}`, 'vite@7', `@types/node@${process.versions.node.split('.')[0]}`], app);

await check('Node ES module: the README snippet and every API-table example give the values the README prints', () => {
  writeFileSync(join(app, 'readme-esm.mjs'), checkedModule(snippet('node-esm'), 'node-esm'));
  node(['readme-esm.mjs'], app);
  const examples = tableExamples(readme.split(/^## /m).find((s) => s.startsWith('API')));
  assert(examples.length >= 10, `${examples.length} examples in the API table`);
  // Each example in a process of its own (as if it ran alone), with the names it leaves to the reader.
  const tablePrelude = `import { load } from 'softmax-wasm';
const out = { logits: { data: new Float32Array(2 * 3 * 5).map((_, i) => i), dims: [1, 6, 5], type: 'float32' } }; // a model's output
`;
  examples.forEach((ex, i) => {
    const [code, comment] = ex.split(' // ');
    const where = JSON.stringify(`API table example ${i + 1}: ${ex}`);
    const body = `${/\bconst sm\b/.test(code) ? '' : 'const sm = await load();'}\n${comment ? `__check(${code}, ${JSON.stringify(comment)}, ${where});` : `${code};`}\n`;
    writeFileSync(join(app, `readme-table-${i + 1}.mjs`), checkedModule(tablePrelude, 'table') + body);
    node([`readme-table-${i + 1}.mjs`], app);
  });
  // The sampling snippet with the names it leaves to the reader.
  const samplingPrelude = `import { load } from 'softmax-wasm';
const sm = await load();
const vocab = 1000, rows = 4, token = 17;
const logits = Float32Array.from({ length: vocab }, (_, i) => Math.sin(i * 0.37) * 4);
const x = Float32Array.from({ length: rows * vocab }, (_, i) => Math.cos(i * 0.11) * 3);
const mask = new Uint32Array(Math.ceil(vocab / 32)).map((_, w) => (w % 2 ? 0xffffffff : 0x0000ffff));
const draftTokens = [3, 7], draftProbs = new Float32Array(2 * vocab).fill(1 / vocab);
const targetLogits = Float32Array.from({ length: 3 * vocab }, (_, i) => Math.sin(i * 0.23) * 2);
`;
  writeFileSync(join(app, 'readme-sampling.mjs'), `${samplingPrelude}${snippet('sampling')}\n`);
  node(['readme-sampling.mjs'], app);
  // The token-mask and speculative-decoding examples, each stated value checked.
  for (const name of ['token-mask', 'speculative']) {
    writeFileSync(join(app, `readme-${name}.mjs`), checkedModule(`import { load } from 'softmax-wasm';\nconst sm = await load();\n${snippet(name)}`, name));
    node([`readme-${name}.mjs`], app);
  }
});

await check('Node ES module: memoised load(), Softmax a class, the .wasm files found through the exports', () => {
  writeFileSync(join(app, 'esm.mjs'), `import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load, Softmax } from 'softmax-wasm';
const [a, b, base] = [await load(), await load(), await load({ simd: false })];
const simdUrl = import.meta.resolve('softmax-wasm/softmax-simd.wasm');
const bytes = readFileSync(fileURLToPath(simdUrl));
const own = await load({ wasmBinary: bytes });
const ownAgain = await load({ wasmBinary: bytes });
const located = [await load({ locateFile: () => simdUrl }), await load({ locateFile: (name) => import.meta.resolve('softmax-wasm/' + name) })];
let error;
try { a.softmax([1], { top_p: 1 }); } catch (e) { error = e.constructor.name; }
console.log(JSON.stringify({ same: a === b, cls: a instanceof Softmax, own: own !== a && own === ownAgain && own instanceof Softmax,
  located: located[0] !== located[1] && located[0] !== a && located.every((l) => l.softmax([0, 0])[0] === 0.5), simd: a.simd, base: base.simd,
  p: Array.from(a.softmax([2, 1, 0])), q: Array.from(base.softmax([2, 1, 0])), r: Array.from(own.softmax([2, 1, 0])),
  baseUrl: import.meta.resolve('softmax-wasm/softmax-base.wasm').endsWith('/web/dist/softmax-base.wasm'), error }));`);
  const out = JSON.parse(node(['esm.mjs'], app));
  assert(out.same && out.cls && out.own && out.located, `memo ${out.same}, class ${out.cls}, wasmBinary memo ${out.own}, locateFile new each call ${out.located}`);
  assert(out.simd === true && out.base === false && out.baseUrl, JSON.stringify(out));
  assert(close(out.p) && close(out.q) && close(out.r), JSON.stringify(out));
  assert(out.error === 'TypeError', `unknown option: ${out.error}`);
});

await check('Node CommonJS (--no-experimental-require-module): the README snippet, require.resolve of the .wasm, the adapter', () => {
  // The flag holds: a plain require() of an ES module fails under it.
  writeFileSync(join(app, 'probe.mjs'), 'export default 1;\n');
  writeFileSync(join(app, 'probe.cjs'), "try { require('./probe.mjs'); console.log('loaded'); } catch (e) { console.log(e.code); }\n");
  assert(node(['--no-experimental-require-module', 'probe.cjs'], app).trim() === 'ERR_REQUIRE_ESM', 'require(esm) is not off');
  const code = snippet('node-cjs');
  writeFileSync(join(app, 'readme-cjs.cjs'), code);
  checkPrinted(code, node(['--no-experimental-require-module', 'readme-cjs.cjs'], app), 'node-cjs');
  writeFileSync(join(app, 'cjs.cjs'), `const { load, Softmax } = require('softmax-wasm');
const { createLogitsProcessor } = require('softmax-wasm/transformers');
const fs = require('node:fs');
(async () => {
  const sm = await load();
  const base = await load({ simd: false });
  const wasm = require.resolve('softmax-wasm/softmax-simd.wasm');
  const own = await load({ wasmBinary: fs.readFileSync(wasm) });
  const p = createLogitsProcessor(sm, { seed: 1, temperature: 0 });
  const logits = { data: new Float32Array([0, 3, 1]), dims: [1, 3] };
  p([[0n]], logits);
  let error;
  try { sm.createSampler({ topP: 2 }); } catch (e) { error = e.constructor.name; }
  console.log(JSON.stringify({ simd: sm.simd, base: base.simd, cls: sm instanceof Softmax && own !== sm, same: sm === await load(),
    p: Array.from(sm.softmax([2, 1, 0])), q: Array.from(base.softmax([2, 1, 0])), r: Array.from(own.softmax([2, 1, 0])),
    kept: Array.from(logits.data), error }));
})();`);
  const out = JSON.parse(node(['--no-experimental-require-module', 'cjs.cjs'], app));
  assert(out.simd === true && out.base === false && out.cls && out.same, JSON.stringify(out));
  assert(close(out.p) && close(out.q) && close(out.r), JSON.stringify(out));
  assert(JSON.stringify(out.kept) === JSON.stringify([null, 0, null]), `adapter kept ${out.kept}`); // -Infinity is null in JSON
  assert(out.error === 'RangeError', `topP 2: ${out.error}`);
});

await check('Node worker_threads: load and compute in a worker', () => {
  writeFileSync(join(app, 'w.mjs'), `import { Worker, isMainThread, parentPort } from 'node:worker_threads';
if (isMainThread) {
  const w = new Worker(new URL(import.meta.url));
  w.on('message', (m) => { console.log(JSON.stringify(m)); w.terminate(); });
} else {
  const { load } = await import('softmax-wasm');
  const sm = await load();
  parentPort.postMessage(Array.from(sm.softmax([2, 1, 0])));
}`);
  const out = JSON.parse(node(['w.mjs'], app));
  assert(close(out), `got ${out}`);
});

// ---- TypeScript ----
const tsc = join(app, 'node_modules/.bin/tsc');
const TS_CONSUMER = `import { load, Softmax, type Sampler, type SoftmaxSteps } from 'softmax-wasm';
import { createLogitsProcessor, type SoftmaxLogitsProcessor } from 'softmax-wasm/transformers';

// No top-level await: the same file compiles to an ES module and to CommonJS.
async function main() {
  const sm = await load({ simd: 'auto' });
  const isClass: boolean = sm instanceof Softmax;
  const scores: readonly number[] = [2, 1, 0];
  const p: Float32Array = sm.softmax(scores, { temperature: 0.5, masked: 'zeros' });
  const steps: SoftmaxSteps = sm.softmaxSteps(scores);
  let drawn = -1;
  let kept: Sampler | undefined;
  {
    using s: Sampler = sm.createSampler({ seed: 42, topK: 2 });
    drawn = s.sample(new Float64Array(scores));
    kept = s;
  }
  const disposedInBlock = kept.disposed;
  const proc: SoftmaxLogitsProcessor = createLogitsProcessor(sm, { seed: 1, topP: 0.9 });
  const logits = proc([[0n, 1n]], { data: new Float32Array([1, 2, 3]), dims: [1, 3] });
  proc[Symbol.dispose]();
  function typeErrors() {
    // @ts-expect-error the adapter feeds the history itself
    createLogitsProcessor(sm, { history: [1] });
    // @ts-expect-error only load() makes a Softmax
    new Softmax();
    // @ts-expect-error temperature is a number
    sm.softmax([1], { temperature: 'hot' });
    // @ts-expect-error masked is one of four names
    sm.softmax([1], { masked: 'ignore' });
  }
  void typeErrors;
  console.log(JSON.stringify({ isClass, p: Array.from(p), max: steps.max, disposedInBlock, drawn, kept: Array.from(logits.data) }));
}
main();
`;
function checkTsOutput(out) {
  const r = JSON.parse(out.trim().split('\n').at(-1));
  assert(r.isClass && r.max === 2 && (r.drawn === 0 || r.drawn === 1), JSON.stringify(r));
  assert(r.disposedInBlock, '`using` did not call the sampler\'s [Symbol.dispose]');
  assert(Math.abs(r.p[0] - 0.8668) < 1e-3 && r.kept.filter((v) => v === 0).length === 1, JSON.stringify(r));
}
const tsconfig = (dir, options, files) =>
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, skipLibCheck: false, outDir: 'out', ...options }, files }));

await check('TypeScript ES module (nodenext, and bundler): tsc --strict, then the output runs on Node, `using` included', () => {
  const dir = join(app, 'ts-esm');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(dir, 'consumer.ts'), TS_CONSUMER);
  writeFileSync(join(dir, 'readme.ts'), snippet('typescript'));
  const lib = ['es2022', 'esnext.disposable', 'dom'];
  tsconfig(dir, { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib, types: ['node'] }, ['consumer.ts', 'readme.ts']);
  sh(tsc, ['-p', '.'], dir);
  checkTsOutput(node(['out/consumer.js'], dir));
  const printed = node(['out/readme.js'], dir).trim();
  assert(printed === '0' || printed === '1', `README typescript snippet printed ${printed}`);
  tsconfig(dir, { target: 'es2022', module: 'es2022', moduleResolution: 'bundler', lib, types: [], noEmit: true }, ['consumer.ts', 'readme.ts']);
  sh(tsc, ['-p', '.'], dir);
});

await check('TypeScript CommonJS (node16): tsc --strict, then the output runs with --no-experimental-require-module', () => {
  const dir = join(app, 'ts-cjs');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'commonjs' }));
  writeFileSync(join(dir, 'consumer.ts'), TS_CONSUMER);
  tsconfig(dir, { target: 'es2022', module: 'node16', moduleResolution: 'node16', lib: ['es2022', 'esnext.disposable', 'dom'], types: ['node'] }, ['consumer.ts']);
  sh(tsc, ['-p', '.'], dir);
  assert(readFileSync(join(dir, 'out/consumer.js'), 'utf8').includes('require("softmax-wasm")'), 'tsc did not emit require()');
  checkTsOutput(node(['--no-experimental-require-module', 'out/consumer.js'], dir));
});

await check('TypeScript: the widgets have types (element classes, their values, HTMLElementTagNameMap)', () => {
  const dir = join(app, 'ts-widgets');
  mkdirSync(dir);
  writeFileSync(join(dir, 'widgets.ts'), `import 'softmax-wasm/components/softmax-bars.js';
import { SoftmaxBars, SoftmaxSampler, SoftmaxOverflow, SoftmaxSigmoid, SoftmaxAttention, SoftmaxExp, SoftmaxGenerate, configure } from 'softmax-wasm/components/index.js';
import type { SoftmaxGenerate as Gen } from 'softmax-wasm/components/softmax-generate.js';
import type { SoftmaxExp as Exp } from 'softmax-wasm/components/softmax-exp.js';
configure({ simd: false });
const bars = document.querySelector('softmax-bars');
if (bars) {
  const el: SoftmaxBars = bars;
  el.ready.then((w: SoftmaxBars) => w.value satisfies Float32Array);
  el.scores = [2, 1, 0];
  el.temperature = 0.5;
}
const sampler: SoftmaxSampler | null = document.querySelector('softmax-sampler');
const drawn: number | null | undefined = sampler?.value;
const overflow = document.createElement('softmax-overflow') satisfies SoftmaxOverflow;
const naive: Float32Array = overflow.value.naive;
const sig = document.createElement('softmax-sigmoid') satisfies SoftmaxSigmoid;
const z: number = sig.value;
const att = document.createElement('softmax-attention') satisfies SoftmaxAttention;
const weights: number[][] = att.value;
const exp: Exp = document.createElement('softmax-exp') satisfies SoftmaxExp;
exp.scores = [0.707, 0, 0.707];
const heights: Float32Array = exp.exps;
const gen: Gen | null = document.querySelector('softmax-generate');
gen?.ready.then((g: SoftmaxGenerate) => g.value satisfies string);
const firstWord: string | undefined = gen?.steps[0]?.probs[0]?.word;
if (gen) gen.strings = { prompt: 'Anfang' };
// @ts-expect-error the prompt is a string
if (gen) gen.prompt = 3;
// @ts-expect-error value is read-only
if (bars) bars.value = new Float32Array(3);
export { drawn, naive, z, weights, heights, firstWord };
`);
  tsconfig(dir, { target: 'es2022', module: 'es2022', moduleResolution: 'bundler', lib: ['es2022', 'dom'], types: [], noEmit: true }, ['widgets.ts']);
  sh(tsc, ['-p', '.'], dir);
  // Every element class that the widgets export is declared.
  const components = join(app, 'node_modules', pkg.name, 'web/components');
  const exported = [...readFileSync(join(components, 'index.js'), 'utf8').matchAll(/export \{ ([^}]+) \}/g)].flatMap((m) => m[1].split(',').map((n) => n.trim()));
  const declared = readFileSync(join(components, 'index.d.ts'), 'utf8');
  const undeclared = exported.filter((n) => !new RegExp(`(class|function) ${n}\\b`).test(declared));
  assert(exported.length >= 7 && undeclared.length === 0, `undeclared in web/components/index.d.ts: ${undeclared}`);
  for (const f of shipped.filter((f) => /^web\/components\/softmax-[\w-]+\.js$/.test(f))) {
    assert(shipped.includes(f.replace(/\.js$/, '.d.ts')), `${f} has no .d.ts`);
  }
});

// ---- browsers ----
const servers = [];
/** Serves dir on 127.0.0.1; headers: extra response headers; returns the origin. */
function serve(dir, headers = {}) {
  const handler = sirv(dir, { dev: true });
  const server = createServer((req, res) => {
    for (const [k, v] of Object.entries(typeof headers === 'function' ? headers(req) : headers)) res.setHeader(k, v);
    if (req.url === '/favicon.ico') return void res.writeHead(204).end(); // not part of what is tested
    handler(req, res, () => {
      res.statusCode = 404;
      res.end('not found');
    });
  });
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));
}
const withCsp = { 'Content-Security-Policy': CSP };
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
/**
 * Opens url, waits until `ready` (a function evaluated in the page) returns a value
 * other than undefined, returns it with the console lines; fails on console errors
 * unless allowErrors.
 */
async function runPage(url, { init, ready = () => window.result, allowErrors = false } = {}) {
  const page = await browser.newPage();
  const errors = [];
  const logs = [];
  page.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : logs.push(m.text())));
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.route('**/favicon.ico', (route) => route.fulfill({ status: 204 })); // not part of what is tested
    if (init) await page.addInitScript(init);
    await page.goto(url);
    const handle = await page.waitForFunction(ready, null, { timeout: 20000 });
    const result = await handle.jsonValue();
    assert(allowErrors || errors.length === 0, `console errors: ${errors.join(' | ')}`);
    return { result, logs, errors };
  } finally {
    await page.close();
  }
}
const probe = `const sm = await load();
window.result = { simd: sm.simd, p: Array.from(sm.softmax([2, 1, 0])) };`;

const vapp = join(app, 'vite-app');
mkdirSync(join(vapp, 'src'), { recursive: true });
writeFileSync(join(vapp, 'index.html'), '<!doctype html><title>vite consumer</title><script type="module" src="/src/main.js"></script><softmax-bars scores="2, 1, 0"></softmax-bars>');
writeFileSync(join(vapp, 'src/worker.js'), snippet('worker'));
writeFileSync(join(vapp, 'src/main.js'), `import { load } from 'softmax-wasm';
import 'softmax-wasm/components/softmax-bars.js';
const inputs = [[2, 1, 0], [0, 0], [1, 3]];
const replies = [];
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const done = new Promise((resolve) => { worker.onmessage = (e) => { replies.push(Array.from(e.data)); if (replies.length === inputs.length) resolve(); }; });
for (const x of inputs) worker.postMessage(x); // at once: the worker is still loading
const sm = await load();
await done;
const el = document.querySelector('softmax-bars');
await customElements.whenDefined('softmax-bars');
await el.ready;
window.result = { simd: sm.simd, p: Array.from(sm.softmax([2, 1, 0])), replies, widget: Array.from(el.value) };`);
writeFileSync(join(vapp, 'vite.config.js'), snippet('vite-config'));
function checkViteResult(r) {
  assert(r.simd === true && close(r.p) && close(r.widget), JSON.stringify(r));
  assert(r.replies.length === 3 && close(r.replies[0]) && Math.abs(r.replies[1][0] - 0.5) < 1e-7 && Math.abs(r.replies[2][1] - 0.8807971) < 1e-6, JSON.stringify(r.replies));
}

await check("Vite build with the README's config: the README's worker (messages posted before load() resolves) and a bare widget import, under the README's CSP", async () => {
  sh(join(app, 'node_modules/.bin/vite'), ['build', '--logLevel', 'error'], vapp);
  const url = await serve(join(vapp, 'dist'), withCsp);
  checkViteResult((await runPage(`${url}/index.html`)).result);
});

await check("Vite dev server with the README's config: the same app", async () => {
  const vite = await import(pathToFileURL(join(app, 'node_modules/vite/dist/node/index.js')).href);
  const server = await vite.createServer({ root: vapp, configFile: join(vapp, 'vite.config.js'), logLevel: 'error', server: { port: 0, host: '127.0.0.1' } });
  await server.listen();
  try {
    checkViteResult((await runPage(server.resolvedUrls.local[0])).result);
  } finally {
    await server.close();
  }
});

// A plain page, no bundler: an import map names the package.
writeFileSync(join(app, 'plain.html'), `<!doctype html><title>plain consumer</title>
<script type="importmap">{"imports": {"softmax-wasm": "./node_modules/softmax-wasm/web/src/index.js"}}</script>
<script type="module" src="./plain.js"></script>`);
writeFileSync(join(app, 'plain.js'), `import { load } from 'softmax-wasm';\n${probe}`);
writeFileSync(join(app, 'readme-page.html'), `<!doctype html><title>README page snippet</title>\n${snippet('page')}\n`);
writeFileSync(join(app, 'worker-page.html'), '<!doctype html><title>worker</title><script type="module" src="./worker-main.js"></script>');
writeFileSync(join(app, 'worker-main.js'), `const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
w.onmessage = (e) => { window.result = e.data; };`);
writeFileSync(join(app, 'worker.js'), `import { load } from './node_modules/softmax-wasm/web/src/index.js';
const sm = await load();
postMessage({ simd: sm.simd, p: Array.from(sm.softmax([2, 1, 0])) });`);
writeFileSync(join(app, 'widget.html'), `<!doctype html><title>widget</title>\n${snippet('widget')}\n`);
const appUrl = await serve(app); // the inline scripts need a CSP that allows them: none here
const appCspUrl = await serve(app, withCsp);

/** Opens url and returns the first argument of its first console.log, as an array; fails on console errors. */
async function firstLog(url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    const message = page.waitForEvent('console', { predicate: (m) => m.type() === 'log' || m.type() === 'error', timeout: 20000 });
    await page.goto(url);
    const m = await message;
    if (m.type() === 'error') errors.push(m.text());
    assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
    return await m.args()[0].evaluate((v) => Array.from(v));
  } finally {
    await page.close();
  }
}

await check('a plain HTML page: the README snippet (an inline module script), and an import map', async () => {
  const logged = await firstLog(`${appUrl}/readme-page.html`);
  checkPrinted(snippet('page'), `Float32Array(3) [ ${logged.join(', ')} ]`, 'page');
  assert(close(logged), `README page snippet logged ${logged}`);
  const { result: r } = await runPage(`${appUrl}/plain.html`);
  assert(r.simd === true && close(r.p), JSON.stringify(r));
});

await check('fallback: Chromium whose WebAssembly.validate rejects SIMD gets the baseline build', async () => {
  // Runs before any page script: from then on, any module using the SIMD opcode prefix 0xfd is invalid.
  const noSimd = `{
    const validate = WebAssembly.validate;
    WebAssembly.validate = (bytes) => !new Uint8Array(bytes.buffer ?? bytes).includes(0xfd) && validate(bytes);
  }`;
  const { result: r } = await runPage(`${appUrl}/plain.html`, { init: noSimd });
  assert(r.simd === false && close(r.p), JSON.stringify(r));
});

await check("a widget: the README snippet (one script tag, one element) under the README's CSP", async () => {
  const { result: r } = await runPage(`${appCspUrl}/widget.html`, {
    ready: async () => {
      await customElements.whenDefined('softmax-bars');
      const el = document.querySelector('softmax-bars');
      await el.ready;
      return { p: Array.from(el.value), text: el.shadowRoot.textContent };
    },
  });
  assert(close(r.p), JSON.stringify(r.p));
  assert(r.text.includes('0.665') && r.text.includes('0.090'), 'the bars do not show 0.665 and 0.090');
});

await check('a module Web Worker loads the package by path and computes', async () => {
  const { result: r } = await runPage(`${appUrl}/worker-page.html`);
  assert(r.simd === true && close(r.p), JSON.stringify(r));
});

await check('CDN: the one-file build from a second origin under CORS (the README snippet), and under a CSP that names that origin; refused without CORS', async () => {
  const pkgDir = join(app, 'node_modules', pkg.name);
  const cdn = await serve(join(app, 'node_modules'), { 'Access-Control-Allow-Origin': '*' });
  const noCors = await serve(join(app, 'node_modules'));
  const site = join(work, 'site');
  mkdirSync(site);
  assert(existsSync(join(pkgDir, 'web/dist/softmax-wasm.js')), 'no web/dist/softmax-wasm.js in the package');
  const page = (base) => snippet('cdn').replace(/https:\/\/[^'"]+\/web\/dist\/softmax-wasm\.js/, `${base}/${pkg.name}/web/dist/softmax-wasm.js`);
  assert(page(cdn) !== snippet('cdn'), 'the README cdn snippet names no .../web/dist/softmax-wasm.js URL');
  writeFileSync(join(site, 'cdn.html'), `<!doctype html><title>cdn</title>\n${page(cdn)}\n`);
  writeFileSync(join(site, 'no-cors.html'), `<!doctype html><title>no cors</title>\n${page(noCors)}\n`);
  writeFileSync(join(site, 'cdn-csp.html'), '<!doctype html><title>cdn csp</title><script type="module" src="./cdn-csp.js"></script>');
  writeFileSync(join(site, 'cdn-csp.js'), `import { load } from '${cdn}/${pkg.name}/web/dist/softmax-wasm.js';\n${probe}`);
  const siteUrl = await serve(site, (req) =>
    req.url.startsWith('/cdn-csp') ? { 'Content-Security-Policy': `default-src 'self'; script-src 'self' 'wasm-unsafe-eval' ${cdn}; connect-src 'self' ${cdn}` } : {},
  );
  const logged = await firstLog(`${siteUrl}/cdn.html`);
  assert(close(logged), `README cdn snippet logged ${logged}`);
  const { result: r } = await runPage(`${siteUrl}/cdn-csp.html`);
  assert(r.simd === true && close(r.p), JSON.stringify(r));
  const refused = await runPage(`${siteUrl}/no-cors.html`, { ready: () => document.readyState === 'complete' && performance.now() > 1500, allowErrors: true });
  assert(refused.errors.some((e) => /CORS|Access-Control-Allow-Origin/i.test(e)), `no CORS error without the header: ${refused.errors}`);
});

await check("the demo, served from the installed package's web/ folder under the README's CSP", async () => {
  const url = await serve(join(app, 'node_modules', pkg.name, 'web'), withCsp);
  const { result: badge } = await runPage(`${url}/demo/index.html`, { ready: () => document.documentElement.dataset.ready !== undefined && document.getElementById('build').textContent });
  assert(/SIMD build/.test(badge), `badge: ${badge}`);
});

await browser.close();
for (const s of servers) s.close();

// ---- transformers.js ----
const tfDir = join(work, 'transformers');
/** tests/pack/transformers/ as a clean project: its pinned dependencies, then the tarball. */
function installTransformersProject() {
  if (existsSync(join(tfDir, 'node_modules', pkg.name))) return;
  cpSync(join(root, 'tests/pack/transformers'), tfDir, { recursive: true });
  npm(['ci'], tfDir);
  npm(['install', '--no-save', tarball], tfDir);
}
await check('transformers.js 4.x: the adapter with its Tensor and LogitsProcessorList, in generate() and pipeline() with a tiny model, its README snippet, from TypeScript and from CommonJS', () => {
  installTransformersProject();
  const version = JSON.parse(readFileSync(join(tfDir, 'node_modules/@huggingface/transformers/package.json'), 'utf8')).version;
  assert(version.startsWith('4.') && readme.includes(`tested with ${version.split('.').slice(0, 2).join('.')}`), `transformers.js ${version}: the README names another version`);
  const out = node(['adapter-test.mjs'], tfDir);
  for (const line of out.trim().split('\n')) console.log(`     ${line}`);
  // The README snippet, with the tiny model that adapter-test.mjs wrote as modelId.
  writeFileSync(join(tfDir, 'readme-prelude.mjs'), `import { env } from '@huggingface/transformers';
env.localModelPath = new URL('./models/', import.meta.url).pathname;
env.allowRemoteModels = false;
globalThis.modelId = 'tiny-bigram';
`);
  writeFileSync(join(tfDir, 'readme-transformers.mjs'), `import './readme-prelude.mjs';\n${snippet('transformers')}\n`);
  const text = node(['readme-transformers.mjs'], tfDir).trim();
  const words = text.split(' ');
  assert(text.startsWith('the cat ') && words.length === 22 && !words.includes('<eos>'), `README transformers snippet printed: ${text}`);
  assert(node(['readme-transformers.mjs'], tfDir).trim() === text, 'the same seed printed another text');
  // From TypeScript: transformers.js's own types for generate() accept the processor in a LogitsProcessorList.
  writeFileSync(join(tfDir, 'typed.ts'), `import { AutoModelForCausalLM, LogitsProcessorList, Tensor, env } from '@huggingface/transformers';
import { load } from 'softmax-wasm';
import { createLogitsProcessor } from 'softmax-wasm/transformers';

env.localModelPath = new URL('../models/', import.meta.url).pathname; // this file runs from out/
env.allowRemoteModels = false;
const sm = await load();
const list = new LogitsProcessorList();
list.push(createLogitsProcessor(sm, { seed: 42, temperature: 0 }));
const model = await AutoModelForCausalLM.from_pretrained('tiny-bigram', { dtype: 'fp32' });
const out = await model.generate({ input_ids: new Tensor('int64', BigInt64Array.from([1n]), [1, 1]), max_new_tokens: 3, do_sample: false, logits_processor: list });
const direct: Tensor = createLogitsProcessor(sm, { seed: 1 })([[0n]], new Tensor('float32', new Float32Array([0, 1, 2]), [1, 3]));
console.log(JSON.stringify({ ids: (out as Tensor).tolist()[0].map(Number), kept: Array.from(direct.data as Float32Array).filter((v) => v === 0).length }));
`);
  writeFileSync(join(tfDir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'esnext.disposable', 'dom'], types: [], skipLibCheck: true, outDir: 'out' },
    files: ['typed.ts'],
  }));
  sh(join(app, 'node_modules/.bin/tsc'), ['-p', '.'], tfDir);
  const typed = JSON.parse(node(['out/typed.js'], tfDir));
  assert(typed.ids.length === 4 && typed.kept === 1, `TypeScript run: ${JSON.stringify(typed)}`);
  // From CommonJS: transformers.js's require entry with ours.
  writeFileSync(join(tfDir, 'cjs.cjs'), `const { Tensor, LogitsProcessorList } = require('@huggingface/transformers');
const { load } = require('softmax-wasm');
const { createLogitsProcessor } = require('softmax-wasm/transformers');
load().then((sm) => {
  const list = new LogitsProcessorList();
  list.push(createLogitsProcessor(sm, { temperature: 0 }));
  const out = list([[1n]], new Tensor('float32', new Float32Array([0.5, 2, 1]), [1, 3]));
  console.log(JSON.stringify(Array.from(out.data)));
});`);
  assert(node(['--no-experimental-require-module', 'cjs.cjs'], tfDir).trim() === '[null,0,null]', 'CommonJS adapter did not keep the argmax');
});

await check('model runtimes: onnxruntime and transformers.js tensors (float32, float16) and BigInt64Array token ids', () => {
  installTransformersProject();
  const out = node(['runtime-tensors-test.mjs'], tfDir);
  for (const line of out.trim().split('\n')) console.log(`     ${line}`);
});

rmSync(work, { recursive: true, force: true });
const passed = results.filter((r) => r[1]).length;
console.log(`\n${passed} passed, ${results.length - passed} failed`);
process.exit(passed === results.length ? 0 : 1);
