// Real-browser tests of the demo page and the lesson widgets, under the strict
// Content Security Policy sent as a response header by web/tools/serve.mjs:
//  - headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core;
//  - Firefox ESR (/usr/bin/firefox-esr) over WebDriver BiDi, driven by puppeteer-core;
//  - both wasm builds (?simd=0 forces the baseline);
//  - seeded sampling: the same indices in Chromium, Firefox and Node.
// Screenshots (whole page and each widget, 1280 and 360 px wide) go to
// tests/browser/screenshots/ (git-ignored). Needs `npm run build` first.
// Closes with 'N passed, N failed'.
//
//   node tests/browser/run.mjs            all
//   node tests/browser/run.mjs chromium   only Chromium (also: firefox)
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';

import { load } from '../../web/src/node.js';
import { CSP, WEB_ROOT, startServer } from '../../web/tools/serve.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const SHOTS = join(HERE, 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const FIREFOX = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
const only = process.argv[2];
const WIDGETS = ['softmax-bars', 'softmax-overflow', 'softmax-sampler', 'softmax-sigmoid', 'softmax-attention'];
// Every check table of the demo page, in the course's order.
const EXAMPLES = ['positive', 'three', 'abc', 'equal', 'giant', 'sampling', 'ln2', 'gaps', 'overflow', 'temperature', 'four', 'greedy', 'order', 'sigmoid', 'axis'];
const SAMPLER = { scores: [2, 1, 0], opts: { seed: 42, temperature: 1 }, n: 1000 };

let passed = 0;
let failed = 0;
const failures = [];

async function test(name, fn, timeoutMs = 60_000) {
  let timer;
  try {
    await Promise.race([fn(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs)))]);
    passed++;
    console.log(`  ✓ ${name}`);
  } catch (err) {
    failed++;
    failures.push(name);
    console.log(`  ✗ ${name}\n      ${String(err?.stack || err).split('\n').slice(0, 6).join('\n      ')}`);
  } finally {
    clearTimeout(timer);
  }
}

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

/** Same rule as web/demo/demo.js: "NaN", ">x", ">=x", "<x", "=x", or equal at `digits` places. */
function matches(value, expected, digits) {
  if (expected === 'NaN') return Number.isNaN(value);
  const m = /^(>=|<=|>|<|=)\s*(.+)$/.exec(expected);
  if (m) {
    const x = Number(m[2]);
    return { '>=': value >= x, '<=': value <= x, '>': value > x, '<': value < x, '=': value === x }[m[1]];
  }
  return Number.isFinite(value) && value.toFixed(digits) === Number(expected).toFixed(digits);
}

/** Reads every live number of the demo page (works with any driver's evaluate). */
const READ_NUMBERS = () =>
  Array.from(document.querySelectorAll('[data-computed]'), (el) => ({
    example: el.dataset.example,
    expected: el.dataset.expected,
    digits: Number(el.dataset.digits),
    source: el.dataset.source,
    computed: Number(el.dataset.computed),
    label: el.closest('tr')?.querySelector('th')?.textContent ?? '',
  }));

function checkNumbers(numbers) {
  assert(numbers.length >= 80, `expected at least 80 live numbers on the page, found ${numbers.length}`);
  for (const id of EXAMPLES) assert(numbers.some((n) => n.example === id), `worked example '${id}' has no live number`);
  const bad = numbers.filter((n) => !matches(n.computed, n.expected, n.digits));
  assert(bad.length === 0, `numbers that differ from the course:\n${bad.map((b) => `${b.example} / ${b.label}: expected ${b.expected}, computed ${b.computed}`).join('\n')}`);
  return numbers.length;
}

/** Within 2 ulp of float32 (the design's bound between the SIMD and baseline builds). */
function closeF32(a, b) {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  const ulp = Math.max(Math.abs(a), Math.abs(b), 2 ** -126) * 2 ** -23;
  return Math.abs(a - b) <= 2 * ulp + 1e-12;
}

