// Real-browser tests of the lesson page (web/demo/) and the lesson widgets
// (web/components/): every worked example against the course, the numbers in
// the prose following the figures, lazy loading, the generator's text against
// the same model and sampler run in Node, the attribute errors, hide/lock,
// events, strings, language and theme a lesson author relies on, and the bugs
// a learner ran into (each with its own test). Each engine runs the same
// tests, at 1280 and 360 px, under the strict CSP sent by web/tools/serve.mjs.
// Screenshots go to tests/browser/screenshots/ (git-ignored); the page heights
// are printed. Closes with 'N passed, N failed'.
//
//   node tests/browser/lesson.mjs             every engine
//   node tests/browser/lesson.mjs chromium    one engine (also: firefox)
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';

import { LanguageModel } from '../../web/components/model/lm.js';
import { EXAMPLES } from '../../web/demo/course-examples.js';
import { load } from '../../web/src/node.js';
import { CSP, WEB_ROOT, startServer } from '../../web/tools/serve.mjs';
import { assert, matches, runSuite, test } from './harness.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const SHOTS = join(HERE, 'screenshots');
const only = process.argv[2];
const WIDGETS = ['softmax-bars', 'softmax-exp', 'softmax-overflow', 'softmax-sampler', 'softmax-generate', 'softmax-sigmoid', 'softmax-attention'];
const CHECK_COUNT = EXAMPLES.reduce((n, e) => n + e.checks.length, 0);

/** Within 2 ulp of float32 (the design's bound between the SIMD and baseline builds). */
function closeF32(a, b) {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  const ulp = Math.max(Math.abs(a), Math.abs(b), 2 ** -126) * 2 ** -23;
  return Math.abs(a - b) <= 2 * ulp + 1e-12;
}

// ---------------------------------------------------------------------------
// Engines. The tests use one page interface: open(url, { width, height }) -> page with
// evaluate(fn, ...args), waitFor(fn), press(selector, key, { index }), type(selector, text),
// setViewport(w, h), screenshot({ path, fullPage }), errors(), close(); a selector may step
// into shadow roots with ' >>> '. That is the interface of tests/browser/engines.mjs: where
// that file exists, every engine it names runs these tests through it. Without it, the
// adapters below drive Chromium (playwright-core) and Firefox (puppeteer-core) the same way.
// A page may also have drag(): a real mouse drag; where it has none, the test dispatches
// pointer events in the page.

const HAS_ENGINES = existsSync(join(HERE, 'engines.mjs'));

/** The element for a selector (' >>> ' steps into open shadow roots), the index-th match. */
const FIND = (selector, index) => {
  const deep = (root, sel, out) => {
    for (const el of root.querySelectorAll(sel)) out.push(el);
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) deep(el.shadowRoot, sel, out);
    return out;
  };
  let scope = [document];
  for (const part of selector.split('>>>')) scope = scope.flatMap((root) => deep(root.shadowRoot ?? root, part.trim(), []));
  return scope[index ?? 0] ?? null;
};

const CSP_WATCH = `window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`;

