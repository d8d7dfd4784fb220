// `npm run bench -- --browsers`: the softmax and sampler rows in real browsers.
//
// Serves the repository root (only web/, bench/browser/, bench/timing.mjs,
// bench/binding.mjs and TF.js's files in bench/node_modules) on 127.0.0.1
// with sirv (the demo server's dependency), cross-origin
// isolated (COOP same-origin + COEP require-corp: performance.now() is then
// precise to a few µs instead of 100 µs in Chromium or 1 ms in Firefox),
// opens bench/browser/index.html in each engine through
// tests/browser/engines.mjs, and calls the page's window.bench one size or one
// configuration at a time. Resolves to the Markdown report (a string).
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

import sirv from 'sirv';

import { launch } from '../tests/browser/engines.mjs';
import { bindingTable } from './binding.mjs';
import { fmtRatio, fmtUs, SAMPLER_CONFIGS, SOFTMAX_SIZES } from './timing.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVED = ['/web/', '/bench/browser/', '/bench/timing.mjs', '/bench/binding.mjs', '/bench/node_modules/@tensorflow/'];
const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The static server; resolves to { url, close() }. */
export async function serveBenchPage() {
  const files = sirv(ROOT, {
    dev: true,
    dotfiles: false,
    setHeaders(res) {
      for (const [k, v] of Object.entries(ISOLATION)) res.setHeader(k, v);
    },
  });
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://localhost').pathname;
    const notFound = () => {
      res.statusCode = 404;
      res.end('Not found');
    };
    if (!SERVED.some((p) => path.startsWith(p))) return notFound();
    files(req, res, notFound);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}/bench/browser/index.html`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** Runs every engine in `engines` in turn; resolves to { markdown, results }. */
export async function benchBrowsers({ engines = ['chromium', 'firefox'], rounds = 3, quick = false, log = () => {} } = {}) {
  const server = await serveBenchPage();
  const results = [];
  try {
    for (const name of engines) {
      let browser;
      try {
        browser = await launch(name);
      } catch (e) {
        log(`${name}: not launched (${e.message.split('\n')[0]})`);
        results.push({ name, error: e.message.split('\n')[0] });
        continue;
      }
      try {
        const page = await browser.open(server.url);
        await page.waitFor(() => document.documentElement.dataset.ready === '1');
        const info = await page.evaluate((o) => window.bench.setup(o), { rounds, quick });
        log(`${browser.label}: crossOriginIsolated ${info.crossOriginIsolated}, timer step ${info.timerStepUs.toFixed(1)} µs, TF.js ${info.tf ? info.tf.version : 'unavailable'}`);
        const softmax = [];
        const sizes = quick ? SOFTMAX_SIZES.filter((s) => ['3', '128256'].includes(s.label)) : SOFTMAX_SIZES;
        for (const [si, s] of sizes.entries()) {
          log(`${name}: softmax N = ${s.label}`);
          softmax.push({ ...s, ...(await page.evaluate((a) => window.bench.softmax(a), { rows: s.rows, n: s.n, seed: 0x5eed + si })) });
        }
        log(`${name}: binding cost`);
        const binding = await page.evaluate((o) => window.bench.binding(o), { rounds: Math.max(rounds, 5), quick });
        const sampler = [];
        const indices = SAMPLER_CONFIGS.map((_, i) => i).filter((i) => !quick || i % 4 === 0);
        for (const index of indices) {
          log(`${name}: sampler configuration "${SAMPLER_CONFIGS[index][0]}"`);
          sampler.push(await page.evaluate((a) => window.bench.sampler(a), { index, seed: 0x5eed }));
        }
        const errors = await page.errors();
        if (errors.length) log(`${name}: page errors: ${errors.join('; ')}`);
        await page.close();
        results.push({ name, label: browser.label, info, softmax, binding, sampler });
      } catch (e) {
        log(`${name}: failed: ${e.stack}`);
        results.push({ name, label: browser.label, error: e.message.split('\n')[0] });
      } finally {
        await browser.close();
      }
    }
  } finally {
    await server.close();
  }
  return { results, markdown: report(results, rounds) };
}

function report(results, rounds) {
  const lines = [];
  const out = (s = '') => lines.push(s);
  out('### In browsers (`npm run bench -- --browsers`)');
  out();
  out(
    'The same page (bench/browser/index.html) for both libraries, served cross-origin isolated (COOP/COEP) from ' +
      '127.0.0.1, timed in the page by the Node benchmark\'s loop (bench/timing.mjs: interleaved, best of ' +
      `${rounds} rounds of median samples). Outputs are preallocated except in the \`dataSync\` row.`,
  );
  out();
  for (const r of results) {
    if (r.error) {
      out(`**${r.label ?? r.name}**: not run (${r.error})`);
      out();
      continue;
    }
    const i = r.info;
    out(`#### ${r.label}`);
    out();
    out(
      `\`${i.userAgent}\` · crossOriginIsolated ${i.crossOriginIsolated} · timer step ${i.timerStepUs.toFixed(1)} µs · ` +
        (i.tf ? `TF.js ${i.tf.version} wasm backend (SIMD ${i.tf.simd}, threads ${i.tf.threads})` : 'TF.js unavailable'),
    );
    out();
    const names = Object.keys(r.softmax[0].us);
    const cols = r.softmax.map((s) => s.label);
    out(`**Softmax, median µs per call (best of ${rounds} rounds)**`);
    out();
    out(`| | ${cols.join(' | ')} |`);
    out(`|---|${cols.map(() => '---:').join('|')}|`);
    for (const n of names) out(`| ${n} | ${r.softmax.map((s) => fmtUs(s.us[n])).join(' | ')} |`);
    out();
    const ours = 'ours SIMD, `out`';
    const inPlace = names.find((n) => n.includes('in place'));
    const tfKernel = names.find((n) => n.includes('`tf.softmax` alone'));
    const tfCopy = names.find((n) => n.includes('+ copy out'));
    out('**Softmax, ratios (> 1: slower than ours)**');
    out();
    out(`| | ${cols.join(' | ')} |`);
    out(`|---|${cols.map(() => '---:').join('|')}|`);
    const ratioRow = (label, a, b) => out(`| ${label} | ${r.softmax.map((s) => fmtRatio(s.us[a] / s.us[b])).join(' | ')} |`);
    for (const n of names) if (n !== ours) ratioRow(`${n} / ${ours}`, n, ours);
    if (tfKernel && inPlace) ratioRow('kernel against kernel: TF.js `tf.softmax` / ours in place', tfKernel, inPlace);
    if (tfCopy) ratioRow('TF.js + copy out / ours `out` (copy in, kernel, copy out)', tfCopy, ours);
    out();
    const diffs = r.softmax.map((s) => s.maxAbsDiffVsTf).filter((d) => d !== null);
    if (diffs.length) out(`Largest |ours − TF.js| over the outputs: ${Math.max(...diffs).toExponential(1)}.`);
    out();
    out(`**Binding cost, ns per warm call (best of ${r.binding.rounds} rounds; the timing loop's empty closure: ${r.binding.emptyNs.toFixed(1)} ns)**`);
    out();
    out(bindingTable(r.binding));
    out();
  }
  const ran = results.filter((r) => !r.error);
  if (ran.length) {
    out(`**Sampling one token, every configuration (N = 151936), µs per \`sample()\` and × one \`sm.softmax(x, { out })\` in the same build (greedy: × \`sm.argmax(x)\`)**`);
    out();
    const short = (r) => r.label.split(' (')[0];
    out(`| configuration | ${ran.map((r) => `${short(r)} SIMD µs | × softmax | baseline × softmax`).join(' | ')} |`);
    out(`|---|${ran.map(() => '---:|---:|---:').join('|')}|`);
    ran[0].sampler.forEach((row, j) => {
      const cells = ran.map((r) => {
        const s = r.sampler[j];
        const g = s.greedy ? ' × argmax' : '';
        return `${fmtUs(s.us['ours SIMD'])} | ${fmtRatio(s.us['ours SIMD'] / s.us['reference SIMD'])}${g} | ${fmtRatio(s.us['ours baseline'] / s.us['reference baseline'])}${g}`;
      });
      out(`| ${row.label} | ${cells.join(' | ')} |`);
    });
    out();
    out(
      `One softmax of the same logits (SIMD, µs): ${ran.map((r) => `${short(r)} ${fmtUs(Math.min(...r.sampler.filter((s) => !s.greedy).map((s) => s.us['reference SIMD'])))}`).join(', ')}; ` +
        `argmax: ${ran.map((r) => `${short(r)} ${fmtUs(r.sampler.find((s) => s.greedy)?.us['reference SIMD'])}`).join(', ')}.`,
    );
    out();
  }
  return lines.join('\n');
}

// node bench/browsers.mjs [engine ...]: the browser rows alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const engines = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const { markdown } = await benchBrowsers({
    engines: engines.length ? engines : undefined,
    quick: process.argv.includes('--quick'),
    log: (...a) => console.error('[bench]', ...a),
  });
  console.log(markdown);
}