// A CSP violation listener installed before any page script runs.
const CSP_WATCH = `window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`;

async function main() {
  assert(existsSync(join(WEB_ROOT, 'dist', 'softmax-simd.wasm')), 'web/dist is missing: run npm run build first');
  mkdirSync(SHOTS, { recursive: true });
  const sm = await load();
  const nodeDraws = (() => {
    if (typeof sm.createSampler !== 'function') return null;
    const s = sm.createSampler(SAMPLER.opts);
    try {
      return Array.from(s.sampleMany(SAMPLER.scores, SAMPLER.n));
    } finally {
      s.dispose();
    }
  })();
  const server = await startServer({ port: 0 });
  const base = `${server.url}demo/`;
  console.log(`serving ${WEB_ROOT} at ${server.url} with CSP: ${CSP}`);
  const shared = { nodeDraws, chromiumDraws: null, simdNumbers: null };
  try {
    if (!only || only === 'chromium') await chromiumTests(base, shared);
    if (!only || only === 'firefox') await firefoxTests(base, shared);
  } finally {
    await server.close();
  }
}

async function chromiumTests(base, shared) {
  console.log('Chromium (playwright-core)');
  let browser;
  await test('Chromium launches', async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  if (!browser) return;
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    await context.addInitScript(CSP_WATCH);
    const open = async (path, { demoPage = true } = {}) => {
      const page = await context.newPage();
      const errors = [];
      const wasmTypes = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
      page.on('response', (r) => {
        if (r.url().endsWith('.wasm')) wasmTypes.push(r.headers()['content-type']);
      });
      const response = await page.goto(base + path);
      if (demoPage) await page.waitForSelector('html[data-ready]', { timeout: 30_000 }).catch(() => {});
      return { page, errors, wasmTypes, response };
    };

    let demo;
    await test('demo page loads under the CSP header with no console errors or CSP violations', async () => {
      demo = await open('');
      const { page, errors, wasmTypes, response } = demo;
      assert(response.headers()['content-security-policy'] === CSP, `CSP header missing or different: ${response.headers()['content-security-policy']}`);
      assert(await page.evaluate(() => document.documentElement.dataset.ready === 'true'), 'the page never set data-ready');
      assert(await page.evaluate(() => document.documentElement.dataset.simd === 'true'), 'the SIMD build did not run in Chromium');
      await Promise.all(WIDGETS.map((w) => page.evaluate((tag) => document.querySelector(tag).ready, w)));
      const csp = await page.evaluate(() => window.__cspViolations);
      assert(csp.length === 0, `CSP violations: ${csp.join('; ')}`);
      assert(errors.length === 0, `console errors: ${errors.join('; ')}`);
      assert(wasmTypes.length > 0 && wasmTypes.every((t) => t === 'application/wasm'), `.wasm served as ${wasmTypes.join(', ')}`);
    });
    if (!demo) return;
    const { page } = demo;

    await test('every worked example: computed numbers match the course', async () => {
      const numbers = await page.evaluate(READ_NUMBERS);
      const n = checkNumbers(numbers);
      shared.simdNumbers = numbers;
      console.log(`      ${n} numbers checked`);
    });

    await test(`sampler widget: ${SAMPLER.n} draws with seed ${SAMPLER.opts.seed} equal the same draws in Node`, async () => {
      assert(shared.nodeDraws, 'sm.createSampler is missing from the JS API (web/src/api.js), so there is nothing to compare');
      const s = page.locator('#sampler');
      await s.locator('button', { hasText: 'Start over' }).click();
      await s.locator('button', { hasText: 'Draw 1,000' }).click();
      const draws = await page.evaluate(() => Array.from(document.getElementById('sampler').draws));
      assert(draws.length === SAMPLER.n, `expected ${SAMPLER.n} draws, got ${draws.length}`);
      const firstDiff = draws.findIndex((d, i) => d !== shared.nodeDraws[i]);
      assert(firstDiff < 0, `draw ${firstDiff} differs: Chromium ${draws[firstDiff]}, Node ${shared.nodeDraws[firstDiff]}`);
      shared.chromiumDraws = draws;
      const counts = await page.evaluate(() => document.getElementById('sampler').counts);
      const probs = await page.evaluate(() => Array.from(document.getElementById('sampler').probs));
      // the histogram follows the probabilities (4 standard deviations)
      counts.forEach((c, i) => {
        const sd = Math.sqrt(SAMPLER.n * probs[i] * (1 - probs[i]));
        assert(Math.abs(c - SAMPLER.n * probs[i]) <= 4 * sd + 1, `option ${i}: ${c} draws for p = ${probs[i]}`);
      });
    });

    await test('sampler widget at T = 0 is greedy: 1,000 draws all pick the top score', async () => {
      assert(shared.nodeDraws, 'sm.createSampler is missing from the JS API');
      const s = page.locator('#sampler');
      await s.locator('input[type=range]').focus();
      await s.locator('input[type=range]').press('Home');
      await s.locator('button', { hasText: 'Draw 1,000' }).click();
      const counts = await page.evaluate(() => document.getElementById('sampler').counts);
      assert(counts[0] === 1000 && counts[1] === 0 && counts[2] === 0, `counts at T = 0: [${counts}]`);
      await s.locator('input[type=range]').fill('10'); // back to T = 1
    });

    await test('widgets follow their attributes; sampler top-k = 1 filters all but the top', async () => {
      const flat = await page.evaluate(async () => {
        const el = document.getElementById('bars-dial');
        el.setAttribute('temperature', 'inf');
        const v = Array.from(el.value);
        el.setAttribute('temperature', '0.5');
        return v;
      });
      assert(flat.every((p) => Math.abs(p - 1 / 3) < 1e-6), `temperature="inf" should be flat, got [${flat}]`);
      const k = page.locator('#sampler input[type=number]').nth(1); // seed, top-k, top-p, min-p
      await k.fill('1');
      const probs = await page.evaluate(() => Array.from(document.getElementById('sampler').probs));
      assert(probs[0] === 1 && probs[1] === 0 && probs[2] === 0, `top-k = 1: [${probs}]`);
      await k.fill('0');
      const back = await page.evaluate(() => Array.from(document.getElementById('sampler').probs));
      assert(back[1] > 0.2, `top-k = 0 (off) should restore the distribution: [${back}]`);
    });

    await test('overflow widget shows NaN for the textbook formula at [1000, 1001, 1002]', async () => {
      const v = await page.evaluate(() => {
        const { naive, stable } = document.getElementById('overflow-big').value;
        return { naive: Array.from(naive), stable: Array.from(stable) };
      });
      assert(v.naive.every(Number.isNaN), `naive: [${v.naive}]`);
      assert(v.stable[2].toFixed(4) === '0.6652', `stable: [${v.stable}]`);
    });

    await test('attention widget: rows sum to 1, then columns after switching the axis', async () => {
      const rowsOk = await page.evaluate(() => document.getElementById('attention').value.every((r) => Math.abs(r.reduce((a, b) => a + b) - 1) < 1e-5));
      assert(rowsOk, 'rows do not sum to 1');
      await page.locator('#attention input[value=columns]').check();
      const colsOk = await page.evaluate(() => {
        const w = document.getElementById('attention').value;
        return w[0].every((_, j) => Math.abs(w.reduce((a, r) => a + r[j], 0) - 1) < 1e-5);
      });
      assert(colsOk, 'columns do not sum to 1 along axis 0');
      await page.locator('#attention input[value=rows]').check();
    });

    await test('screenshots: whole page and each widget at 1280 and 360 px', async () => {
      await page.locator('#sampler button', { hasText: 'Draw 1,000' }).click(); // a histogram worth looking at
      for (const width of [1280, 360]) {
        await page.setViewportSize({ width, height: 900 });
        await page.waitForTimeout(200);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert(overflow <= 0, `the page scrolls sideways by ${overflow} px at ${width} px`);
        await page.screenshot({ path: join(SHOTS, `demo-${width}.png`), fullPage: true });
        for (const w of WIDGETS) {
          const el = page.locator(w).first();
          await el.scrollIntoViewIfNeeded();
          await el.screenshot({ path: join(SHOTS, `${w}-${width}.png`) });
        }
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    await test('each widget page loads alone with no console errors, at 1280 and 360 px', async () => {
      for (const w of ['index', ...WIDGETS]) {
        const { page: p, errors } = await open(`widgets/${w}.html`, { demoPage: false });
        if (w !== 'index') {
          await p.evaluate((tag) => document.querySelector(tag).ready, w);
          const csp = await p.evaluate(() => window.__cspViolations);
          assert(csp.length === 0, `${w}: CSP violations: ${csp.join('; ')}`);
          for (const width of [1280, 360]) {
            await p.setViewportSize({ width, height: 900 });
            await p.waitForTimeout(100);
            await p.screenshot({ path: join(SHOTS, `page-${w}-${width}.png`), fullPage: true });
          }
        }
        assert(errors.length === 0, `${w}: console errors: ${errors.join('; ')}`);
        await p.close();
      }
    }, 120_000);
  } finally {
    await browser.close();
  }
}

async function firefoxTests(base, shared) {
  console.log('Firefox ESR (puppeteer-core, WebDriver BiDi)');
  let browser;
  await test('Firefox ESR launches over WebDriver BiDi', async () => {
    browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true, protocol: 'webDriverBiDi', timeout: 60_000 });
  }, 90_000);
  if (!browser) return;
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.evaluateOnNewDocument(CSP_WATCH);
    await page.setViewport({ width: 1280, height: 900 });

    await test('Firefox: demo page loads, every worked example matches the course', async () => {
      await page.goto(base, { waitUntil: 'load' });
      await page.waitForSelector('html[data-ready]', { timeout: 30_000 });
      const numbers = await page.evaluate(READ_NUMBERS);
      const n = checkNumbers(numbers);
      console.log(`      ${n} numbers checked (SIMD: ${await page.evaluate(() => document.documentElement.dataset.simd)})`);
      const csp = await page.evaluate(() => window.__cspViolations);
      assert(csp.length === 0, `CSP violations: ${csp.join('; ')}`);
      assert(errors.length === 0, `console errors: ${errors.join('; ')}`);
    });

    await test('Firefox: seeded sampling gives the same indices as Chromium and Node', async () => {
      assert(shared.nodeDraws, 'sm.createSampler is missing from the JS API');
      const draws = await page.evaluate(async () => {
        const el = document.getElementById('sampler');
        await el.ready;
        el.reset();
        return Array.from(el.draw(1000));
      });
      assert(draws.every((d, i) => d === shared.nodeDraws[i]), 'Firefox draws differ from Node');
      if (shared.chromiumDraws) assert(draws.every((d, i) => d === shared.chromiumDraws[i]), 'Firefox draws differ from Chromium');
    });

    await test('Firefox: baseline build (?simd=0) gives the same numbers', async () => {
      await page.goto(`${base}?simd=0`, { waitUntil: 'load' });
      await page.waitForSelector('html[data-ready]', { timeout: 30_000 });
      assert((await page.evaluate(() => document.documentElement.dataset.simd)) === 'false', 'the baseline build did not run');
      checkNumbers(await page.evaluate(READ_NUMBERS));
      await page.setViewport({ width: 360, height: 900 });
      await page.screenshot({ path: join(SHOTS, 'firefox-demo-360.png') });
      assert(errors.length === 0, `console errors: ${errors.join('; ')}`);
    });
  } finally {
    await browser.close();
  }
}

try {
  await main();
} catch (err) {
  failed++;
  console.log(`  ✗ setup: ${err.stack || err}`);
}
if (failures.length) console.log(`failed: ${failures.join(' | ')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