function localPage(page, { resize, errors }) {
  // a string expression: the driver runs it as its own code, so the page's CSP (no eval) does not stop it
  const focus = async (selector, index) => {
    const ok = await page.evaluate(`(() => { const el = (${FIND})(${JSON.stringify(selector)}, ${index ?? 0}); if (!el) return false; el.scrollIntoView({ block: 'center' }); el.focus(); return true; })()`);
    if (!ok) throw new Error(`no element matches ${selector} at index ${index ?? 0}`);
  };
  return {
    evaluate: (fn, ...args) => page.evaluate(fn, ...args),
    async waitFor(fn, { timeout = 30_000 } = {}) {
      const t0 = Date.now();
      for (;;) {
        const v = await page.evaluate(fn);
        if (v) return v;
        if (Date.now() - t0 > timeout) throw new Error(`waitFor timed out: ${fn}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async press(selector, key, { index } = {}) {
      await focus(selector, index);
      await page.keyboard.press(key);
    },
    async type(selector, text, { index, clear = false } = {}) {
      await focus(selector, index);
      if (clear) await page.evaluate(`(${FIND})(${JSON.stringify(selector)}, ${index ?? 0}).value = ''`);
      await page.keyboard.type(text);
    },
    async click(selector, { index } = {}) {
      const box = await page.evaluate(`(() => { const el = (${FIND})(${JSON.stringify(selector)}, ${index ?? 0}); el.scrollIntoView({ block: 'center' }); const r = el.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`);
      await page.mouse.click(box.x, box.y);
    },
    async drag(selector, { index, from = [0, 0], by = [0, 0] } = {}) {
      const box = await page.evaluate(`(() => { const el = (${FIND})(${JSON.stringify(selector)}, ${index ?? 0}); el.scrollIntoView({ block: 'center' }); const r = el.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`);
      await page.mouse.move(box.x + from[0], box.y + from[1]);
      await page.mouse.down();
      await page.mouse.move(box.x + from[0] + by[0], box.y + from[1] + by[1], { steps: 4 });
      await page.mouse.up();
    },
    setViewport: (w, hgt) => resize(w, hgt),
    screenshot: ({ path, fullPage = false }) => page.screenshot({ path, fullPage }),
    async errors() {
      const csp = await page.evaluate(() => window.__cspViolations ?? []).catch(() => []);
      return [...errors, ...csp.map((c) => `csp: ${c}`)];
    },
    close: () => page.close(),
  };
}

const LOCAL = {
  async chromium() {
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    await context.addInitScript(CSP_WATCH);
    return {
      label: 'Chromium (playwright-core)',
      async open(url, { width = 1280, height = 900 } = {}) {
        const page = await context.newPage();
        const errors = [];
        page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
        page.on('pageerror', (e) => errors.push(e.message));
        page.on('requestfailed', (r) => !r.url().startsWith('file:') && errors.push(`request failed: ${r.url()}`));
        await page.setViewportSize({ width, height });
        await page.goto(url, { waitUntil: 'load' });
        return localPage(page, { errors, resize: (w, hgt) => page.setViewportSize({ width: w, height: hgt }) });
      },
      close: () => browser.close(),
    };
  },
  async firefox() {
    const browser = await puppeteer.launch({ browser: 'firefox', executablePath: process.env.FIREFOX_PATH || '/usr/bin/firefox-esr', headless: true, protocol: 'webDriverBiDi', timeout: 60_000, extraPrefsFirefox: { 'ui.prefersReducedMotion': 1 } });
    return {
      label: 'Firefox ESR (puppeteer-core, WebDriver BiDi)',
      async open(url, { width = 1280, height = 900 } = {}) {
        const page = await browser.newPage();
        const errors = [];
        page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
        page.on('pageerror', (e) => errors.push(e.message));
        await page.evaluateOnNewDocument(CSP_WATCH);
        await page.setViewport({ width, height });
        await page.goto(url, { waitUntil: 'load' });
        return localPage(page, { errors, resize: (w, hgt) => page.setViewport({ width: w, height: hgt }) });
      },
      close: () => browser.close(),
    };
  },
};

async function engineNames() {
  if (HAS_ENGINES) return (await import('./engines.mjs')).ENGINES;
  return Object.keys(LOCAL);
}

async function launchEngine(name) {
  if (HAS_ENGINES) return (await import('./engines.mjs')).launch(name);
  return LOCAL[name]();
}

/**
 * Pages close at the end of an engine's run, not one by one: WebKit's WebDriver cannot open a
 * window after the current one was closed.
 */
const openPages = [];

/** Opens a page and waits for the lesson (ready: 'lesson'), a gallery page ('main') or nothing. */
async function openPage(b, url, { width = 1280, ready = 'lesson' } = {}) {
  const p = await b.open(url, { width, height: 900 });
  openPages.push(p);
  p.close = async () => {}; // see openPages
  if (ready === 'lesson') await p.waitFor(() => document.documentElement.dataset.ready === 'true');
  else if (ready === 'main') await p.waitFor(() => document.querySelector('main') !== null);
  return p;
}

/** A drag by a real mouse where the engine has one, else by pointer events dispatched in the page. */
async function drag(p, selector, opts) {
  if (p.drag) return p.drag(selector, opts);
  return p.evaluate(
    ([sel, o]) => {
      const [host, inner] = sel.split('>>>').map((x) => x.trim());
      const el = document.querySelector(host).shadowRoot.querySelectorAll(inner)[o.index ?? 0];
      const r = el.getBoundingClientRect();
      const x0 = r.x + r.width / 2 + o.from[0];
      const y0 = r.y + r.height / 2 + o.from[1];
      const target = document.querySelector(host).shadowRoot.elementFromPoint(x0, y0) ?? el;
      const ev = (type, x, y) => new PointerEvent(type, { bubbles: true, composed: true, clientX: x, clientY: y, pointerId: 1, isPrimary: true, button: 0, buttons: type === 'pointerup' ? 0 : 1 });
      target.dispatchEvent(ev('pointerdown', x0, y0));
      for (let k = 1; k <= 4; k++) target.dispatchEvent(ev('pointermove', x0 + (o.by[0] * k) / 4, y0 + (o.by[1] * k) / 4));
      target.dispatchEvent(ev('pointerup', x0 + o.by[0], y0 + o.by[1]));
    },
    [selector, opts],
  );
}

// ---------------------------------------------------------------------------
// In-page helpers (serialised into the page by evaluate).

/** Focuses an element inside a widget's shadow root. */
const SHOW = async (host) => {
  document.querySelector(host).scrollIntoView({ block: 'center' });
  await document.querySelector(host).ready;
  return true;
};

/** Reads every live number of the lesson's checks. */
const READ_NUMBERS = () =>
  Array.from(document.querySelectorAll('[data-computed]'), (el) => ({
    example: el.dataset.example,
    key: el.dataset.key,
    expected: el.dataset.expected,
    digits: Number(el.dataset.digits),
    computed: Number(el.dataset.computed),
    text: el.textContent,
  }));

/** Adds a widget to the page (the components loaded by import) and waits until it has drawn. */
const ADD = async ([tag, attrs, props]) => {
  await import('/components/index.js');
  const el = document.createElement(tag);
  const events = [];
  for (const type of ['input', 'change', 'error', 'load']) el.addEventListener(type, (e) => events.push({ type, detail: e.detail ?? null }));
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  Object.assign(el, props ?? {});
  el.id = `t-${Math.random().toString(36).slice(2)}`;
  el.__events = events;
  document.querySelector('main').append(el);
  await el.ready;
  return el.id;
};

// ---------------------------------------------------------------------------
// References computed in Node, independent of the browsers.

async function references() {
  const sm = await load();
  const data = JSON.parse(readFileSync(join(WEB_ROOT, 'components', 'model', 'lm.json'), 'utf8'));
  const lm = new LanguageModel(data);
  /** The widget's loop in Node: the same model, the library's sampler. */
  const generate = (prompt, n, opts) => {
    const s = sm.createSampler(opts);
    try {
      const ctx = [lm.bos, ...lm.encode(prompt).ids];
      const start = ctx.length;
      for (let i = 0; i < n; i++) ctx.push(s.sample(lm.logits(ctx)));
      return lm.decode(ctx.slice(1, start).concat(ctx.slice(start)));
    } finally {
      s.dispose();
    }
  };
  /** Greedy by a float64 argmax of the model's probabilities: no sampler involved. */
  const greedy = (prompt, n) => {
    const ctx = [lm.bos, ...lm.encode(prompt).ids];
    for (let i = 0; i < n; i++) {
      const p = lm.probabilities(ctx);
      let best = 0;
      for (let w = 1; w < p.length; w++) if (p[w] > p[best]) best = w;
      ctx.push(best);
    }
    return lm.decode(ctx.slice(1));
  };
  const s = sm.createSampler({ seed: 42, temperature: 1 });
  const draws = Array.from(s.sampleMany([2, 1, 0], 1000));
  s.dispose();
  const first = lm.probabilities([lm.bos, ...lm.encode('the cat').ids]);
  return { sm, lm, data, generate, greedy, draws, first };
}

async function nodeChecks(ref) {
  console.log('Node: the packaged language model');
  await test('lm.json is what web/tools/build-lm.mjs builds from the corpus today', async () => {
    const { buildModel } = await import('../../web/tools/build-lm.mjs');
    const fresh = buildModel(readFileSync(join(WEB_ROOT, 'tools', 'lm-corpus.txt'), 'utf8'));
    assert(fresh === readFileSync(join(WEB_ROOT, 'components', 'model', 'lm.json'), 'utf8'), 'lm.json is stale: run node web/tools/build-lm.mjs');
  });
  await test('the model is at most 150 KB gzip and every next-word distribution sums to 1', async () => {
    const { gzipSync } = await import('node:zlib');
    const gz = gzipSync(readFileSync(join(WEB_ROOT, 'components', 'model', 'lm.json')), { level: 9 }).length;
    console.log(`      lm.json: ${gz} bytes gzip, ${ref.lm.size} words`);
    assert(gz <= 150 * 1024, `${gz} bytes gzip`);
    for (const ctx of [[], [ref.lm.bos], ref.lm.encode('the cat').ids, ref.lm.encode('the river was').ids, [0, 0], [ref.lm.size - 1, ref.lm.size - 2]]) {
      const p = ref.lm.probabilities(ctx);
      const total = p.reduce((a, b) => a + b, 0);
      assert(Math.abs(total - 1) < 1e-9 && p.every((x) => x > 0), `context ${ctx}: sum ${total}`);
    }
  });
  await test('Kneser-Ney by hand: p(w | "the cat") from the raw trigram counts', () => {
    // An independent reading of the model file: the interpolated Kneser-Ney formula written out.
    const { vocab, trigrams, discount: D } = ref.data;
    const V = vocab.length;
    const id = (w) => vocab.indexOf(w);
    const [a, b] = [id('the'), id('cat')];
    const rows = [];
    for (let k = 0; k < trigrams.length; k += 4) rows.push(trigrams.slice(k, k + 4));
    const pairs = new Set(rows.map((r) => `${r[1]},${r[2]}`));
    const cont = (w) => 1 + [...pairs].filter((pq) => Number(pq.split(',')[1]) === w).length;
    const contTotal = V + pairs.size;
    const p1 = (w) => cont(w) / contTotal;
    const bRows = rows.filter((r) => r[1] === b);
    const n1b = (w) => new Set(bRows.filter((r) => r[2] === w).map((r) => r[0])).size;
    const bTotal = bRows.length;
    const bTypes = new Set(bRows.map((r) => r[2])).size;
    const p2 = (w) => Math.max(n1b(w) - D, 0) / bTotal + ((D * bTypes) / bTotal) * p1(w);
    const abRows = rows.filter((r) => r[0] === a && r[1] === b);
    const abTotal = abRows.reduce((s, r) => s + r[3], 0);
    const c3 = (w) => abRows.filter((r) => r[2] === w).reduce((s, r) => s + r[3], 0);
    const p3 = (w) => Math.max(c3(w) - D, 0) / abTotal + ((D * abRows.length) / abTotal) * p2(w);
    for (const w of ['sat', 'was', 'dog', 'the', '.']) {
      assert(Math.abs(p3(id(w)) - ref.first[id(w)]) < 1e-12, `p(${w} | the cat): by hand ${p3(id(w))}, model ${ref.first[id(w)]}`);
    }
  });
}

// ---------------------------------------------------------------------------

async function engineTests(name, base, ref, heights) {
  let b;
  await test(`${name}: launches`, async () => {
    b = await launchEngine(name);
    console.log(`      ${b.label}`);
  }, 90_000);
  if (!b) return;
  const E = (t) => `${name}: ${t}`;
  const shot = (file) => join(SHOTS, `lesson-${name}-${file}.png`);
  try {
    let lesson;
    await test(E('lesson loads under the CSP header, no console errors or CSP violations'), async () => {
      const csp = (await fetch(base)).headers.get('content-security-policy');
      assert(csp === CSP, `CSP header: ${csp}`);
      lesson = await openPage(b, base);
      const errors = await lesson.errors();
      assert(errors.length === 0, `errors: ${errors.join('; ')}`);
    });
    if (!lesson) return;

    let simdNumbers;
    await test(E(`every worked example on the page: ${CHECK_COUNT} numbers match the course`), async () => {
      const numbers = await lesson.evaluate(READ_NUMBERS);
      assert(numbers.length === CHECK_COUNT, `${numbers.length} live numbers, expected ${CHECK_COUNT}`);
      for (const ex of EXAMPLES) {
        for (const c of ex.checks) {
          const n = numbers.find((x) => x.example === ex.id && x.key === c.key);
          assert(n, `${ex.id}/${c.key} is not on the page`);
          // the course's number, from the one list: compared here by this file's own rule
          assert(n.expected === c.expected && matches(n.computed, c.expected, c.digits), `${ex.id}/${c.key}: course ${c.course} (${c.expected}), live ${n.computed}`);
        }
      }
      const summary = await lesson.evaluate(() => document.getElementById('summary').textContent);
      assert(summary.includes(`All ${CHECK_COUNT} numbers`), `summary: ${summary}`);
      simdNumbers = numbers;
    });

    await test(E('figures load when they near the viewport, not all at once'), async () => {
      const loaded = () => lesson.evaluate(() => [...document.querySelectorAll('main [data-example], main softmax-generate')].filter((el) => el.localName.startsWith('softmax-')).map((el) => el.sm !== null));
      const state = await loaded();
      const lm0 = await lesson.evaluate(() => performance.getEntriesByType('resource').some((r) => r.name.endsWith('lm.json')));
      assert(state.filter(Boolean).length <= 1 && !lm0, `figures far below loaded at once: ${state}, lm.json fetched ${lm0}`);
      await lesson.evaluate(() => {
        const el = document.getElementById('exp-plot');
        el.scrollIntoView();
        return new Promise((r) => (el.sm ? r() : el.addEventListener('load', r, { once: true })));
      });
      const next = await loaded();
      assert(next[0] && !next[next.length - 1], `after scrolling to the first figure: ${next}`);
      await lesson.evaluate(() => {
        const el = document.getElementById('generate');
        // listen before scrolling, and accept a load that already happened: the model may arrive between two calls
        const loaded = new Promise((r) => (el.sm && el.lm ? r() : el.addEventListener('load', r, { once: true })));
        el.scrollIntoView();
        return loaded;
      });
      const lm = await lesson.evaluate(() => performance.getEntriesByType('resource').some((r) => r.name.endsWith('lm.json')));
      assert(lm, 'lm.json was not fetched once the generator came into view');
    });

    await test(E('bug: section 1 explains the 0 of [−100, 0, 50, 2] (float32 underflow) and an all-masked row'), async () => {
      const r = await lesson.evaluate(() => ({
        out: document.getElementById('why-out').textContent,
        chip: document.querySelector('[data-example=positive][data-key=min]').textContent,
      }));
      assert(r.chip === '0 (float32 underflow)', `check: ${r.chip}`);
      // e^(−100 − logsumexp) in double precision: e^−150.000… ≈ 7.2 × 10⁻⁶⁶
      const exact = Math.exp(-100 - (50 + Math.log(1 + Math.exp(-50) + Math.exp(-48) + Math.exp(-150))));
      assert(r.out.includes('float32 stores it as 0') && r.out.includes(`${exact.toExponential(1).split('e')[0]}\u00a0×\u00a010⁻⁶⁶`), `explanation: ${r.out}`);
      await lesson.type('#why-scores', '-inf, -inf', { clear: true });
      await lesson.press('#why-scores', 'End'); // focus stays; the input event ran per key
      const masked = await lesson.evaluate(() => document.getElementById('why-out').textContent);
      assert(/masked/.test(masked) && /NaN/.test(masked), `all masked: ${masked}`);
    });

    await test(E('learner review: section 1 explains +∞ and huge scores without NaN or forty-digit numbers'), async () => {
      const say = async (text) => {
        await lesson.evaluate((t) => {
          const input = document.getElementById('why-scores');
          input.value = t;
          input.dispatchEvent(new Event('input'));
        }, text);
        return lesson.evaluate(() => document.getElementById('why-out').textContent);
      };
      const inf = await say('inf, 0');
      assert(!/NaN/.test(inf) && /exactly 0/.test(inf), `+∞: ${inf}`);
      const huge = await say('1e39, 0');
      // the smallest is e^−(10^39) ≈ 10^−(4.3 × 10^38): said in scientific notation
      assert(!/\d{8}/.test(huge) && huge.includes('10³⁹') && /float32 stores it as 0/.test(huge), `1e39: ${huge}`);
      const back = await say('-100, 0, 50, 2');
      assert(/7\.2\u00a0×\u00a010⁻⁶⁶/.test(back), `back to the course: ${back}`);
    });

    await test(E('learner review: every course → live chip says which number it checks, in view (no tooltip needed)'), async () => {
      const r = await lesson.evaluate(() =>
        Array.from(document.querySelectorAll('.check-line li:not(.head)'), (li) => {
          const lbl = li.querySelector('.lbl');
          const box = lbl?.getBoundingClientRect();
          return { text: lbl?.textContent ?? '', shown: !!box && box.width > 20 && box.height > 5 && getComputedStyle(lbl).clipPath === 'none' };
        }),
      );
      assert(r.length >= 80 && r.every((x) => x.shown && x.text.length > 2), `chips without a visible label: ${JSON.stringify(r.filter((x) => !x.shown).slice(0, 3))} of ${r.length}`);
      const attention = await lesson.evaluate(() => Array.from(document.querySelectorAll('[data-check=attention] .lbl, [data-check=axis] .lbl'), (l) => l.textContent));
      assert(new Set(attention).size === attention.length, `two chips of one line share a label: ${attention}`);
      // on a phone a chip wraps, but the live number keeps its ✓ on its line
      await lesson.setViewport(360, 800);
      const orphans = await lesson.evaluate(() =>
        Array.from(document.querySelectorAll('.check-line li:not(.head)'), (li) => {
          const b = li.querySelector('b').getBoundingClientRect();
          const m = li.querySelector('.mark').getBoundingClientRect();
          return Math.abs(b.bottom - m.bottom) > 4 ? li.textContent : null;
        }).filter(Boolean),
      );
      await lesson.setViewport(1280, 900);
      assert(orphans.length === 0, `at 360 px a ✓ sits on a line of its own: ${orphans.slice(0, 3).join(' | ')} (${orphans.length})`);
    });

    await test(E('the prose follows the figures (e^x plot, temperature, overflow window, sigmoid)'), async () => {
      const before = await lesson.evaluate(() => document.getElementById('exp-probs').textContent);
      assert(before === '0.401, 0.198 and 0.401', `prose before: ${before}`);
      await lesson.evaluate(SHOW, '#exp-plot');
      await lesson.press('#exp-plot >>> [role=slider]', 'PageUp'); // A: 0.707 -> 1.707
      const after = await lesson.evaluate(() => ({ probs: document.getElementById('exp-probs').textContent, scores: document.getElementById('exp-scores').textContent, v: Array.from(document.getElementById('exp-plot').value) }));
      const ref = (() => {
        const e = [Math.exp(1.707), 1, Math.exp(0.707)];
        const s = e[0] + e[1] + e[2];
        return e.map((x) => (x / s).toFixed(3));
      })();
      assert(after.scores === '1.707, 0 and 0.707', `scores in the prose: ${after.scores}`);
      assert(after.probs === `${ref[0]}, ${ref[1]} and ${ref[2]}`, `prose ${after.probs}, double-precision ${ref}`);
      await lesson.evaluate(() => document.querySelector('[data-reset=exp-plot]').click());
      assert((await lesson.evaluate(() => document.getElementById('exp-probs').textContent)) === before, 'reset did not restore the course’s numbers');

      await lesson.evaluate(SHOW, '#bars-dial');
      await lesson.press('#bars-dial >>> input[type=range]', 'Home');
      const cold = await lesson.evaluate(() => ({ t: document.getElementById('temp-t').textContent, top: document.getElementById('temp-top').textContent, story: document.getElementById('temp-story').textContent }));
      assert(cold.t === '0' && cold.top === '1.000' && /greedy/.test(cold.story), `T = 0 in the prose: ${JSON.stringify(cold)}`);
      const coldScaled = await lesson.evaluate(() => document.getElementById('temp-scaled').textContent);
      assert(/infinitely far apart/.test(coldScaled), `at T = 0 the scores become: ${coldScaled}`);
      for (let i = 0; i < 20; i++) await lesson.press('#bars-dial >>> input[type=range]', 'ArrowRight'); // T = 2
      const warm = await lesson.evaluate(() => ({ t: document.getElementById('temp-t').textContent, scaled: document.getElementById('temp-scaled').textContent, top: document.getElementById('temp-top').textContent }));
      assert(warm.t === '2' && warm.scaled === '1, 0.5 and 0' && warm.top === '0.506', `T = 2 in the prose: ${JSON.stringify(warm)}`);

      await lesson.evaluate(() => document.getElementById('overflow-big').scrollIntoView());
      await lesson.evaluate(() => document.getElementById('overflow-big').ready);
      const win = await lesson.evaluate(() => ['overflow-lo', 'overflow-hi', 'overflow-zero'].map((id) => document.getElementById(id).textContent));
      // ln(FLT_MAX) - logsumexp(1000, 1001, 1002); ln(2^-126) - 1002 (smallest normal float32); ln(2^-149) - 1002 (smallest float32)
      const hi = Math.log(3.4028234663852886e38) - (1002 + Math.log(1 + Math.exp(-1) + Math.exp(-2)));
      const lo = Math.log(2 ** -126) - 1002;
      const zero = Math.log(2 ** -149) - 1002;
      const winRef = [lo, hi, zero].map((x) => `−${Math.abs(x).toFixed(1)}`);
      assert(win.join() === winRef.join(), `overflow window in the prose: ${win}, reference ${winRef}`);
    }, 90_000);

    await test(E(`sampler: 1,000 draws with seed 42 equal Node's; T = 0 draws only the top score`), async () => {
      await lesson.evaluate(() => document.getElementById('sampler').scrollIntoView());
      const draws = await lesson.evaluate(async () => {
        const el = document.getElementById('sampler');
        await el.ready;
        el.reset();
        return Array.from(el.draw(1000));
      });
      const diff = draws.findIndex((d, i) => d !== ref.draws[i]);
      assert(draws.length === 1000 && diff < 0, `draw ${diff} differs from Node`);
      const prose = await lesson.evaluate(() => document.getElementById('sampling-counts').textContent);
      const counts = [0, 1, 2].map((k) => ref.draws.filter((d) => d === k).length);
      assert(prose === `1,000 draws: first ${counts[0]}, second ${counts[1]}, third ${counts[2]}`, `prose: ${prose}`);
      await lesson.evaluate(SHOW, '#sampler');
      await lesson.press('#sampler >>> input[type=range]', 'Home');
      const greedy = await lesson.evaluate(() => {
        const el = document.getElementById('sampler');
        el.draw(1000);
        return el.counts;
      });
      assert(greedy[0] === 1000, `T = 0 counts: ${greedy}`);
    });

    await test(E('generator on the page: real words, same text as the model and sampler in Node'), async () => {
      const got = await lesson.evaluate(async () => {
        const el = document.getElementById('generate');
        await el.ready;
        return { value: el.value, words: el.words, steps: el.steps.slice(0, 1) };
      });
      const want = ref.generate('the cat', 24, { seed: 42, temperature: 1 });
      assert(got.value === want, `browser: ${got.value}\nNode:    ${want}`);
      assert(got.words.length === 24, `${got.words.length} words`);
      const d = got.steps[0].probs;
      for (const { word, p } of d) {
        const i = ref.lm.index.get(word);
        assert(i !== undefined, `bar label "${word}" is not a word of the model`);
        assert(Math.abs(p - ref.first[i]) < 2e-6, `p(${word}) = ${p}, Node float64 ${ref.first[i]}`);
      }
      assert(d[0].word === 'was' || d[0].word === 'sat', `top next word after "the cat": ${d[0].word}`);
    });

    await test(E('baseline build (?simd=0): the same numbers, the same draws'), async () => {
      const p = await openPage(b, `${base}?simd=0`);
      assert((await p.evaluate(() => document.documentElement.dataset.simd)) === 'false', 'the baseline build did not run');
      const numbers = await p.evaluate(READ_NUMBERS);
      assert(simdNumbers && numbers.length === simdNumbers.length, 'different count of numbers');
      numbers.forEach((n, i) => assert(matches(n.computed, n.expected, n.digits) && closeF32(n.computed, simdNumbers[i].computed), `${n.example}/${n.key}: baseline ${n.computed}, SIMD ${simdNumbers[i].computed}`));
      const draws = await p.evaluate(async () => {
        const el = document.getElementById('sampler');
        await el.ready;
        return Array.from(el.draw(1000));
      });
      assert(draws.every((x, i) => x === ref.draws[i]), 'baseline draws differ from Node');
      const errors = await p.errors();
      assert(errors.length === 0, `errors: ${errors.join('; ')}`);
      await p.close();
    });

    await test(E('lesson at 1280 and 360 px: no sideways scroll; screenshots'), async () => {
      for (const width of [1280, 360]) {
        const p = await openPage(b, base, { width });
        await p.evaluate(async () => {
          for (const el of [...document.querySelectorAll('main [data-example], main softmax-generate')].filter((e) => e.localName.startsWith('softmax-'))) await el.ready; // every figure drawn
        });
        const m = await p.evaluate(() => ({ h: document.documentElement.scrollHeight, w: innerWidth, over: document.documentElement.scrollWidth - document.documentElement.clientWidth }));
        assert(m.over <= 0, `the page scrolls sideways by ${m.over} px at ${width} px`);
        heights[`${name} ${width}`] = `${m.h}${m.w !== width ? ` (the window is ${m.w} px wide)` : ''}`;
        await p.screenshot({ path: shot(`page-${width}`), fullPage: true });
        await p.close();
      }
      console.log(`      page height: ${heights[`${name} 1280`]} px at 1280, ${heights[`${name} 360`]} px at 360`);
    }, 120_000);

    // ---------- widgets as a lesson author uses them (on the gallery index page) ----------
    let w;
    await test(E('the widget gallery opens'), async () => {
      w = await openPage(b, `${base}widgets/`, { ready: 'main' });
    });
    if (!w) return;
    const add = (tag, attrs = {}, props) => w.evaluate(ADD, [tag, attrs, props]);
    const alerts = (id) => w.evaluate((i) => Array.from(document.getElementById(i).shadowRoot.querySelectorAll('[role=alert] p'), (p) => p.textContent), id);
    const events = (id) => w.evaluate((i) => document.getElementById(i).__events, id);

    await test(E('bug: arrow keys keep every digit (0.707 → Right, Left → 0.707, p(A) 0.401)'), async () => {
      const id = await add('softmax-bars', { scores: '0.707, 0, 0.707', labels: 'A, B, C', steps: '' });
      await w.press(`#${id} >>> .track[role=slider]`, 'ArrowRight');
      await w.press(`#${id} >>> .track[role=slider]`, 'ArrowLeft');
      const r = await w.evaluate((i) => {
        const el = document.getElementById(i);
        return { scores: el.scores, p: el.value[0], shown: el.shadowRoot.querySelector('.bar-row .prob').textContent };
      }, id);
      assert(r.scores[0] === 0.707 && r.scores[2] === 0.707, `scores after Right, Left: ${r.scores}`);
      assert(r.shown === '0.401' && r.p.toFixed(3) === '0.401', `p(A) ${r.p} shown ${r.shown}`);
      const ev = await events(id);
      assert(ev.filter((e) => e.type === 'input').length === 2 && ev.filter((e) => e.type === 'change').length === 2, `events: ${ev.map((e) => e.type)}`);
    });

    await test(E('drag: a point of the e^x plot and a bar follow the mouse, with input then change'), async () => {
      const id = await add('softmax-exp', { scores: '0.707, 0, 0.707' });
      await drag(w, `#${id} >>> [role=slider]`, { index: 1, from: [6, 20], by: [34, 0] }); // pressed near the point B, not on it
      const r = await w.evaluate((i) => ({ z: document.getElementById(i).scores, ev: document.getElementById(i).__events.map((e) => e.type) }), id);
      assert(r.z[1] > 0.3 && r.z[0] === 0.707 && r.z[2] === 0.707, `scores after dragging B right: ${r.z}`);
      assert(r.ev.includes('input') && r.ev[r.ev.length - 1] === 'change', `events: ${r.ev}`);
      const bid = await add('softmax-bars', { scores: '2, 1, 0' });
      const tw = await w.evaluate((i) => document.getElementById(i).shadowRoot.querySelectorAll('.track')[2].getBoundingClientRect().width, bid);
      await drag(w, `#${bid} >>> .track`, { index: 2, from: [0, 0], by: [tw / 5, 0] }); // a fifth of the track: +2
      const z = await w.evaluate((i) => document.getElementById(i).scores, bid);
      assert(Math.abs(z[2] - 2) < 0.05 && z[0] === 2 && z[1] === 1, `bar drag: ${z}`);
    });

    await test(E('bug: tied top scores all get the star; the steps vectors stay on one line at 1280 px'), async () => {
      const id = await add('softmax-bars', { scores: '0.707, 0, 0.707', steps: '' });
      const r = await w.evaluate((i) => {
        const root = document.getElementById(i).shadowRoot;
        const tops = Array.from(root.querySelectorAll('.bar-row'), (row) => row.classList.contains('top'));
        const vecs = Array.from(root.querySelectorAll('.step-list .vec'), (v) => new Set(Array.from(v.children, (c) => Math.round(c.getBoundingClientRect().top))).size);
        return { tops, vecs };
      }, id);
      assert(r.tops.join() === 'true,false,true', `stars: ${r.tops}`);
      assert(r.vecs.length >= 4 && r.vecs.every((n) => n === 1), `chip rows per vector: ${r.vecs}`);
    });

    await test(E('bug: 4.5 × 10⁻⁵ never wraps, at 1280 and 360 px'), async () => {
      const id = await add('softmax-bars', { scores: '2, 0, -1', temperature: '0.3', steps: '' });
      for (const width of [1280, 360]) {
        await w.setViewport(width, 900);
        const r = await w.evaluate((i) => {
          const root = document.getElementById(i).shadowRoot;
          const els = [...root.querySelectorAll('.prob, .chip')].filter((e) => e.textContent.includes('×'));
          return els.map((e) => ({ text: e.textContent, lines: (() => {
            const range = document.createRange();
            range.selectNodeContents(e);
            return new Set(Array.from(range.getClientRects(), (q) => Math.round(q.top))).size;
          })() }));
        }, id);
        assert(r.length > 0 && r.some((x) => x.text.startsWith('4.5')), `no 4.5 × 10⁻⁵ shown: ${JSON.stringify(r)}`);
        assert(r.every((x) => x.lines === 1), `wrapped at ${width} px: ${JSON.stringify(r)}`);
      }
      await w.setViewport(1280, 900);
    });

    await test(E('bug: the textbook float32 sum overflows at shift −913.5 and the panel says so'), async () => {
      const id = await add('softmax-overflow', { scores: '1000, 1001, 1002', shift: '-913.5' });
      const r = await w.evaluate((i) => {
        const el = document.getElementById(i);
        return { naive: Array.from(el.value.naive), verdict: el.shadowRoot.querySelector('.verdict').textContent, sum: el.shadowRoot.querySelectorAll('.naive .line')[1].textContent, hi: el.breaksAbove };
      }, id);
      assert(r.naive.every((p) => p === 0 || Number.isNaN(p)), `naive at 86.5, 87.5, 88.5: ${r.naive}`);
      assert(/overflowed/.test(r.verdict) && !/still/.test(r.verdict), `verdict: ${r.verdict}`);
      assert(r.sum.includes('∞'), `sum line: ${r.sum}`);
      assert(Math.abs(r.hi - -913.6848) < 1e-3, `breaksAbove ${r.hi}`);
      // at 1280 px no vector of the panels breaks across lines ("−2.0000 −1.0000 / 0.0000" did)
      const rows = await w.evaluate((i) => Array.from(document.getElementById(i).shadowRoot.querySelectorAll('.panel .vec'), (v) => new Set(Array.from(v.children, (c) => Math.round(c.getBoundingClientRect().top))).size), id);
      assert(rows.length === 7 && rows.every((n) => n === 1), `chip rows per vector: ${rows}`);
      await w.evaluate((i) => document.getElementById(i).setAttribute('shift', '-914'), id);
      const ok = await w.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('.verdict').textContent, id);
      assert(/still works/.test(ok), `at −914 the textbook formula fits: ${ok}`);
    });

    await test(E('bug: below the float32 normal range the panel says the textbook answer lost digits, not that it is 0 ÷ 0'), async () => {
      const id = await add('softmax-overflow', { scores: '1000, 1001, 1002', shift: '-1100' });
      const at = (shift) =>
        w.evaluate(
          ([i, c]) => {
            const el = document.getElementById(i);
            el.setAttribute('shift', c);
            return { naive: Array.from(el.value.naive), verdict: el.shadowRoot.querySelector('.verdict').textContent, window: el.shadowRoot.querySelector('.window, .help:last-child')?.textContent ?? '', lo: el.losesDigitsBelow, zero: el.breaksBelow };
          },
          [id, String(shift)],
        );
      // the textbook formula in float32, computed here: e^z rounded to float32, their float32 sum, each divided
      const textbook = (shift) => {
        const e = [1000, 1001, 1002].map((z) => Math.fround(Math.exp(z + shift)));
        const sum = Math.fround(e[0] + e[1] + e[2]);
        return e.map((x) => Math.fround(x / sum));
      };
      for (const shift of [-1100, -1105]) {
        const r = await at(shift);
        const ref = textbook(shift);
        assert(ref.every(Number.isFinite) && r.naive.every((p, i) => closeF32(p, ref[i])), `textbook result at ${shift}: ${r.naive}, float32 reference ${ref}`);
        assert(/lost precision/.test(r.verdict) && !/0 ÷ 0/.test(r.verdict), `verdict at ${shift} (finite textbook result ${r.naive}): ${r.verdict}`);
      }
      const gone = await at(-1106);
      assert(gone.naive.every(Number.isNaN) && /underflowed/.test(gone.verdict) && /0 ÷ 0/.test(gone.verdict), `at −1106: ${JSON.stringify(gone)}`);
      const fine = await at(-1000);
      assert(/still works:/.test(fine.verdict), `at −1000: ${fine.verdict}`);
      assert(Math.abs(fine.lo - (Math.log(2 ** -126) - 1002)) < 1e-9 && Math.abs(fine.zero - (Math.log(2 ** -149) - 1002)) < 1e-9, `losesDigitsBelow ${fine.lo}, breaksBelow ${fine.zero}`);
    });

    await test(E('bug: shift 0 does not say "without the 0 added"'), async () => {
      const id = await add('softmax-overflow', { scores: '1, 3', shift: '0' });
      const v = await w.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('.verdict').textContent, id);
      assert(!/without the 0/.test(v) && /Move the shift/.test(v), `verdict: ${v}`);
    });

    await test(E('learner review: a number typed out of range says what the field takes and which value is in use'), async () => {
      const typeInto = (i, sel, text, { blur = false } = {}) =>
        w.evaluate(
          ([id, s, t, b]) => {
            const input = document.getElementById(id).shadowRoot.querySelector(s);
            input.focus();
            input.value = t;
            input.dispatchEvent(new Event('input', { bubbles: true }));
            if (b) input.blur();
            const field = input.closest('.field') ?? input.closest('.body');
            return { value: input.value, invalid: input.getAttribute('aria-invalid'), message: Array.from(field.querySelectorAll('.field-error'), (e) => e.textContent).join('') };
          },
          [i, sel, text, blur],
        );
      const sid = await add('softmax-sampler', { scores: '2, 1, 0', seed: '42' });
      const seedSel = '.filters .field:nth-child(1) input';
      const bad = await typeInto(sid, seedSel, '-1');
      assert(bad.invalid === 'true' && /whole number of 0 or more/.test(bad.message) && /42/.test(bad.message), `seed −1: ${JSON.stringify(bad)}`);
      // the draws still use seed 42: the same first 1,000 as a fresh sampler with seed 42
      const drawn = await w.evaluate((i) => document.getElementById(i).draw(1000).join(''), sid);
      const fresh = await add('softmax-sampler', { scores: '2, 1, 0', seed: '42' });
      assert(drawn === (await w.evaluate((i) => document.getElementById(i).draw(1000).join(''), fresh)), 'an invalid seed changed the draws');
      const left = await typeInto(sid, seedSel, '1.5', { blur: true });
      assert(left.value === '42' && left.invalid === null && left.message === '', `leaving the field shows the seed in use: ${JSON.stringify(left)}`);
      const topP = await typeInto(sid, '.filters .field:nth-child(3) input', '1.5');
      assert(/above 0 up to 1/.test(topP.message), `top-p 1.5: ${JSON.stringify(topP)}`);
      const ok = await typeInto(sid, '.filters .field:nth-child(3) input', '0.9');
      assert(ok.invalid === null && ok.message === '', `top-p 0.9 clears the message: ${JSON.stringify(ok)}`);

      const gid = await add('softmax-generate', { tokens: '12' });
      const many = await typeInto(gid, '.field.tokens input', '500');
      assert(/1 to 200/.test(many.message) && /12/.test(many.message), `500 words: ${JSON.stringify(many)}`);
      const words = await w.evaluate(async (i) => (await document.getElementById(i).ready).words.length, gid);
      assert(words === 12, `still writes 12 words, wrote ${words}`);

      const aid = await add('softmax-attention', {});
      const empty = await typeInto(aid, 'input.cell', '');
      assert(/takes a number/.test(empty.message) && /still use 2/.test(empty.message), `empty cell: ${JSON.stringify(empty)}`);
      const restored = await typeInto(aid, 'input.cell', 'x', { blur: true });
      assert(restored.value === '2' && restored.message === '', `leaving the cell shows the score in use: ${JSON.stringify(restored)}`);
    });

    await test(E('learner review: the sampler counts 1,000 on one line and says why an option cannot come up'), async () => {
      const id = await add('softmax-sampler', { scores: '-inf, 0, 9', 'top-k': '1' });
      for (const width of [1280, 360]) {
        await w.setViewport(width, 900);
        await w.evaluate((i) => {
          const el = document.getElementById(i);
          el.reset();
          el.draw(1000);
        }, id);
        const rows = await w.evaluate((i) =>
          Array.from(document.getElementById(i).shadowRoot.querySelectorAll('.hist-row .prob'), (e) => {
            const r = document.createRange();
            r.selectNodeContents(e);
            return { text: e.textContent, lines: new Set(Array.from(r.getClientRects(), (x) => Math.round(x.top))).size };
          }),
        id);
        assert(rows[2].text === 'p 1.000 · 1,000 drawn' && rows.every((r) => r.lines === 1), `at ${width} px: ${JSON.stringify(rows)}`);
        assert(/masked/.test(rows[0].text) && /filtered out/.test(rows[1].text), `why 0: ${rows.map((r) => r.text)}`);
      }
      await w.setViewport(1280, 900);
    });

    await test(E('learner review: number fields side by side line up, and each legend swatch stays with its words'), async () => {
      for (const tag of ['softmax-sampler', 'softmax-generate']) {
        const id = await add(tag, {});
        for (const width of [1280, 360]) {
          await w.setViewport(width, 900);
          const r = await w.evaluate((i) => {
            const root = document.getElementById(i).shadowRoot;
            const inputs = Array.from(root.querySelectorAll('.filters input'), (x) => x.getBoundingClientRect());
            // fields on one row (same left edge order) have inputs at the same height
            const rows = new Map();
            for (const b of inputs) {
              const key = Math.round(b.bottom / 40);
              rows.set(key, [...(rows.get(key) ?? []), Math.round(b.top)]);
            }
            const legend = Array.from(root.querySelectorAll('.legend-item'), (item) => {
              const k = item.firstElementChild.getBoundingClientRect();
              const range = document.createRange();
              range.selectNodeContents(item.lastChild); // the words
              const rects = Array.from(range.getClientRects());
              const lines = new Set(rects.map((x) => Math.round(x.bottom))).size;
              // the swatch sits beside the words: its middle within their line
              const mid = (k.top + k.bottom) / 2;
              return { lines, keyOnLine: rects.length > 0 && mid >= rects[0].top && mid <= rects[0].bottom };
            });
            return { tops: [...rows.values()], legend };
          }, id);
          assert(r.tops.every((t) => Math.max(...t) - Math.min(...t) <= 1), `${tag} at ${width} px: input tops per row ${JSON.stringify(r.tops)}`);
          assert(r.legend.length === 2 && r.legend.every((l) => l.keyOnLine && l.lines === 1), `${tag} legend at ${width} px: ${JSON.stringify(r.legend)}`);
        }
      }
      await w.setViewport(1280, 900);
    });

    await test(E('learner review: the e^x axis labels do not run together when a score moves far right'), async () => {
      const id = await add('softmax-exp', { scores: '8, 0, 0.707' });
      const boxes = await w.evaluate((i) => Array.from(document.getElementById(i).shadowRoot.querySelectorAll('svg text.axis-label.middle:not(.point-label):not(.on-fill)'), (t) => ({ text: t.textContent, ...JSON.parse(JSON.stringify(t.getBoundingClientRect())) })).filter((b) => b.text !== '÷ sum' && b.width > 0), id);
      const x = boxes.filter((b) => /^[−-]?\d+$/.test(b.text)).sort((a, b) => a.left - b.left);
      assert(x.length >= 5, `x labels: ${x.map((b) => b.text)}`);
      for (let k = 1; k < x.length; k++) assert(x[k].left - x[k - 1].right >= 2, `x labels ${x[k - 1].text} and ${x[k].text} touch: ${x.map((b) => `${b.text}@${Math.round(b.left)}-${Math.round(b.right)}`)}`);
    });

    await test(E('learner review: attention keeps a bad scores attribute on show beside its tokens; 3 tokens take the 4 × 4 pattern’s corner'), async () => {
      const id = await add('softmax-attention', { tokens: 'a b c', scores: '1,2;3' });
      const shown = await alerts(id);
      const fired = (await events(id)).filter((e) => e.type === 'error').map((e) => e.detail.attribute);
      assert(shown.some((m) => m.includes('scores="1,2;3"')) && fired.includes('scores'), `alert ${JSON.stringify(shown)}, error events for ${fired}`);
      const plain = await add('softmax-attention', { tokens: 'a b c' });
      const cells = await w.evaluate((i) => Array.from(document.getElementById(i).shadowRoot.querySelectorAll('input.cell'), (c) => Number(c.value)), plain);
      assert(cells.join() === '2,0.5,0.1,0.4,2.5,1,0.1,1.8,1.2', `3 × 3 default: ${cells}`);
      await w.evaluate((i) => document.getElementById(i).setAttribute('scores', '1 2 3 4'), plain);
      const count = await alerts(plain);
      assert(count.some((m) => /9 numbers, got 4/.test(m)), `count error: ${count}`);
    });

    await test(E('bug: all-masked scores say why they are NaN'), async () => {
      const id = await add('softmax-bars', { scores: '-inf, -inf, -inf' });
      const note = await w.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('.note').textContent, id);
      assert(/masked/.test(note) && /NaN/.test(note), `note: ${note}`);
      const aid = await add('softmax-attention', { tokens: 'a b', scores: '-inf, -inf, 1, 2' });
      const an = await w.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('.note').textContent, aid);
      assert(/−∞/.test(an), `attention note: ${an}`);
    });

    await test(E('bad attributes: a visible alert naming the attribute and what is accepted, and an error event'), async () => {
      const cases = [
        ['softmax-bars', { scores: '2, x, 0' }, 'scores', /entry 2/],
        ['softmax-bars', { scores: '1,2,3,4,5,6,7,8,9,10,11,12,13' }, 'scores', /at most 12/],
        ['softmax-bars', { temperature: 'hot' }, 'temperature', /0 or more/],
        ['softmax-bars', { tempreature: '2' }, 'tempreature', /did you mean "temperature"/],
        ['softmax-bars', { hide: 'colour' }, 'hide', /no control named "colour"/],
        ['softmax-sampler', { 'top-p': '2' }, 'top-p', /above 0 up to 1/],
        ['softmax-sampler', { seed: '-1' }, 'seed', /whole number/],
        ['softmax-generate', { tokens: '0' }, 'tokens', /1 to 200/],
        ['softmax-generate', { 'min-p': 'x' }, 'min-p', /0 to 1/],
        ['softmax-sigmoid', { z: 'two' }, 'z', /−?-?6 to 6/],
        ['softmax-attention', { tokens: 'a b', scores: '1, 2, 3' }, 'scores', /need 4 numbers, got 3/],
        ['softmax-attention', { axis: 'diagonal' }, 'axis', /"rows" or "columns"/],
        ['softmax-exp', { scores: '1' }, 'scores', /2 to 6/],
        ['softmax-overflow', { shift: 'big' }, 'shift', /a number/],
        ['softmax-bars', { strings: '{"nope": 1}' }, 'strings', /unknown key "nope"/],
        ['softmax-bars', { theme: 'neon' }, 'theme', /"dark"/],
      ];
      for (const [tag, attrs, attr, accepted] of cases) {
        const id = await add(tag, attrs);
        const msgs = await alerts(id);
        const ev = (await events(id)).filter((e) => e.type === 'error');
        const msg = msgs.find((m) => m.includes(`"${attr}"`) || m.includes(`${attr}=`));
        assert(msg && accepted.test(msg), `${tag} ${JSON.stringify(attrs)}: alert ${JSON.stringify(msgs)}`);
        assert(ev.some((e) => e.detail.attribute === attr), `${tag} ${JSON.stringify(attrs)}: no error event for ${attr}`);
        const visible = await w.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('[role=alert]').getBoundingClientRect().height > 0, id);
        assert(visible, `${tag}: the alert is not visible`);
      }
      // fixing the attribute clears the message
      const id = await add('softmax-bars', { temperature: 'hot' });
      await w.evaluate((i) => document.getElementById(i).setAttribute('temperature', '2'), id);
      assert((await alerts(id)).length === 0, 'the message stayed after a valid value');
      assert((await w.evaluate((i) => document.getElementById(i).temperature, id)) === 2, 'the valid value was not applied');
    }, 90_000);

    await test(E('adversary: hostile values in every attribute and property of every widget'), async () => {
      const hostile = ['', ' ', 'NaN', 'Infinity', '-Infinity', '1e309', '-0', '1e-400', '999999999999999999999', '2,,1', ',', 'abc', '<img src=x onerror=window.__pwned=1>',
        '{"__proto__": {"polluted": 1}}', '["a"]', 'null', '0x10', '２', `${'9,'.repeat(3000)}9`];
      const r = await w.evaluate(async ([tags, values]) => {
        await import('/components/index.js');
        const out = [];
        let rejected = 0;
        for (const tag of tags) {
          const el = document.createElement(tag);
          el.setAttribute('loading', 'eager');
          document.querySelector('main').append(el);
          await el.ready;
          const names = el.constructor.observedAttributes.filter((n) => n !== 'loading');
          for (const name of names) {
            for (const v of values) {
              el.setAttribute(name, v);
              await el.ready;
              const shown = el.shadowRoot.querySelector('[role=alert]').textContent;
              if (el.errors.length) rejected++;
              if (!shown.includes(name) && el.errors.length) out.push(`${tag} ${name}="${v.slice(0, 20)}": alert does not name it: ${shown.slice(0, 80)}`);
            }
            el.removeAttribute(name);
          }
          el.removeAttribute('loading');
          await el.ready;
          if (el.errors.length) out.push(`${tag}: messages left after removing every attribute: ${el.errors}`);
          const props = { 'softmax-bars': ['scores', 'temperature'], 'softmax-exp': ['scores'], 'softmax-overflow': ['scores', 'shift'], 'softmax-sampler': ['scores'], 'softmax-sigmoid': ['z'], 'softmax-generate': ['prompt'], 'softmax-attention': ['axis'] }[tag];
          for (const prop of props) {
            for (const bad of [NaN, 'x', null, undefined, [1, 'a'], -5, 1e7, [], {}]) {
              const before = JSON.stringify(el[prop]);
              let threw = null;
              try {
                el[prop] = bad;
              } catch (e) {
                threw = e;
              }
              const accepted = !threw;
              if (accepted && JSON.stringify(el[prop]) !== before && !(prop === 'temperature' && bad === 1e7)) {
                // a value that was taken must be a sane one
                if (!(typeof el[prop] === 'number' ? Number.isFinite(el[prop]) : true)) out.push(`${tag}.${prop} = ${String(bad)} accepted as ${el[prop]}`);
              }
              if (threw && !(threw instanceof TypeError || threw instanceof RangeError)) out.push(`${tag}.${prop} = ${String(bad)}: ${threw}`);
              if (threw && !threw.message.includes(prop)) out.push(`${tag}.${prop}: message does not name it: ${threw.message}`);
            }
          }
          await el.ready;
          if (!(el.shadowRoot.querySelector('[part~=frame]').getBoundingClientRect().height > 0)) out.push(`${tag}: no longer drawn`);
          el.remove();
        }
        if (window.__pwned) out.push('markup in an attribute ran');
        if (Object.prototype.polluted) out.push('prototype polluted');
        if (rejected < 200) out.push(`only ${rejected} hostile values were rejected`);
        return out;
      }, [WIDGETS, hostile]);
      assert(r.length === 0, r.slice(0, 12).join('\n'));
      const errors = await w.errors();
      assert(errors.length === 0, `page errors: ${errors.slice(0, 5).join('; ')}`);
    }, 150_000);

    await test(E('hide and lock: controls hidden, or shown but fixed'), async () => {
      const id = await add('softmax-bars', { scores: '2, 1, 0', hide: 'scores temperature', lock: 'bars' });
      const r = await w.evaluate((i) => {
        const root = document.getElementById(i).shadowRoot;
        const vis = (n) => root.querySelector(`[data-control=${n}]`).getBoundingClientRect().height > 0;
        return { scores: vis('scores'), temperature: vis('temperature'), steps: vis('steps'), tab: root.querySelector('.track').tabIndex };
      }, id);
      assert(!r.scores && !r.temperature && r.steps && r.tab === -1, `hide/lock: ${JSON.stringify(r)}`);
      await w.press(`#${id} >>> .track`, 'ArrowRight'); // focus() still reaches it; the key must do nothing
      assert((await w.evaluate((i) => document.getElementById(i).scores[0], id)) === 2, 'a locked bar moved');
      const all = await add('softmax-sampler', { lock: '' });
      const dis = await w.evaluate((i) => Array.from(document.getElementById(i).shadowRoot.querySelectorAll('input, button'), (x) => x.disabled), all);
      assert(dis.length > 5 && dis.every(Boolean), `lock (all): ${dis}`);
    });

    await test(E('strings replace the UI text; numbers follow the page language'), async () => {
      const id = await add('softmax-bars', { scores: '0.707, 0, 0.707', strings: JSON.stringify({ showSteps: 'Schritte zeigen', temperature: 'Temperatur T' }), lang: 'de' });
      const r = await w.evaluate((i) => {
        const root = document.getElementById(i).shadowRoot;
        return { labels: Array.from(root.querySelectorAll('label'), (l) => l.textContent), prob: root.querySelector('.prob').textContent };
      }, id);
      assert(r.labels.includes('Schritte zeigen') && r.labels.includes('Temperatur T'), `labels: ${r.labels}`);
      assert(r.prob === '0,401', `German number: ${r.prob}`);
      await w.evaluate((i) => {
        document.getElementById(i).strings = { showSteps: 'Show the working' };
      }, id);
      const l2 = await w.evaluate((i) => Array.from(document.getElementById(i).shadowRoot.querySelectorAll('label'), (l) => l.textContent), id);
      assert(l2.includes('Show the working') && l2.includes('Temperatur T'), `property strings: ${l2}`);
    });

    await test(E('labels on every widget and every control; dark theme; ::part'), async () => {
      for (const tag of WIDGETS) {
        const id = await add(tag, { theme: 'dark', label: `A ${tag}` });
        const r = await w.evaluate((i) => {
          const el = document.getElementById(i);
          const root = el.shadowRoot;
          const frame = root.querySelector('[part~=frame]');
          const unlabelled = [...root.querySelectorAll('input, button, [role=slider]')].filter((c) => {
            if (c.getAttribute('aria-label') || c.getAttribute('aria-labelledby') || c.textContent.trim()) return false;
            return !(c.id && root.querySelector(`label[for="${c.id}"]`));
          });
          return { name: frame.getAttribute('aria-label'), role: frame.getAttribute('role'), bg: getComputedStyle(frame).backgroundColor, unlabelled: unlabelled.map((c) => c.outerHTML.slice(0, 80)) };
        }, id);
        assert(r.name === `A ${tag}` && r.role === 'group', `${tag}: name ${r.name}`);
        assert(r.unlabelled.length === 0, `${tag}: controls without a label: ${r.unlabelled}`);
        assert(r.bg === 'rgb(22, 27, 34)', `${tag}: dark background ${r.bg}`);
      }
      // the gallery's stylesheet styles a part from outside: softmax-bars.styled::part(bar-fill)
      const id = await add('softmax-bars', { class: 'styled' });
      const radius = await w.evaluate((i) => getComputedStyle(document.getElementById(i).shadowRoot.querySelector('[part=bar-fill]')).borderTopRightRadius, id);
      assert(radius === '5px', `::part(bar-fill) from the page: ${radius}`);
    }, 90_000);

    await test(E('generator: same seed same text, T = 0 greedy whatever the seed, top-k 1, input events'), async () => {
      const id = await add('softmax-generate', { prompt: 'the dog', tokens: '12', seed: '7' });
      const text = () => w.evaluate(async (i) => {
        const el = document.getElementById(i);
        await el.ready;
        return el.value;
      }, id);
      const first = await text();
      assert(first === ref.generate('the dog', 12, { seed: 7, temperature: 1 }), `seed 7: ${first}`);
      await w.evaluate((i) => document.getElementById(i).setAttribute('seed', '8'), id);
      const other = await text();
      assert(other === ref.generate('the dog', 12, { seed: 8, temperature: 1 }) && other !== first, `seed 8: ${other}`);
      await w.evaluate((i) => document.getElementById(i).setAttribute('seed', '7'), id);
      assert((await text()) === first, 'seed 7 again gave another text');
      await w.evaluate((i) => document.getElementById(i).setAttribute('temperature', '0'), id);
      const g1 = await text();
      await w.evaluate((i) => document.getElementById(i).setAttribute('seed', '12345'), id);
      const g2 = await text();
      const greedy = ref.greedy('the dog', 12);
      assert(g1 === greedy && g2 === greedy, `T = 0: ${g1} / ${g2}; float64 argmax: ${greedy}`);
      await w.evaluate((i) => {
        const el = document.getElementById(i);
        el.setAttribute('temperature', '1');
        el.setAttribute('top-k', '1');
      }, id);
      await text();
      const kept = await w.evaluate((i) => document.getElementById(i).steps.map((s) => s.kept), id);
      assert(kept.every((k) => k === 1), `top-k 1 keeps ${kept}`);
      // the reader types: input fires once the new text is complete, with .value already the new text
      await w.evaluate((i) => {
        const el = document.getElementById(i);
        el.removeAttribute('top-k');
        el.__events.length = 0;
        el.addEventListener('input', () => el.__events.push({ type: 'value', detail: el.value }));
      }, id);
      await w.press(`#${id} >>> input[type=text]`, 'End');
      await w.type(`#${id} >>> input[type=text]`, ' sat');
      await text();
      const ev = await events(id);
      const want = ref.generate('the dog sat', 12, { seed: 12345, temperature: 1 });
      const values = ev.filter((e) => e.type === 'value').map((e) => e.detail);
      assert(values.length >= 1 && values[values.length - 1] === want, `input events saw ${JSON.stringify(values)}; want ${want}`);
    }, 90_000);

    if (name === 'chromium') {
      // motion allowed: a Chromium of its own (every engine of the suite prefers reduced motion)
      await test(E('generator writes word by word when motion is allowed, all at once under reduced motion'), async () => {
        const own = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
        const p = await (await own.newContext({ reducedMotion: 'no-preference' })).newPage();
        await p.goto(`${base}widgets/`);
        const seen = await p.evaluate(async () => {
          await import('/components/index.js');
          const el = document.createElement('softmax-generate');
          el.setAttribute('tokens', '20');
          el.setAttribute('loading', 'eager');
          document.querySelector('main').append(el);
          const counts = [];
          const t0 = performance.now();
          while (performance.now() - t0 < 5000) {
            counts.push(el.shadowRoot.querySelectorAll('.tok').length);
            if (counts[counts.length - 1] === 20) break;
            await new Promise((r) => setTimeout(r, 20));
          }
          await el.ready;
          return counts;
        });
        assert(seen.some((n) => n > 0 && n < 20), `never saw a partial text: ${seen.join(',')}`);
        await own.close();
      });
    }

    await test(E('gallery pages: each loads alone, no errors, nothing clipped, screenshots at 1280 and 360 px'), async () => {
      for (const page of ['index', ...WIDGETS]) {
        const p = await openPage(b, `${base}widgets/${page}.html`, { ready: 'main' });
        // gallery.js gives each snippet a Copy button (WebKit may run it after the load event)
        await p.waitFor(() => document.querySelectorAll('pre.snippet').length === document.querySelectorAll('.snippet-wrap button.copy').length, { timeout: 10_000 });
        await p.evaluate(() => Promise.all([...document.querySelectorAll('main *')].filter((e) => e.localName.startsWith('softmax-')).map((e) => e.ready)).then(() => true));
        if (page === 'softmax-bars') {
          await p.press('button.copy', 'Enter'); // the keyboard path: WebKit's WebDriver click did not reach it
          const label = await p.waitFor(() => document.querySelector('button.copy').textContent !== 'Copy' && document.querySelector('button.copy').textContent, { timeout: 5000 });
          assert(label === 'Copied' || label.startsWith('Selected'), `the copy button says ${label}`);
        }
        if (page !== 'index') {
          // one script tag: the widget's own file defines it, and only it
          const defined = await p.evaluate((tags) => tags.filter((t) => customElements.get(t)), WIDGETS);
          assert(defined.length === 1 && defined[0] === page, `${page}.html defines ${defined}`);
        }
        for (const width of [1280, 360]) {
          await p.setViewport(width, 900);
          const r = await p.evaluate(() => ({
            copy: document.querySelectorAll('pre.snippet').length === document.querySelectorAll('.snippet-wrap button.copy').length,
            over: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            clipped: Array.from(document.querySelectorAll('pre'), (x) => x.scrollWidth - x.clientWidth).filter((d) => d > 1),
          }));
          assert(r.over <= 0 && r.clipped.length === 0 && r.copy, `${page} at ${width}: sideways ${r.over}, clipped snippets ${r.clipped}, a copy button per snippet ${r.copy}`);
          await p.screenshot({ path: join(SHOTS, `gallery-${name}-${page}-${width}.png`), fullPage: true });
        }
        const errors = await p.errors();
        assert(errors.length === 0, `${page}: errors ${errors}`);
        await p.close();
      }
    }, 150_000);

    await test(E('a page opened from file:// works, or says how to serve it'), async () => {
      const p = await openPage(b, pathToFileURL(join(WEB_ROOT, 'demo', 'index.html')).href, { ready: null });
      await new Promise((r) => setTimeout(r, 1500));
      const r = await p.evaluate(() => ({
        works: document.documentElement.dataset.failures === '0', // Firefox runs modules and fetches the wasm from file://
        text: [document.getElementById('build').textContent, document.getElementById('load-error').hidden ? '' : document.getElementById('load-error').textContent].join(' '),
        prose: document.querySelector('#why p').getBoundingClientRect().height > 0,
      }));
      assert(r.prose, 'the lesson text is not shown');
      assert(r.works || /npm start/.test(r.text), `neither working nor a visible hint: ${r.text}`);
      console.log(`      ${r.works ? 'the page works from file://' : 'the page says: npm start'}`);
      await p.close();
    });

    const sum = await lesson.evaluate(() => document.documentElement.dataset.failures);
    assert(sum === '0', `the lesson reports ${sum} failures`);
    await w.close();
    await lesson.close();
  } finally {
    openPages.length = 0;
    await b.close();
  }
}

async function main() {
  assert(existsSync(join(WEB_ROOT, 'dist', 'softmax-simd.wasm')), 'web/dist is missing: run npm run build first');
  mkdirSync(SHOTS, { recursive: true });
  const ref = await references();
  await nodeChecks(ref);
  const server = await startServer({ port: 0 });
  const base = `${server.url}demo/`;
  console.log(`serving ${WEB_ROOT} at ${server.url} with CSP: ${CSP}`);
  const heights = {};
  try {
    for (const name of await engineNames()) if (!only || only === name) await engineTests(name, base, ref, heights);
  } finally {
    await server.close();
  }
}

await runSuite(main);
