// Packaging test: `npm pack`, then install the tarball into temporary projects
// that cannot see the repository, and use it the ways users do:
//   (a) Node 20 import, (b) tsc --strict against the .d.ts, (c) a Vite app in
//   headless Chromium, (d) a plain HTML page with an import map, no bundler;
// plus the size budget, the SIMD fallback in Chromium (WebAssembly.validate
// made to reject SIMD before the loader runs), a module Web Worker and a Node
// worker_threads worker. Prints 'N passed, N failed'.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';
import sirv from 'sirv';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'softmax-wasm-pack-'));
const sh = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const npm = (args, cwd) => sh('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], cwd);

const results = [];
async function check(name, fn) {
  try {
    await fn();
    results.push([name, true]);
    console.log(`ok   ${name}`);
  } catch (e) {
    results.push([name, false]);
    console.log(`FAIL ${name}\n     ${String(e?.stack ?? e).split('\n').slice(0, 6).join('\n     ')}`);
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
const close = (got) => got.length === 3 && got.every((v, i) => Math.abs(v - REF[i]) <= 1e-6 * REF[i]);

// ---- the tarball ----
const EXPECTED_FILES = [
  'CHANGELOG.md', 'LICENSE', 'README.md', 'package.json',
  'web/dist/softmax-base.js', 'web/dist/softmax-base.wasm', 'web/dist/softmax-simd.js',
  'web/dist/softmax-simd.wasm', 'web/dist/wasm-feature-detect.js',
  'web/src/api.js', 'web/src/index.d.ts', 'web/src/index.js', 'web/src/node.js',
];
const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], root));
const tarball = join(work, packed[0].filename);
const shipped = packed[0].files.map((f) => f.path).sort();

await check('tarball holds the API, types, both builds and docs, nothing else', () => {
  const missing = EXPECTED_FILES.filter((f) => !shipped.includes(f));
  const allowed = (f) => EXPECTED_FILES.includes(f) || /^web\/src\/[\w-]+\.(js|d\.ts)$/.test(f) || /^web\/components\/[\w-]+\.(js|css)$/.test(f) || /^web\/components\/model\/(lm\.js|lm\.json|README\.md)$/.test(f);
  const extra = shipped.filter((f) => !allowed(f));
  assert(missing.length === 0, `missing: ${missing}`);
  assert(extra.length === 0, `unexpected: ${extra}`);
});

const budget = 40 * 1024;
await check(`size budget: SIMD .wasm + glue + JS API, gzip -9, <= ${budget} bytes`, () => {
  const files = ['web/dist/softmax-simd.wasm', 'web/dist/softmax-simd.js', 'web/dist/wasm-feature-detect.js',
    ...shipped.filter((f) => /^web\/src\/.*\.js$/.test(f))];
  let total = 0;
  for (const f of files) {
    const n = gzipSync(readFileSync(join(root, f)), { level: 9 }).length;
    console.log(`     ${String(n).padStart(6)} B gz  ${f}`);
    total += n;
  }
  console.log(`     ${String(total).padStart(6)} B gz  total (budget ${budget})`);
  assert(total <= budget, `${total} > ${budget}`);
});

// ---- a consumer project with no access to the repository ----
const app = join(work, 'app');
mkdirSync(app);
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
npm(['install', tarball, 'typescript@5', 'vite@7'], app);

await check('(a) Node: import and compute [2, 1, 0]', () => {
  writeFileSync(join(app, 'a.mjs'), `import { load } from 'softmax-wasm';
const sm = await load();
const base = await load({ simd: false });
console.log(JSON.stringify({ simd: sm.simd, p: Array.from(sm.softmax([2, 1, 0])), baseSimd: base.simd, q: Array.from(base.softmax([2, 1, 0])) }));`);
  const out = JSON.parse(sh('node', ['a.mjs'], app));
  assert(out.simd === true && out.baseSimd === false, `simd flags ${out.simd} ${out.baseSimd}`);
  assert(close(out.p) && close(out.q), `got ${out.p} / ${out.q}`);
});

await check('(a) Node worker_threads: load and compute in a worker', () => {
  writeFileSync(join(app, 'w.mjs'), `import { Worker, isMainThread, parentPort } from 'node:worker_threads';
if (isMainThread) {
  const w = new Worker(new URL(import.meta.url));
  w.on('message', (m) => { console.log(JSON.stringify(m)); w.terminate(); });
} else {
  const { load } = await import('softmax-wasm');
  const sm = await load();
  parentPort.postMessage(Array.from(sm.softmax([2, 1, 0])));
}`);
  const out = JSON.parse(sh('node', ['w.mjs'], app));
  assert(close(out), `got ${out}`);
});

await check('(b) tsc --strict type-checks a TypeScript consumer', () => {
  writeFileSync(join(app, 'consumer.ts'), `import { load, type Softmax, type SoftmaxSteps } from 'softmax-wasm';
const sm: Softmax = await load({ simd: 'auto' });
const p: Float32Array = sm.softmax(new Float64Array([2, 1, 0]), { temperature: 0.5, masked: 'zeros' });
const lse: number = sm.logSumExp([1, 2, 3]);
const steps: SoftmaxSteps = sm.softmaxSteps([0.707, 0, 0.707]);
const i: number = sm.argmax(p);
const s: number = sm.sigmoid(steps.max + lse + i);
// @ts-expect-error temperature is a number
sm.softmax([1], { temperature: 'hot' });
// @ts-expect-error masked is one of four names
sm.softmax([1], { masked: 'ignore' });
export { s };
`);
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'es2022', moduleResolution: 'bundler', lib: ['es2022', 'dom'] },
    files: ['consumer.ts'],
  }));
  sh(join(app, 'node_modules/.bin/tsc'), ['-p', '.'], app);
});

