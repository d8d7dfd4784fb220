// Real-browser tests of the demo page, the lesson widgets and the library, under
// the strict Content Security Policy sent as a response header by
// web/tools/serve.mjs, in three engines (tests/browser/engines.mjs):
//  - Chromium (V8), Firefox ESR (SpiderMonkey) and WebKit's MiniBrowser (JavaScriptCore);
//  - every worked example of the course, in both wasm builds (?simd=0 forces the baseline);
//  - golden bits: tests/golden/softmax.json and the sampler golden files (masked draws and
//    verifyDraft rounds of speculative.json included) replayed in the page;
//  - seeded sampling: the same indices in every engine and in Node;
//  - the widgets driven by keyboard and pointer as a person would.
// Screenshots (whole page and each widget, 1280 and 360 px wide, per engine) go to
// tests/browser/screenshots/ (git-ignored). Needs `npm run build` first.
// Closes with 'N passed, N failed'.
//
//   node tests/browser/run.mjs                  all three engines
//   node tests/browser/run.mjs webkit firefox   only those
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { load } from '../../web/src/node.js';
import { CSP, WEB_ROOT, startServer } from '../../web/tools/serve.mjs';
import { ENGINES, launch } from './engines.mjs';
import { assert, matches, results, runSuite, test } from './harness.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const SHOTS = join(HERE, 'screenshots');
const GOLDEN = join(HERE, '..', 'golden');
const WIDGETS = ['softmax-bars', 'softmax-overflow', 'softmax-sampler', 'softmax-sigmoid', 'softmax-attention'];
// Every check table of the demo page, in the course's order.
const EXAMPLES = ['positive', 'three', 'abc', 'equal', 'giant', 'sampling', 'ln2', 'gaps', 'overflow', 'temperature', 'four', 'greedy', 'order', 'sigmoid', 'axis'];
const SAMPLER = { scores: [2, 1, 0], opts: { seed: 42, temperature: 1 }, n: 1000 };
// Golden sampler cases over more logits than this are replayed for their first draws only,
// which keeps the three engines within a few minutes (Node's suite replays them all).
const BIG = { logits: 4000, draws: 100 };
const NAMES = { chromium: 'Chromium', firefox: 'Firefox', webkit: 'WebKit' };

const selected = process.argv.slice(2);
for (const e of selected) if (!ENGINES.includes(e)) throw new RangeError(`unknown engine '${e}': use ${ENGINES.join(', ')}`);
const engines = selected.length ? ENGINES.filter((e) => selected.includes(e)) : ENGINES;

/** Reads every live number of the demo page. */
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

/** Checks `numbers` against those another engine or build showed: close, and how many are identical. */
function compareNumbers(numbers, other, what) {
  assert(numbers.length === other.length, `${what}: ${numbers.length} live numbers here, ${other.length} there`);
  let same = 0;
  numbers.forEach((n, i) => {
    const o = other[i];
    assert(n.example === o.example && n.label === o.label, `${what}: number ${i} is ${n.example} / ${n.label} here, ${o.example} / ${o.label} there`);
    assert(closeF32(n.computed, o.computed), `${n.example} / ${n.label}: ${n.computed} here, ${o.computed} in ${what}`);
    if (Object.is(n.computed, o.computed)) same++;
  });
  return same;
}

function assertNoErrors(errors, where) {
  assert(errors.length === 0, `${where}: ${errors.length} error(s):\n${errors.join('\n')}`);
}

