// One API over three browser engines, for the real-browser tests:
//   chromium  Debian's Chromium (V8), headless, driven by playwright-core;
//   firefox   Firefox ESR (SpiderMonkey), headless, puppeteer-core over WebDriver BiDi;
//   webkit    WebKitGTK's MiniBrowser (JavaScriptCore) under its own Xvfb, driven by
//             WebKitWebDriver over plain W3C WebDriver (fetch() calls, no client library).
//
//   import { launch } from './engines.mjs';
//   const browser = await launch('webkit');               // 'chromium' | 'firefox' | 'webkit'
//   try {
//     const page = await browser.open(url, { width: 1280, height: 900 });   // resolves after 'load'
//     await page.waitFor(() => document.documentElement.dataset.ready);    // polls in the page
//     const sum = await page.evaluate(async (a, b) => a + b, 1, 2);       // 3
//     await page.click('#sampler >>> button', { text: 'Draw 1,000' });     // a real pointer click
//     await page.press('#bars-temp >>> input[type=range]', 'Home');        // focus, then a real key
//     await page.type('#sampler >>> input[type=number]', '1', { index: 1, clear: true });
//     await page.fill('#sampler >>> input[type=range]', '10');            // value + input/change events
//     const { width } = await page.setViewport(360, 900);                // the size it got
//     await page.screenshot({ path: 'shot.png', fullPage: true });         // or { selector } for one element
//     const errors = await page.errors();                                 // [] when all is well
//     await page.close();
//   } finally {
//     await browser.close();                               // ends every process it started
//   }
//
// launch(name, { executablePath }) resolves to a browser with
//   name        'chromium' | 'firefox' | 'webkit'
//   label       e.g. 'WebKit 2.50.6 (JavaScriptCore; MiniBrowser over WebDriver, under Xvfb)'
//   minViewportWidth  the narrowest viewport it can show (0 where there is no limit)
//   open(url, { width = 1280, height = 900 })  a new page (tab or window) of its own,
//               resolved after the load event
//   close()     ends every process the engine started. Call it in a finally. If Node ends
//               without it (an uncaught error, a signal, even SIGKILL), the processes still
//               go: Playwright and Puppeteer kill their browsers on exit, and each WebKit
//               process group (Xvfb; WebKitWebDriver with MiniBrowser) is led by a guard
//               shell that kills the group when its stdin pipe from Node closes.
// A page has
//   evaluate(fn, ...args)  runs fn(...args) in the page and resolves to its (awaited) result.
//       fn is sent as source text: a self-contained function, no closures. Arguments and
//       the result go through JSON, with NaN, +-Infinity, -0, undefined, BigInt kept and
//       typed arrays turned into plain arrays. A throw in the page rejects with its message.
//       The page's Content Security Policy does not apply to fn itself (it is the driver's
//       code), but does apply to what fn does (inserting an inline <style>, say).
//   waitFor(fn, { args = [], timeout = 30000 })  calls fn(...args) in the page every 25 ms
//       and resolves to its first truthy (awaited) result; throws after timeout ms.
//   click(selector, { text, index })  scrolls to the element and clicks its centre.
//   press(selector, key, { text, index })  focuses the element and presses a key:
//       one character or a name: Enter Tab Escape Backspace Delete Home End PageUp PageDown
//       ArrowLeft ArrowRight ArrowUp ArrowDown.
//   type(selector, text, { clear, text, index })  focuses and types key by key (clear: empty
//       the field first).
//   fill(selector, value, { text, index })  sets .value and fires input and change, as a
//       script would (for range inputs and other fields that are not typed into).
//   setViewport(width, height)  resolves to the { width, height } the page really got
//       (WebKit: MiniBrowser's window has a minimum width, see minViewportWidth).
//   screenshot({ path, selector, text, index, fullPage })  a PNG Buffer (of the viewport, the
//       whole page, or one element scrolled into view), also written to path if given.
//   errors()  what went wrong in the page so far, as strings: console errors, uncaught
//       exceptions and rejections, Content-Security-Policy violations, failed loads.
//   close()
// An element is the first match of the CSS selector whose text contains `text` (if given),
// or the index-th such match. Each part of a selector is looked for in the document and in
// every open shadow root; ' >>> ' steps from a match into its subtree and shadow roots
// ('#sampler >>> button': a button inside the widget whose id is sampler).
//
// Engine notes.
// - Every engine prefers reduced motion (Chromium: emulated; Firefox: a profile pref;
//   WebKit: GTK's gtk-enable-animations=false), so screenshots do not catch transitions.
// - WebKit has no init script in classic WebDriver, and MiniBrowser ignores its
//   console-to-stdout setting under automation: errors are watched from the moment open()
//   resolves. Before that, open() can only look for stylesheets and images that did not
//   load; an exception thrown while the page loads is not seen (check the page's own
//   ready signal too).
// - WebKit: MiniBrowser's window cannot be narrower than its toolbar (447 px here), so a
//   narrower setViewport() gets minViewportWidth; the caller sees it in the result.
// - WebKit: a screenshot is of the viewport; fullPage grows the window to the page's
//   height for the shot, then restores it. WebKitWebDriver's element screenshot is cut
//   from the wrong place, so an element is cut out of a viewport shot instead.
// - WebKit: navigation can return before a page's module scripts have defined its custom
//   elements; wait for them (waitFor(() => customElements.get('softmax-bars'))).
// - WebKit: each page is a window of its own; one idle window stays open for the session.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ENGINES = ['chromium', 'firefox', 'webkit'];
const WEBKIT_CONFIG = fileURLToPath(new URL('webkit-config/', import.meta.url));