// ---- browsers ----
const servers = [];
function serve(dir, { csp = false } = {}) {
  const handler = sirv(dir, { dev: true });
  const server = createServer((req, res) => {
    if (csp) res.setHeader('Content-Security-Policy', "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'");
    if (req.url === '/favicon.ico') return void res.writeHead(204).end(); // not part of what is tested
    handler(req, res, () => { res.statusCode = 404; res.end('not found'); });
  });
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));
}
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
// Opens url and waits for window.result (set by the page); fails on console errors.
async function runPage(url, init) {
  const page = await browser.newPage();
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  if (init) await page.addInitScript(init);
  await page.goto(url);
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 20000 });
  const result = await page.evaluate(() => window.result);
  await page.close();
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  return result;
}
const probe = `const sm = await load();
window.result = { simd: sm.simd, p: Array.from(sm.softmax([2, 1, 0])) };`;

await check('(c) a Vite app that imports the package runs in headless Chromium', async () => {
  const vapp = join(app, 'vite-app');
  mkdirSync(join(vapp, 'src'), { recursive: true });
  writeFileSync(join(vapp, 'index.html'), '<!doctype html><title>vite consumer</title><script type="module" src="/src/main.js"></script>');
  writeFileSync(join(vapp, 'src/main.js'), `import { load } from 'softmax-wasm';\n${probe}`);
  sh(join(app, 'node_modules/.bin/vite'), ['build', '--logLevel', 'error'], vapp);
  const url = await serve(join(vapp, 'dist'), { csp: true });
  const r = await runPage(`${url}/index.html`);
  assert(r.simd === true && close(r.p), JSON.stringify(r));
});

// A plain page, no bundler: an import map names the package.
writeFileSync(join(app, 'plain.html'), `<!doctype html><title>plain consumer</title>
<script type="importmap">{"imports": {"softmax-wasm": "./node_modules/softmax-wasm/web/src/index.js"}}</script>
<script type="module" src="./plain.js"></script>`);
writeFileSync(join(app, 'plain.js'), `import { load } from 'softmax-wasm';\n${probe}`);
writeFileSync(join(app, 'worker-page.html'), '<!doctype html><title>worker</title><script type="module" src="./worker-main.js"></script>');
writeFileSync(join(app, 'worker-main.js'), `const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
w.onmessage = (e) => { window.result = e.data; };`);
writeFileSync(join(app, 'worker.js'), `import { load } from './node_modules/softmax-wasm/web/src/index.js';
const sm = await load();
postMessage({ simd: sm.simd, p: Array.from(sm.softmax([2, 1, 0])) });`);
// A lesson page: one script tag, one element, straight from the installed package.
writeFileSync(join(app, 'widget.html'), `<!doctype html><title>widget</title>
<script type="module" src="./node_modules/softmax-wasm/web/components/softmax-bars.js"></script>
<script type="module" src="./widget.js"></script>
<softmax-bars scores="2, 1, 0"></softmax-bars>`);
writeFileSync(join(app, 'widget.js'), `const el = document.querySelector('softmax-bars');
await customElements.whenDefined('softmax-bars');
await el.ready;
window.result = { simd: true, p: Array.from(el.value), text: el.shadowRoot.textContent };`);
const appUrl = await serve(app); // the inline import map needs a CSP that allows it: none here
const appCspUrl = await serve(app, { csp: true });

await check('(d) a plain HTML page with an import map, no bundler', async () => {
  const r = await runPage(`${appUrl}/plain.html`);
  assert(r.simd === true && close(r.p), JSON.stringify(r));
});

await check('fallback: Chromium whose WebAssembly.validate rejects SIMD gets the baseline build', async () => {
  // Runs before any page script: from then on, any module using the SIMD opcode prefix 0xfd is invalid.
  const noSimd = `{
    const validate = WebAssembly.validate;
    WebAssembly.validate = (bytes) => !new Uint8Array(bytes.buffer ?? bytes).includes(0xfd) && validate(bytes);
  }`;
  const r = await runPage(`${appUrl}/plain.html`, noSimd);
  assert(r.simd === false && close(r.p), JSON.stringify(r));
});

await check('(e) a widget from the package: one script tag and one element, under the strict CSP', async () => {
  const r = await runPage(`${appCspUrl}/widget.html`);
  assert(close(r.p), JSON.stringify(r.p));
  assert(r.text.includes('0.665') && r.text.includes('0.090'), 'the bars do not show 0.665 and 0.090');
});

await check('a module Web Worker loads the package and computes', async () => {
  const r = await runPage(`${appUrl}/worker-page.html`);
  assert(r.simd === true && close(r.p), JSON.stringify(r));
});

await browser.close();
for (const s of servers) s.close();
rmSync(work, { recursive: true, force: true });
const passed = results.filter((r) => r[1]).length;
console.log(`\n${passed} passed, ${results.length - passed} failed`);
process.exit(passed === results.length ? 0 : 1);