// Replays golden cases in the page with both builds. Self-contained: it runs in the page.
const REPLAY_GOLDEN = async (indexUrl, softmaxCases, samplerSets, big, verifyCases) => {
  const { load } = await import(indexUrl);
  const num = (v) => (v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : v);
  const hex = (f32) => Array.from(new Uint32Array(f32.buffer, f32.byteOffset, f32.length), (u) => u.toString(16).padStart(8, '0'));
  const scoresOf = (spec) => {
    if (Array.isArray(spec)) return Float32Array.from(spec, num);
    const { n, salt, maskedBelow, scale } = spec.hash; // the formula of tests/native/sampler_golden.h
    const x = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const v = Math.imul(i + salt, 2654435761) >>> 0;
      x[i] = (v & 255) < maskedBelow ? -Infinity : ((v >>> 8) / 16777216 - 0.5) * scale;
    }
    return x;
  };
  // The hash masks of tests/native/speculative_golden.h.
  const maskOf = (n, salt) => {
    const m = new Uint32Array(Math.ceil(n / 32));
    for (let w = 0; w < m.length; w++) m[w] = (Math.imul(w + salt, 2246822519) & Math.imul(w + salt + 1, 3266489917)) >>> 0;
    m[0] |= 1;
    return m;
  };
  const optionsOf = (c) => {
    const o = {};
    for (const [k, v] of Object.entries(c.options)) {
      if (Array.isArray(v)) o[k] = v;
      else if (v && typeof v === 'object') o[k] = Object.fromEntries(Object.entries(v).map(([i, b]) => [i, num(b)]));
      else o[k] = num(v);
    }
    const seed = BigInt(c.seed);
    o.seed = seed < 2n ** 32n ? Number(seed) : seed;
    return o;
  };
  const out = [];
  for (const simd of [true, false]) {
    const sm = await load({ simd });
    if (sm.simd !== simd) throw new Error(`load({ simd: ${simd} }) gave the ${sm.simd ? 'SIMD' : 'baseline'} build`);
    const bad = [];
    let outputs = 0;
    softmaxCases.forEach((c, i) => {
      const x = new Float32Array(Uint32Array.from(c.x, (h) => parseInt(h, 16)).buffer);
      const temperature = c.temperature === 'Infinity' ? Infinity : Number(c.temperature);
      const y = hex(sm[c.op](x, { temperature, shape: c.shape, axis: c.axis }));
      outputs += y.length;
      const k = y.length === c.y.length ? y.findIndex((h, j) => h !== c.y[j]) : 0;
      if (k >= 0) bad.push(`softmax.json case ${i} (${c.op}, shape [${c.shape}]) [${k}]: ${y[k]}, golden ${c.y[k]}`);
    });
    let draws = 0;
    for (const { file, cases, many } of samplerSets) {
      for (const c of cases) {
        const x = scoresOf(c.scores);
        const o = optionsOf(c);
        const n = x.length > big.logits ? big.draws : c.draws.length;
        const s = sm.createSampler(o);
        const call = c.maskSalt ? { mask: maskOf(x.length, c.maskSalt) } : undefined;
        try {
          const got = [];
          for (let i = 0; i < n; i++) {
            got.push(s.sample(x, call));
            if (c.accept) s.accept(got[i]);
          }
          if (many && !c.accept) {
            s.reset(BigInt(c.seed));
            got.push(...s.sampleMany(x, n, call));
          }
          draws += got.length;
          const k = got.findIndex((t, j) => t !== c.draws[j % n]);
          if (k >= 0) bad.push(`${file} '${c.name}' draw ${k % n}${k >= n ? ' (sampleMany)' : ''}: ${got[k]}, golden ${c.draws[k % n]}`);
        } finally {
          s.dispose();
        }
      }
    }
    // verifyDraft rounds (tests/golden/speculative.json; rows as speculative_golden.h builds them).
    for (const c of verifyCases) {
      const { n, k } = c;
      const target = new Float32Array((k + 1) * n);
      const draft = new Float32Array(k * n);
      const masks = [];
      for (let j = 0; j <= k; j++) {
        const t = scoresOf({ hash: { n, salt: c.salt + j, maskedBelow: 0, scale: c.scale } });
        target.set(t, j * n);
        if (c.maskSalt) masks.push(maskOf(n, c.maskSalt + j));
        if (j === k) break;
        const d = scoresOf({ hash: { n, salt: c.draftSalt + j, maskedBelow: 0, scale: 1 } });
        for (let i = 0; i < n; i++) d[i] = t[i] + d[i];
        draft.set(sm.softmax(d), j * n);
      }
      const s = sm.createSampler(optionsOf(c));
      const got = [];
      for (let round = 0; round < c.rounds; round++) {
        const tokens = Array.from({ length: k }, (_, j) =>
          (round + j) % 3 !== 2 ? sm.argmax(draft.subarray(j * n, (j + 1) * n)) : (Math.imul(round * 31 + j, 2654435761) >>> 0) % n,
        );
        const v = s.verifyDraft(tokens, draft, target, masks.length ? { mask: masks } : undefined);
        got.push(v.accepted, ...v.tokens);
      }
      s.dispose();
      draws += got.length;
      const i = got.findIndex((t, j) => t !== c.results[j]);
      if (i >= 0 || got.length !== c.results.length) bad.push(`speculative.json verify '${c.name}' [${i}]: ${got[i]}, golden ${c.results[i]}`);
    }
    out.push({ simd, outputs, draws, bad });
  }
  return out;
};

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
  const json = (f) => JSON.parse(readFileSync(join(GOLDEN, f), 'utf8'));
  const golden = {
    softmax: json('softmax.json').cases,
    samplers: [
      { file: 'sampler.json', cases: json('sampler.json').cases, many: true },
      { file: 'sampler_steps.json', cases: json('sampler_steps.json').cases, many: false },
      { file: 'speculative.json', cases: json('speculative.json').masked, many: true },
    ],
    verify: json('speculative.json').verify,
  };
  const server = await startServer({ port: 0 });
  console.log(`serving ${WEB_ROOT} at ${server.url} with CSP: ${CSP}`);
  const shared = { server, nodeDraws, golden, numbers: {} };
  const times = [];
  try {
    for (const name of engines) {
      const start = performance.now();
      const before = { ...results };
      await engineTests(name, shared);
      times.push(`${NAMES[name]} ${((performance.now() - start) / 1000).toFixed(1)} s (${results.passed - before.passed} passed, ${results.failed - before.failed} failed)`);
    }
  } finally {
    await server.close();
    if (times.length) console.log(`time per engine: ${times.join('; ')}`);
  }
}