const PATHS = {
  chromium: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  firefox: process.env.FIREFOX_PATH || '/usr/bin/firefox-esr',
  webkit: process.env.MINIBROWSER_PATH || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
};

/** Launches one engine; see the top of this file. */
export async function launch(name, { executablePath = PATHS[name] } = {}) {
  if (name === 'chromium') return launchChromium(executablePath);
  if (name === 'firefox') return launchFirefox(executablePath);
  if (name === 'webkit') return launchWebKit(executablePath);
  throw new RangeError(`launch: name must be one of ${ENGINES.join(', ')}, got ${String(name)}`);
}

// ---------------------------------------------------------------------------
// What runs in the page. Each is self-contained: its source text is sent.

/** Records errors on window.__engineErrors; `all` adds console.error and uncaught errors. */
const WATCH = (all) => {
  if (window.__engineErrors) return;
  const errors = (window.__engineErrors = []);
  document.addEventListener('securitypolicyviolation', (e) => errors.push(`csp: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'}`));
  if (!all) return;
  const text = (v) => {
    if (!(v instanceof Error)) return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
    const head = `${v.name}: ${v.message}`;
    return v.stack && /[^@\s]/.test(v.stack) ? (v.stack.startsWith(head) ? v.stack : `${head}\n${v.stack}`) : head;
  };
  const consoleError = console.error;
  console.error = (...args) => {
    errors.push(`console: ${args.map(text).join(' ')}`);
    return consoleError.apply(console, args);
  };
  window.addEventListener(
    'error',
    (e) => {
      // A widget's own error event (a CustomEvent: an attribute it rejects, shown to
      // the reader on purpose) is neither a failed load nor an uncaught error.
      if (e instanceof CustomEvent) return;
      const t = e.target;
      if (t instanceof Element) errors.push(`failed to load: <${t.localName}> ${t.src || t.href || ''}`.trim());
      else errors.push(`uncaught: ${e.error ? text(e.error) : e.message}`);
    },
    true,
  );
  window.addEventListener('unhandledrejection', (e) => errors.push(`unhandled rejection: ${text(e.reason)}`));
};

/** Stylesheets and images that did not load (what can still be seen after the fact). */
const LOAD_AUDIT = () => [
  ...Array.from(document.querySelectorAll('link[rel~=stylesheet]'), (l) => (l.sheet ? null : `failed to load: stylesheet ${l.href}`)),
  ...Array.from(document.images, (i) => (i.complete && i.naturalWidth === 0 && i.src ? `failed to load: image ${i.src}` : null)),
].filter(Boolean);

/** The element for (selector, text, index), or null; ' >>> ' steps into shadow roots. */
const FIND = (selector, text, index) => {
  // Matches of sel in root and in every open shadow root inside it, at any depth.
  const deep = (root, sel, out) => {
    for (const el of root.querySelectorAll(sel)) out.add(el);
    const hosts = root instanceof Element ? [root, ...root.querySelectorAll('*')] : root.querySelectorAll('*');
    for (const el of hosts) if (el.shadowRoot) deep(el.shadowRoot, sel, out);
    return out;
  };
  let scope = [document];
  for (const part of selector.split('>>>')) {
    const found = new Set();
    for (const root of scope) deep(root, part.trim(), found);
    scope = [...found];
  }
  const all = scope.filter((e) => text == null || e.textContent.includes(text));
  return all[index ?? 0] ?? null;
};

// JSON that keeps what plain JSON loses: NaN, +-Infinity, -0, undefined and BigInt
// (tagged); typed arrays become arrays. Used on both sides, so self-contained.
function replacer(k, v) {
  const tag = '$engines';
  if (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))) return { [tag]: Object.is(v, -0) ? '-0' : String(v) };
  if (typeof v === 'bigint') return { [tag]: 'bigint', value: String(v) };
  if (v === undefined) return { [tag]: 'undefined' };
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v);
  return v;
}
function reviver(k, v) {
  const tag = '$engines';
  if (!v || typeof v !== 'object' || !(tag in v)) return v;
  return v[tag] === 'undefined' ? undefined : v[tag] === 'bigint' ? BigInt(v.value) : Number(v[tag]);
}

/** Calls fn(...args) and returns { ok } or { error } as JSON text (see replacer). */
const CALL = async (fn, argsJson, replacer, reviver) => {
  try {
    return JSON.stringify({ ok: await fn(...JSON.parse(argsJson, reviver)) }, replacer);
  } catch (e) {
    return JSON.stringify({ error: String(e?.message ?? e), stack: String(e?.stack ?? '') });
  }
};