async function engineTests(name, shared) {
  const E = NAMES[name];
  const base = `${shared.server.url}demo/`;
  let browser;
  await test(`${E} launches`, async () => {
    browser = await launch(name);
    console.log(`      ${browser.label}`);
  }, 90_000);
  if (!browser) return;
  const t = (title, fn, timeoutMs) => test(`${E}: ${title}`, fn, timeoutMs);
  const shotName = (what, width) => join(SHOTS, `${name}-${what}-${width}.png`);
  try {
    let page;
    await t('demo page loads under the CSP header, SIMD build, no console errors or CSP violations', async () => {
      page = await browser.open(base, { width: 1280, height: 900 });
      await page.waitFor(() => document.documentElement.dataset.ready);
      assert((await page.evaluate(() => document.documentElement.dataset.ready)) === 'true', 'the page never set data-ready');
      assert((await page.evaluate(() => document.documentElement.dataset.simd)) === 'true', `the SIMD build did not run in ${E}`);
      await page.evaluate((tags) => Promise.all(tags.map((tag) => document.querySelector(tag).ready)).then(() => true), WIDGETS);
      const served = await page.evaluate(async () => {
        const head = async (url) => {
          const r = await fetch(url, { cache: 'no-store' });
          await r.arrayBuffer();
          return r.headers;
        };
        const wasm = performance.getEntriesByType('resource').map((r) => r.name).filter((u) => u.endsWith('.wasm'));
        return {
          csp: (await head(location.href)).get('content-security-policy'),
          wasm: await Promise.all(wasm.map(async (u) => `${u.split('/').pop()}: ${(await head(u)).get('content-type')}`)),
        };
      });
      assert(served.csp === CSP, `CSP header missing or different: ${served.csp}`);
      assert(served.wasm.length > 0 && served.wasm.every((w) => w.endsWith(': application/wasm')), `.wasm served as ${served.wasm.join(', ') || 'nothing'}`);
      assertNoErrors(await page.errors(), 'demo page');
    });
    if (!page) return;

    await t('every worked example: computed numbers match the course (and the engines before)', async () => {
      const numbers = await page.evaluate(READ_NUMBERS);
      const n = checkNumbers(numbers);
      const notes = Object.entries(shared.numbers).map(([other, theirs]) => `${compareNumbers(numbers, theirs, NAMES[other])} identical to ${NAMES[other]}'s`);
      shared.numbers[name] = numbers;
      console.log(`      ${n} numbers checked${notes.length ? `; ${notes.join(', ')}` : ''}`);
    });

    await t(`sampler widget: ${SAMPLER.n} draws with seed ${SAMPLER.opts.seed} equal the same draws in Node`, async () => {
      assert(shared.nodeDraws, 'sm.createSampler is missing from the JS API (web/src/api.js), so there is nothing to compare');
      await page.click('#sampler >>> button', { text: 'Start over' });
      await page.click('#sampler >>> button', { text: 'Draw 1,000' });
      const draws = await page.evaluate(() => Array.from(document.getElementById('sampler').draws));
      assert(draws.length === SAMPLER.n, `expected ${SAMPLER.n} draws, got ${draws.length}`);
      const firstDiff = draws.findIndex((d, i) => d !== shared.nodeDraws[i]);
      assert(firstDiff < 0, `draw ${firstDiff} differs: ${E} ${draws[firstDiff]}, Node ${shared.nodeDraws[firstDiff]}`);
      const counts = await page.evaluate(() => document.getElementById('sampler').counts);
      const probs = await page.evaluate(() => Array.from(document.getElementById('sampler').probs));
      // the histogram follows the probabilities (4 standard deviations)
      counts.forEach((c, i) => {
        const sd = Math.sqrt(SAMPLER.n * probs[i] * (1 - probs[i]));
        assert(Math.abs(c - SAMPLER.n * probs[i]) <= 4 * sd + 1, `option ${i}: ${c} draws for p = ${probs[i]}`);
      });
    });

    await t('sampler widget at T = 0 is greedy: 1,000 draws all pick the top score', async () => {
      assert(shared.nodeDraws, 'sm.createSampler is missing from the JS API');
      await page.press('#sampler >>> input[type=range]', 'Home');
      await page.click('#sampler >>> button', { text: 'Draw 1,000' });
      const counts = await page.evaluate(() => document.getElementById('sampler').counts);
      assert(counts[0] === 1000 && counts[1] === 0 && counts[2] === 0, `counts at T = 0: [${counts}]`);
      await page.fill('#sampler >>> input[type=range]', '10'); // back to T = 1
    });

    await t('widgets follow their attributes; sampler top-k = 1 (typed) filters all but the top', async () => {
      const flat = await page.evaluate(() => {
        const el = document.getElementById('bars-dial');
        el.setAttribute('temperature', 'inf');
        const v = Array.from(el.value);
        el.setAttribute('temperature', '0.5');
        return v;
      });
      assert(flat.every((p) => Math.abs(p - 1 / 3) < 1e-6), `temperature="inf" should be flat, got [${flat}]`);
      const topK = ['#sampler >>> input[type=number]', { index: 1, clear: true }]; // seed, top-k, top-p, min-p
      await page.type(topK[0], '1', topK[1]);
      const probs = await page.evaluate(() => Array.from(document.getElementById('sampler').probs));
      assert(probs[0] === 1 && probs[1] === 0 && probs[2] === 0, `top-k = 1: [${probs}]`);
      await page.type(topK[0], '0', topK[1]);
      const back = await page.evaluate(() => Array.from(document.getElementById('sampler').probs));
      assert(back[1] > 0.2, `top-k = 0 (off) should restore the distribution: [${back}]`);
    });

    await t('overflow widget shows NaN for the textbook formula at [1000, 1001, 1002]', async () => {
      const v = await page.evaluate(() => {
        const { naive, stable } = document.getElementById('overflow-big').value;
        return { naive: Array.from(naive), stable: Array.from(stable) };
      });
      assert(v.naive.length === 3 && v.naive.every(Number.isNaN), `naive: [${v.naive}]`);
      assert(v.stable[2].toFixed(4) === '0.6652', `stable: [${v.stable}]`);
    });

    await t('attention widget: rows sum to 1, then columns after switching the axis', async () => {
      const rowsOk = await page.evaluate(() => document.getElementById('attention').value.every((r) => Math.abs(r.reduce((a, b) => a + b) - 1) < 1e-5));
      assert(rowsOk, 'rows do not sum to 1');
      await page.click('#attention >>> input[value=columns]');
      const colsOk = await page.evaluate(() => {
        const w = document.getElementById('attention').value;
        return w[0].every((_, j) => Math.abs(w.reduce((a, r) => a + r[j], 0) - 1) < 1e-5);
      });
      assert(colsOk, 'columns do not sum to 1 along axis 0');
      await page.click('#attention >>> input[value=rows]');
    });

    await t('screenshots: whole page and each widget at 1280 and 360 px, no sideways scrolling', async () => {
      await page.click('#sampler >>> button', { text: 'Draw 1,000' }); // a histogram worth looking at
      for (const width of [1280, 360]) {
        const got = await page.setViewport(width, 900);
        if (got.width !== width) console.log(`      ${width} px: ${E}'s window is at least ${browser.minViewportWidth} px wide, so this runs at ${got.width} px`);
        await new Promise((r) => setTimeout(r, 200));
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert(overflow <= 0, `the page scrolls sideways by ${overflow} px at ${got.width} px`);
        await page.screenshot({ path: shotName('demo', got.width), fullPage: true });
        for (const w of WIDGETS) await page.screenshot({ path: shotName(w, got.width), selector: w });
      }
      await page.setViewport(1280, 900);
    });

    await t('golden bits: softmax.json and the sampler golden files replayed in the page, both builds', async () => {
      const results = await page.evaluate(REPLAY_GOLDEN, `${shared.server.url}src/index.js`, shared.golden.softmax, shared.golden.samplers, BIG, shared.golden.verify);
      for (const r of results) {
        const build = r.simd ? 'SIMD' : 'baseline';
        assert(r.bad.length === 0, `${build} build: ${r.bad.length} golden case(s) differ:\n${r.bad.slice(0, 10).join('\n')}`);
        console.log(`      ${build}: ${r.outputs.toLocaleString('en')} softmax outputs bit-identical, ${r.draws.toLocaleString('en')} sampler draws identical`);
      }
    }, 180_000);

    await t('baseline build (?simd=0): same numbers as the SIMD build, same draws as Node', async () => {
      const p = await browser.open(`${base}?simd=0`, { width: 1280, height: 900 });
      try {
        await p.waitFor(() => document.documentElement.dataset.ready);
        assert((await p.evaluate(() => document.documentElement.dataset.simd)) === 'false', 'the baseline build did not run');
        const numbers = await p.evaluate(READ_NUMBERS);
        checkNumbers(numbers);
        assert(shared.numbers[name], 'no SIMD numbers to compare with');
        compareNumbers(numbers, shared.numbers[name], 'the SIMD build');
        if (shared.nodeDraws) {
          await p.waitFor(() => Boolean(document.getElementById('sampler')?.ready));
          const draws = await p.evaluate(async () => {
            const el = document.getElementById('sampler');
            await el.ready;
            el.reset();
            return Array.from(el.draw(1000));
          });
          const firstDiff = draws.findIndex((d, i) => d !== shared.nodeDraws[i]);
          assert(draws.length === 1000 && firstDiff < 0, `baseline build draw ${firstDiff} differs from Node: ${draws[firstDiff]} vs ${shared.nodeDraws[firstDiff]}`);
        }
        assertNoErrors(await p.errors(), 'baseline page');
      } finally {
        await p.close();
      }
    });

    await t('each widget page loads alone with no console errors, at 1280 and 360 px', async () => {
      for (const w of ['index', ...WIDGETS]) {
        const p = await browser.open(`${base}widgets/${w}.html`, { width: 1280, height: 900 });
        try {
          if (w !== 'index') {
            await p.waitFor((tag) => customElements.get(tag), { args: [w] });
            await p.evaluate((tag) => document.querySelector(tag).ready.then(() => true), w);
            for (const width of [1280, 360]) {
              const got = await p.setViewport(width, 900);
              await p.screenshot({ path: shotName(`page-${w}`, got.width), fullPage: true });
            }
          }
          assertNoErrors(await p.errors(), `widgets/${w}.html`);
        } finally {
          await p.close();
        }
      }
    }, 120_000);

    await t('the CSP is enforced and reported: an inline <style> is refused, errors() sees it', async () => {
      const p = await browser.open(`${base}widgets/index.html`, { width: 800, height: 600 });
      try {
        assertNoErrors(await p.errors(), 'widgets/index.html');
        const color = await p.evaluate(() => {
          const style = document.createElement('style');
          style.textContent = 'html { outline-color: rgb(1, 2, 3) }';
          document.head.append(style);
          return getComputedStyle(document.documentElement).outlineColor;
        });
        assert(color !== 'rgb(1, 2, 3)', 'the inline <style> was applied: the CSP is not enforced');
        await p.waitFor(() => window.__engineErrors?.some((e) => e.startsWith('csp: ')), { timeout: 5000 });
        const errors = await p.errors();
        assert(errors.some((e) => /style-src/.test(e)), `no style-src violation among the errors: [${errors.join('; ')}]`);
      } finally {
        await p.close();
      }
    });
  } finally {
    await browser.close();
  }
}

await runSuite(main);