/** Polls fn(...args) until it is truthy; throws after timeout ms. */
const POLL = async (fn, args, timeout) => {
  const start = performance.now();
  for (;;) {
    const v = await fn(...args);
    if (v) return v;
    if (performance.now() - start > timeout) throw new Error(`waitFor: still falsy after ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

function decodeResult(json, engine) {
  const r = JSON.parse(json, reviver);
  if ('error' in r) {
    const err = new Error(`in the page (${engine}): ${r.error}`);
    err.pageStack = r.stack;
    throw err;
  }
  return r.ok;
}

/** The source of an expression that calls fn(...args) in the page and evaluates to CALL's JSON text. */
function callExpression(fn, args) {
  const src = typeof fn === 'function' ? fn.toString() : String(fn);
  return `(${CALL})((${src}), ${JSON.stringify(JSON.stringify(args, replacer))}, ${replacer}, ${reviver})`;
}

function checkViewport(fn, width, height) {
  for (const [k, v] of [['width', width], ['height', height]]) {
    if (!Number.isInteger(v) || v < 1 || v > 16384) throw new RangeError(`${fn}: ${k} must be an integer from 1 to 16384, got ${v}`);
  }
}

const findExpression = (selector, text, index) => `(${FIND})(${JSON.stringify(selector)}, ${JSON.stringify(text ?? null)}, ${JSON.stringify(index ?? 0)})`;
const describeElement = (selector, text, index) =>
  `no element matches ${JSON.stringify(selector)}${text != null ? ` with text ${JSON.stringify(text)}` : ''}${index ? ` at index ${index}` : ''}`;

const KEY_NAMES = ['Enter', 'Tab', 'Escape', 'Backspace', 'Delete', 'Home', 'End', 'PageUp', 'PageDown', 'ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'];
function checkKeys(fn, list) {
  for (const key of list) {
    if (!(typeof key === 'string' && ([...key].length === 1 || KEY_NAMES.includes(key)))) {
      throw new RangeError(`${fn}: a key must be one character or one of ${KEY_NAMES.join(', ')}, got ${JSON.stringify(key)}`);
    }
  }
}

/**
 * A page over one driver's primitives:
 *   run(expression) -> the expression's value (a string: CALL's JSON text)
 *   element(selector, text, index) -> the driver's handle, or throws
 *   click(handle), keys([key...]), shot({ fullPage, handle }) -> PNG Buffer,
 *   resize(width, height), driverErrors() -> [string], close().
 */
function makePage(engine, d) {
  const evaluate = async (fn, ...args) => decodeResult(await d.run(callExpression(fn, args)), engine);
  // Runs body(element, ...rest) in the page on the element (selector, text, index).
  const onElement = (selector, { text, index } = {}, body, ...rest) =>
    evaluate(
      `(s, t, i, ...rest) => {
        const el = (${FIND})(s, t, i);
        if (!el) throw new Error(${JSON.stringify(describeElement(selector, text, index))});
        return (${body})(el, ...rest);
      }`,
      selector,
      text ?? null,
      index ?? 0,
      ...rest,
    );
  return {
    engine,
    evaluate,
    async waitFor(fn, { args = [], timeout = 30_000 } = {}) {
      const src = typeof fn === 'function' ? fn.toString() : String(fn);
      return evaluate(`(...a) => (${POLL})((${src}), a, ${Number(timeout)})`, ...args);
    },
    async click(selector, { text, index } = {}) {
      await onElement(selector, { text, index }, (el) => el.scrollIntoView({ block: 'center', inline: 'center' }));
      await d.click(await d.element(selector, text, index));
    },
    async press(selector, key, { text, index } = {}) {
      checkKeys('press', [key]);
      await onElement(selector, { text, index }, (el) => el.focus());
      await d.keys([key]);
    },
    async type(selector, value, { clear = false, text, index } = {}) {
      const list = Array.from(String(value));
      checkKeys('type', list);
      await onElement(selector, { text, index }, (el, c) => {
        el.focus();
        if (c) el.value = '';
      }, clear);
      await d.keys(list);
    },
    async fill(selector, value, { text, index } = {}) {
      await onElement(selector, { text, index }, (el, v) => {
        el.value = v;
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }, String(value));
    },
    async setViewport(width, height) {
      checkViewport('setViewport', width, height);
      await d.resize(width, height);
      return evaluate(() => new Promise((r) => requestAnimationFrame(() => r({ width: innerWidth, height: innerHeight }))));
    },
    async screenshot({ path, selector, text, index, fullPage = false } = {}) {
      let handle = null;
      if (selector) {
        await onElement(selector, { text, index }, (el) => el.scrollIntoView({ block: 'start' }));
        handle = await d.element(selector, text, index);
      }
      const png = await d.shot({ fullPage, handle });
      if (path) writeFileSync(path, png);
      return png;
    },
    async errors() {
      const inPage = await evaluate(() => window.__engineErrors ?? []).catch((e) => [`errors(): ${e.message}`]);
      return [...d.driverErrors(), ...inPage];
    },
    close: () => d.close(),
  };
}

/** What every engine does after the load event: the load audit joins the driver's errors. */
async function opened(page, errors) {
  errors.push(...(await page.evaluate(LOAD_AUDIT)));
  return page;
}

/** A page's primitives over a playwright-core or puppeteer-core page: the calls used here agree. */
function libraryDriver(page, { resize, close }) {
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`failed to load: ${r.url()} (${r.failure()?.errorText})`));
  return {
    errors,
    run: (expr) => page.evaluate(expr),
    async element(selector, text, index) {
      const el = (await page.evaluateHandle(findExpression(selector, text, index))).asElement();
      if (!el) throw new Error(describeElement(selector, text, index));
      return el;
    },
    click: (el) => el.click(),
    async keys(list) {
      for (const k of list) await page.keyboard.press(k);
    },
    shot: async ({ fullPage, handle }) => Buffer.from(handle ? await handle.screenshot() : await page.screenshot({ fullPage })),
    resize,
    driverErrors: () => errors,
    close,
  };
}

// ---------------------------------------------------------------------------
// Chromium: playwright-core, a browser context per page.

async function launchChromium(executablePath) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    name: 'chromium',
    label: `Chromium ${browser.version()} (V8; playwright-core)`,
    minViewportWidth: 0,
    async open(url, { width = 1280, height = 900 } = {}) {
      checkViewport('open', width, height);
      const context = await browser.newContext({ viewport: { width, height }, reducedMotion: 'reduce' });
      try {
        await context.addInitScript(`(${WATCH})(false)`);
        const page = await context.newPage();
        const d = libraryDriver(page, { resize: (w, h) => page.setViewportSize({ width: w, height: h }), close: () => context.close() });
        await page.goto(url, { waitUntil: 'load' });
        return await opened(makePage('chromium', d), d.errors);
      } catch (err) {
        await context.close().catch(() => {});
        throw err;
      }
    },
    close: () => browser.close(),
  };
}

// ---------------------------------------------------------------------------
// Firefox ESR: puppeteer-core over WebDriver BiDi, a tab per page.

async function launchFirefox(executablePath) {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath,
    headless: true,
    protocol: 'webDriverBiDi',
    timeout: 60_000,
    extraPrefsFirefox: { 'ui.prefersReducedMotion': 1 },
  });
  const version = (await browser.version()).replace(/^firefox\//i, '');
  return {
    name: 'firefox',
    label: `Firefox ${version} (SpiderMonkey; puppeteer-core over WebDriver BiDi)`,
    minViewportWidth: 0,
    async open(url, { width = 1280, height = 900 } = {}) {
      checkViewport('open', width, height);
      const page = await browser.newPage();
      try {
        const d = libraryDriver(page, { resize: (w, h) => page.setViewport({ width: w, height: h }), close: () => page.close() });
        await page.setViewport({ width, height });
        await page.evaluateOnNewDocument(`(${WATCH})(false)`);
        await page.goto(url, { waitUntil: 'load' });
        return await opened(makePage('firefox', d), d.errors);
      } catch (err) {
        await page.close().catch(() => {});
        throw err;
      }
    },
    close: () => browser.close(),
  };
}

// ---------------------------------------------------------------------------
// WebKit: Xvfb + WebKitWebDriver + MiniBrowser, a window per page, plain WebDriver.

const WD_KEYS = {
  Enter: '\uE007', Tab: '\uE004', Escape: '\uE00C', Backspace: '\uE003', Delete: '\uE017', Home: '\uE011', End: '\uE010',
  PageUp: '\uE00E', PageDown: '\uE00F', ArrowLeft: '\uE012', ArrowUp: '\uE013', ArrowRight: '\uE014', ArrowDown: '\uE015',
};
const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Process groups still alive; the exit hook ends them.
const liveGroups = new Set();
let hooked = false;
function killEverything() {
  for (const pgid of liveGroups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {}
  }
  liveGroups.clear();
}
function hookExit() {
  if (hooked) return;
  hooked = true;
  process.on('exit', killEverything);
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
    process.once(signal, () => {
      killEverything();
      process.exit(code);
    });
  }
}

/** Starts a program as the leader of a new process group, so that ending the group ends its children. */
// A guard shell leads the group: it runs the program, and when its stdin (a pipe from
// this process) reaches end of file, because Node ended in any way (even SIGKILL, where no
// exit hook runs), it kills the whole group.
const GUARD = 'exec 4<&0; "$@" 4<&- </dev/null & cmd=$!; (read -r _ <&4; kill -KILL 0) & wait "$cmd"';
function spawnGroup(command, args, options) {
  const stdio = ['pipe', ...options.stdio.slice(1)];
  const child = spawn('sh', ['-c', GUARD, 'guard', command, ...args], { ...options, stdio, detached: true });
  liveGroups.add(child.pid);
  child.stderrTail = '';
  child.stderr?.on('data', (b) => (child.stderrTail = (child.stderrTail + b).slice(-2000)));
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  child.once('error', () => {}); // a missing program shows up as exited (ENOENT) below
  return child;
}

async function endGroup(child) {
  if (!child?.pid) return;
  const pgid = child.pid;
  const alive = () => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const [signal, waitMs] of [['SIGTERM', 5000], ['SIGKILL', 3000]]) {
    if (!alive()) break;
    try {
      process.kill(-pgid, signal);
    } catch {}
    for (let t = 0; t < waitMs && alive(); t += 50) await sleep(50);
  }
  liveGroups.delete(pgid);
}

/** Resolves when `ready()` does, or rejects when the process exits or time runs out. */
async function until(child, what, ready, timeoutMs) {
  let exited = null;
  child.exited.then((c) => (exited = c));
  const start = Date.now();
  for (;;) {
    const v = await ready();
    if (v != null) return v;
    if (exited !== null || child.exitCode !== null) throw new Error(`${what} exited (${exited ?? child.exitCode}): ${child.stderrTail.trim() || 'no message'}`);
    if (Date.now() - start > timeoutMs) throw new Error(`${what} not ready after ${timeoutMs} ms: ${child.stderrTail.trim()}`);
    await sleep(50);
  }
}

async function startXvfb() {
  // -displayfd: the server picks a free display and writes its number to fd 3.
  const xvfb = spawnGroup('Xvfb', ['-displayfd', '3', '-screen', '0', '1920x1200x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let out = '';
  xvfb.stdio[3].on('data', (b) => (out += b));
  const display = await until(xvfb, 'Xvfb', () => (/^\d+\n/.test(out) ? Number.parseInt(out, 10) : null), 15_000);
  return { xvfb, display };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function launchWebKit(binary) {
  hookExit();
  let xvfb;
  let driver;
  let session;
  const cleanup = async () => {
    if (session) await session.end();
    await endGroup(driver);
    await endGroup(xvfb);
  };
  try {
    let display;
    ({ xvfb, display } = await startXvfb());
    const port = await freePort();
    driver = spawnGroup('WebKitWebDriver', [`--port=${port}`, '--host=127.0.0.1'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      // webkit-config/gtk-3.0/settings.ini turns GTK's animations off: prefers-reduced-motion.
      env: { ...process.env, DISPLAY: `:${display}`, XDG_CONFIG_HOME: WEBKIT_CONFIG, NO_AT_BRIDGE: '1' },
    });
    const base = `http://127.0.0.1:${port}`;
    await until(driver, 'WebKitWebDriver', () => fetch(`${base}/status`).then((r) => (r.ok ? true : null), () => null), 15_000);
    session = await WebDriverSession.create(base, binary);
    return await session.browser(cleanup);
  } catch (err) {
    await cleanup();
    throw err;
  }
}

class WebDriverSession {
  static async create(base, binary) {
    const s = new WebDriverSession(base);
    const value = await s.command('POST', '/session', {
      capabilities: {
        alwaysMatch: {
          browserName: 'MiniBrowser',
          'webkitgtk:browserOptions': { binary, args: ['--automation'] },
          pageLoadStrategy: 'normal',
          timeouts: { script: 300_000, pageLoad: 60_000, implicit: 0 },
        },
      },
    });
    s.id = value.sessionId;
    s.version = value.capabilities.browserVersion;
    s.home = await s.command('GET', `/session/${s.id}/window`);
    s.current = s.home;
    return s;
  }

  constructor(base) {
    this.base = base;
    this.queue = Promise.resolve();
    this.frame = { width: 0, height: 0 };
  }

  async command(method, path, body, timeoutMs = 330_000) {
    const res = await fetch(this.base + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const json = await res.json().catch(() => ({}));
    if (!res.ok) {
      const v = json.value ?? {};
      throw new Error(`WebKit WebDriver ${method} ${path.replace(/^\/session\/[^/]+/, '')}: ${v.error ?? `HTTP ${res.status}`}: ${v.message ?? ''}`);
    }
    return json.value;
  }

  /** Runs body() with `handle` as the current window; one at a time. */
  inWindow(handle, body) {
    const run = async () => {
      if (this.current !== handle) {
        await this.command('POST', `/session/${this.id}/window`, { handle });
        this.current = handle;
      }
      return body();
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => {});
    return p;
  }

  s(path) {
    return `/session/${this.id}${path}`;
  }

  /** The value of an expression in the current window (which may be a promise). */
  evaluate(expression, args = []) {
    return this.command('POST', this.s('/execute/async'), {
      script: `const done = arguments[arguments.length - 1];
        Promise.resolve().then(() => ${expression}).then(done, (e) => done(JSON.stringify({ error: String((e && e.message) || e) })));`,
      args,
    });
  }

  /** Sets the window so that the viewport is width x height, as near as the window allows. */
  async resize(width, height) {
    // The window is the viewport plus MiniBrowser's toolbar (this.frame, learnt at launch);
    // a second try corrects what the first got wrong, unless the window is at its minimum width.
    let rect = { width: width + this.frame.width, height: height + this.frame.height };
    for (let i = 0; i < 3; i++) {
      const got = await this.command('POST', this.s('/window/rect'), rect);
      const [w, h] = await this.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r([innerWidth, innerHeight]))))');
      if (h === height && (w === width || got.width > rect.width)) return;
      rect = { width: Math.max(got.width, rect.width) + (width - w), height: rect.height + (height - h) };
    }
  }

  /** Runs in the idle home window: crops a PNG (base64) to x, y, w, h with a canvas. */
  crop(png, [x, y, w, h]) {
    return this.inWindow(this.home, () =>
      this.command('POST', this.s('/execute/async'), {
        script: `const [png, x, y, w, h, done] = arguments;
          const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
          createImageBitmap(new Blob([bytes], { type: 'image/png' })).then((img) => {
            const canvas = document.createElement('canvas');
            canvas.width = w;
            canvas.height = h;
            canvas.getContext('2d').drawImage(img, x, y, w, h, 0, 0, w, h);
            done(canvas.toDataURL('image/png').slice('data:image/png;base64,'.length));
          }, (e) => done('error: ' + e));`,
        args: [png, x, y, w, h],
      }),
    );
  }

  async screenshot({ fullPage, handle }) {
    if (handle) {
      // WebKitWebDriver's own element screenshot is cut from the wrong place (a black band
      // on top), so the element's box is cut from a viewport shot instead.
      const box = await this.command('POST', this.s('/execute/sync'), {
        script: `const r = arguments[0].getBoundingClientRect(), d = devicePixelRatio;
          const x0 = Math.max(0, r.left), y0 = Math.max(0, r.top);
          const x1 = Math.min(innerWidth, r.right), y1 = Math.min(innerHeight, r.bottom);
          return [x0, y0, Math.max(1, x1 - x0), Math.max(1, y1 - y0)].map((v) => Math.round(v * d));`,
        args: [{ [ELEMENT_KEY]: handle }],
      });
      return { png: await this.command('GET', this.s('/screenshot')), box };
    }
    if (!fullPage) return Buffer.from(await this.command('GET', this.s('/screenshot')), 'base64');
    // The window grows to the page's height for the shot (X allows up to 32767 px).
    const before = await this.command('GET', this.s('/window/rect'));
    const [full, inner] = await this.evaluate('[document.documentElement.scrollHeight, innerHeight]');
    try {
      await this.command('POST', this.s('/window/rect'), { width: before.width, height: Math.min(32_000, before.height + full - inner) });
      await this.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(0))))');
      return Buffer.from(await this.command('GET', this.s('/screenshot')), 'base64');
    } finally {
      await this.command('POST', this.s('/window/rect'), { width: before.width, height: before.height });
    }
  }

  async end() {
    if (!this.id) return;
    const id = this.id;
    this.id = null;
    await this.command('DELETE', `/session/${id}`, undefined, 15_000).catch(() => {});
  }

  async browser(cleanup) {
    const session = this;
    // The toolbar's size; and MiniBrowser's window cannot be narrower than its toolbar.
    const minViewportWidth = await session.inWindow(session.home, async () => {
      const outer = await session.command('POST', session.s('/window/rect'), { width: 1000, height: 700 });
      const [w, h] = await session.evaluate('[innerWidth, innerHeight]');
      session.frame = { width: outer.width - w, height: outer.height - h };
      await session.command('POST', session.s('/window/rect'), { width: 1, height: 600 });
      return session.evaluate('innerWidth');
    });
    return {
      name: 'webkit',
      label: `WebKit ${session.version} (JavaScriptCore; MiniBrowser over WebDriver, under Xvfb)`,
      minViewportWidth,
      async open(url, { width = 1280, height = 900 } = {}) {
        checkViewport('open', width, height);
        // A new window needs a current one: the idle home window serves.
        const { handle } = await session.inWindow(session.home, () => session.command('POST', session.s('/window/new'), { type: 'window' }));
        const inWindow = (body) => session.inWindow(handle, body);
        const errors = [];
        let closed = false;
        const page = makePage('webkit', {
          run: (expr) => inWindow(() => session.evaluate(expr)),
          element: (selector, text, index) =>
            inWindow(async () => {
              const el = await session.command('POST', session.s('/execute/sync'), { script: `return ${findExpression(selector, text, index)};`, args: [] });
              if (!el) throw new Error(describeElement(selector, text, index));
              return el[ELEMENT_KEY];
            }),
          click: (id) => inWindow(() => session.command('POST', session.s(`/element/${id}/click`), {})),
          keys: (list) =>
            inWindow(() =>
              session.command('POST', session.s('/actions'), {
                actions: [{ type: 'key', id: 'keyboard', actions: list.flatMap((k) => [{ type: 'keyDown', value: WD_KEYS[k] ?? k }, { type: 'keyUp', value: WD_KEYS[k] ?? k }]) }],
              }),
            ),
          shot: async (o) => {
            const shot = await inWindow(() => session.screenshot(o));
            if (Buffer.isBuffer(shot)) return shot;
            const cropped = await session.crop(shot.png, shot.box);
            if (cropped.startsWith('error')) throw new Error(`screenshot: cannot crop to the element: ${cropped}`);
            return Buffer.from(cropped, 'base64');
          },
          resize: (w, h) => inWindow(() => session.resize(w, h)),
          driverErrors: () => errors,
          close: async () => {
            if (closed) return;
            closed = true;
            await inWindow(() => session.command('DELETE', session.s('/window')));
            session.current = null;
          },
        });
        try {
          await inWindow(async () => {
            await session.resize(width, height);
            await session.command('POST', session.s('/url'), { url });
            await session.evaluate(`(${WATCH})(true)`);
          });
          return await opened(page, errors);
        } catch (err) {
          await page.close().catch(() => {});
          throw err;
        }
      },
      close: cleanup,
    };
  }
}
