// Shared pieces of the lesson widgets: the base element (a shadow root with
// the external stylesheet, since the strict CSP allows no inline styles), the
// attribute rules every widget follows, parsing of typed score lists, number
// formatting in the page's language, and the temperature control.
//
// What every widget does (documented in web/demo/widgets/):
//  - an attribute it cannot accept shows a visible message (role="alert")
//    naming the attribute and what it accepts, and fires an `error` event
//    (detail: { attribute, value, message }); so does an attribute it does
//    not know. The widget keeps drawing with the previous (or default) value.
//  - `hide="scores temperature"` hides controls, `lock` (all) or
//    `lock="scores"` keeps them visible but fixed: a figure in a text.
//  - `input` on every change, `change` when the reader lets go (as native inputs).
//  - `label` names the widget (visible, and its accessible name); `strings`
//    (a JSON attribute or an object property) replaces any UI text; numbers
//    follow the nearest `lang`; `theme="dark"` (or "auto") switches colours;
//    `::part(...)` and the --smx-* custom properties style it.
//  - it loads the module when it nears the viewport (`loading="eager"`: at
//    once); reading `.ready` starts it too.
import { softmaxModule } from './runtime.js';

const STYLESHEET = new URL('./widgets.css', import.meta.url).href;
let uid = 0;

const SVG_TAGS = new Set(['svg', 'path', 'circle', 'line', 'g', 'text', 'rect', 'title', 'polyline', 'tspan']);

/** h('div', { class: 'x', 'aria-label': 'y' }, child, 'text') — attributes only, never style. */
export function h(tag, attrs = {}, ...children) {
  const el = SVG_TAGS.has(tag) ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === undefined || v === null) continue;
    if (k === 'style') throw new Error('no style attributes under the strict CSP');
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** Pointer capture for a drag; a pointer the browser does not track (a synthetic event) drags without it. */
export function capture(el, pointerId) {
  try {
    el.setPointerCapture(pointerId);
  } catch {
    // NotFoundError: not an active pointer
  }
}

/** A page-unique id prefix for label/for and aria-* references inside one widget. */
export const newId = (name) => `${name}-${++uid}`;

const MINUS = /[\u2212\u2013]/g; // typographic minus and en dash typed or pasted as "-"

/** One typed score: a number, "inf", "-inf", "∞", or "ln 2" / "ln(2)". NaN when it is none of these. */
export function parseScore(token) {
  const t = String(token).trim().replace(MINUS, '-').toLowerCase();
  if (t === '') return NaN;
  if (/^[+-]?(inf|infinity|∞)$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  const ln = /^(-?)ln\s*\(?\s*([0-9.e+]+)\s*\)?$/.exec(t);
  if (ln) return (ln[1] ? -1 : 1) * Math.log(Number(ln[2]));
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) return NaN;
  return Number(t);
}

/**
 * "2, 1, 0" or "2 1 0" or "ln 2, 0, 0" -> [2, 1, 0]. Throws a message that names
 * the bad entry. With commas (or semicolons) present, spaces inside an entry are allowed.
 */
export function parseScores(text, { min = 1, max = 12 } = {}) {
  const s = String(text ?? '').trim();
  const parts = /[,;]/.test(s) ? s.split(/[,;]/) : s.split(/\s+/);
  const list = s === '' ? [] : parts.map((p, i) => {
    const v = parseScore(p);
    if (Number.isNaN(v)) throw new Error(`entry ${i + 1} ("${p.trim()}") is not a number`);
    return v;
  });
  if (list.length < min) throw new Error(`type at least ${min} number${min > 1 ? 's' : ''}, separated by commas`);
  if (list.length > max) throw new Error(`at most ${max} numbers here (got ${list.length})`);
  return list;
}

// ---------- numbers in the page's language ----------

const formats = new Map();
function numberFormat(locale, digits) {
  const key = `${locale}|${digits}`;
  if (!formats.has(key)) {
    let f;
    try {
      f = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
    } catch {
      f = new Intl.NumberFormat('en', { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
    }
    formats.set(key, f);
  }
  return formats.get(key);
}
const minus = (s) => s.replace('-', '−');

/**
 * A computed number for display, `digits` after the point, in `locale`; tiny
 * positive values in scientific notation so that 4.5e-5 does not read as 0.
 * The pieces of a scientific number are joined by no-break spaces: it never wraps.
 */
export function fmt(v, digits = 3, locale = 'en') {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  if (v !== 0 && Math.abs(v) < 0.5 * 10 ** -digits) return sci(v, 1, locale);
  if (Math.abs(v) >= 1e4) return sci(v, 3, locale);
  return minus(numberFormat(locale, digits).format(v));
}

const SUP = { '-': '⁻', '+': '', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

/** 59874.14 -> "5.987 × 10⁴" (no-break spaces). */
export function sci(v, digits = 3, locale = 'en') {
  const [m, e] = v.toExponential(digits).split('e');
  return `${minus(numberFormat(locale, digits).format(Number(m)))}\u00a0×\u00a010${[...e].map((c) => SUP[c]).join('')}`;
}

/** A score for display: at most 3 decimals, "∞", "−∞". */
export function fmtScore(v, locale = 'en') {
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  const r = Math.round(v * 1000) / 1000;
  const digits = Number.isInteger(r) ? 0 : String(r).split('.')[1]?.length ?? 0;
  return minus(numberFormat(locale, Math.min(digits, 3)).format(r));
}

export const fmtT = (t, locale = 'en') => (t === Infinity ? '∞' : fmtScore(Math.round(t * 100) / 100, locale));

/** Adds a step to a typed score without float noise: 0.707 + 0.1 - 0.1 is 0.707 again. */
export const addStep = (v, step) => Number((v + step).toFixed(10));

export const labelsFor = (n, given) =>
  Array.from({ length: n }, (_, i) => (given && given[i] !== undefined && given[i] !== '' ? given[i] : String.fromCharCode(65 + (i % 26))));

// ---------- attribute parsers: each returns the value or throws the reason ----------

/** Attribute rules shared by the widgets: { parse(text) -> value, accepts: 'what is accepted' }. */
export const ATTR = {
  scores: (max = 12, min = 1) => ({
    parse: (t) => parseScores(t, { min, max }),
    accepts: `${min} to ${max} numbers separated by commas, such as "2, 1, 0" (also -inf, ln 2)`,
  }),
  temperature: {
    parse(text) {
      const t = String(text).trim().toLowerCase();
      if (t === 'inf' || t === 'infinity' || t === '∞' || t === 'flat') return Infinity;
      const v = t === '' ? NaN : Number(t);
      if (!(v >= 0)) throw new Error(t === '' ? 'it is empty' : 'not a number of 0 or more');
      return v;
    },
    accepts: 'a number of 0 or more (0 is greedy), or inf (flat)',
  },
  labels: {
    parse: (t) => String(t).split(',').map((s) => s.trim()),
    accepts: 'names separated by commas',
  },
  flag: {
    parse(t) {
      if (t !== '' && t !== 'true' && t !== 'false') throw new Error('a yes/no attribute');
      return t !== 'false';
    },
    accepts: 'present (or "true") to turn it on, absent (or "false") for off',
  },
  int: (lo, hi) => ({
    parse(t) {
      const v = String(t).trim() === '' ? NaN : Number(t);
      if (!Number.isInteger(v) || v < lo || v > hi) throw new Error('not a whole number in range');
      return v;
    },
    accepts: `a whole number from ${lo} to ${hi}`,
  }),
  range: (lo, hi, { openLo = false } = {}) => ({
    parse(t) {
      const v = String(t).trim() === '' ? NaN : Number(t);
      if (!Number.isFinite(v) || (openLo ? v <= lo : v < lo) || v > hi) throw new Error('out of range');
      return v;
    },
    accepts: `a number ${openLo ? 'above' : 'from'} ${lo} ${openLo ? 'up to' : 'to'} ${hi}`,
  }),
  number: (lo, hi) => ({
    parse(t) {
      const v = String(t).trim() === '' ? NaN : Number(t);
      if (!Number.isFinite(v) || v < lo || v > hi) throw new Error('not a number in range');
      return v;
    },
    accepts: `a number from ${lo} to ${hi}`,
  }),
  oneOf: (...values) => ({
    parse(t) {
      const v = String(t).trim().toLowerCase();
      if (!values.includes(v)) throw new Error('not one of the accepted words');
      return v;
    },
    accepts: values.map((v) => `"${v}"`).join(' or '),
  }),
  text: (maxLength = 500) => ({
    parse(t) {
      if (String(t).length > maxLength) throw new Error(`longer than ${maxLength} characters`);
      return String(t);
    },
    accepts: `text of up to ${maxLength} characters`,
  }),
};

// Attributes that every element may carry: never reported as unknown.
const GLOBAL_ATTRS = new Set([
  'id', 'class', 'style', 'title', 'lang', 'dir', 'hidden', 'tabindex', 'slot', 'part', 'exportparts', 'role', 'inert',
  'accesskey', 'autofocus', 'contenteditable', 'draggable', 'enterkeyhint', 'inputmode', 'is', 'nonce', 'popover',
  'spellcheck', 'translate', 'autocapitalize', 'itemid', 'itemprop', 'itemref', 'itemscope', 'itemtype', 'name',
]);
const COMMON_ATTRS = ['hide', 'lock', 'strings', 'label', 'theme', 'loading'];

function nearest(name, names) {
  const d = (a, b) => {
    const m = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) m[0][j] = j;
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++) m[i][j] = Math.min(m[i - 1][j] + 1, m[i][j - 1] + 1, m[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    return m[a.length][b.length];
  };
  let best = null;
  for (const n of names) {
    const dist = d(name, n);
    if (dist <= 2 && (!best || dist < best.dist)) best = { n, dist };
  }
  return best?.n;
}

/**
 * Checks a value given to a property (el.scores = …): a TypeError or RangeError naming it, as the library's
 * functions do, never a silent fallback. Returns the numbers.
 */
export function checkScores(tag, list, { min = 1, max = 12, finite = false } = {}) {
  if (list === null || typeof list !== 'object' || typeof list.length !== 'number') throw new TypeError(`${tag}: scores must be an array of numbers`);
  const out = Array.from(list, (v) => (typeof v === 'number' ? v : NaN));
  if (out.length < min || out.length > max) throw new RangeError(`${tag}: scores must hold ${min} to ${max} numbers (got ${out.length})`);
  const bad = out.findIndex((v) => Number.isNaN(v) || (finite && !Number.isFinite(v)));
  if (bad >= 0) throw new TypeError(`${tag}: scores[${bad}] is not a${finite ? ' finite' : ''} number (${String(list[bad])})`);
  return out;
}

export function checkNumber(tag, name, v, { min = -Infinity, max = Infinity, inf = false } = {}) {
  if (typeof v !== 'number' || Number.isNaN(v)) throw new TypeError(`${tag}: ${name} must be a number (got ${String(v)})`);
  if (!(v >= min && v <= max) && !(inf && v === Infinity)) throw new RangeError(`${tag}: ${name} must be from ${min} to ${max}${inf ? ' or Infinity' : ''} (got ${v})`);
  return v;
}

/** Fills {name} placeholders of a UI string. */
export const fill = (text, vars = {}) => String(text).replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));

/**
 * Base of every widget. Subclasses declare
 *   static tag, static attrs = { name: ATTR rule & { default } }, static controls = [...names],
 *   static strings = { key: 'English text' },
 * and implement build(root), applyAttribute(name, value), sync() (state -> controls), update() (draw).
 */
export class WidgetElement extends HTMLElement {
  #built = false;
  #started = false;
  #readyPromise;
  #resolveReady;
  #errors = new Map(); // attribute -> message
  #stringsOverride = {};
  #stringsAttr = {};
  #controls = new Map(); // name -> root element
  #observer = null;
  #io = null;
  #label;
  #styled;

  static get observedAttributes() {
    return [...Object.keys(this.attrs ?? {}), ...COMMON_ATTRS];
  }

  constructor() {
    super();
    this.#readyPromise = new Promise((r) => (this.#resolveReady = r));
    this.sm = null;
    const root = this.attachShadow({ mode: 'open' });
    const link = h('link', { rel: 'stylesheet', href: STYLESHEET });
    this.frame = h('div', { class: 'smx', part: 'frame', role: 'group', hidden: true });
    this.#label = h('p', { class: 'widget-label', part: 'label', hidden: true });
    this.alertBox = h('div', { class: 'alert', role: 'alert', part: 'alert' });
    this.body = h('div', { class: 'body' });
    this.frame.append(this.#label, this.alertBox, this.body);
    this.#styled = new Promise((resolve) => {
      const show = () => {
        this.frame.removeAttribute('hidden');
        resolve();
      };
      link.addEventListener('load', show);
      link.addEventListener('error', show);
    });
    root.append(link, this.frame);
    // The native input events of the inner controls are composed and would leave the shadow root before the
    // widget has updated; the widget fires its own input and change events on itself instead.
    for (const type of ['input', 'change']) root.addEventListener(type, (e) => e.stopPropagation());
    this.hiddenControls = new Set();
    this.lockedControls = new Set();
  }

  /** Resolves (to the element) once the module has loaded and the widget has drawn; reading it starts the load. */
  get ready() {
    if (this.isConnected) this.#start();
    return this.#readyPromise;
  }

  /** The UI strings in use: the defaults, then the `strings` attribute, then the `strings` property. */
  get strings() {
    return { ...this.constructor.strings, ...this.#stringsAttr, ...this.#stringsOverride };
  }
  set strings(obj) {
    if (obj === null || typeof obj !== 'object') {
      this.#report('strings', String(obj), 'the strings property takes an object of UI strings');
      return;
    }
    const bad = Object.keys(obj).filter((k) => !Object.hasOwn(this.constructor.strings, k));
    if (bad.length) this.#report('strings', JSON.stringify(obj), `unknown string key${bad.length > 1 ? 's' : ''} ${bad.map((k) => `"${k}"`).join(', ')}; the keys are ${Object.keys(this.constructor.strings).join(', ')}`);
    else this.#clear('strings');
    this.#stringsOverride = Object.fromEntries(Object.entries(obj).filter(([k]) => Object.hasOwn(this.constructor.strings, k)).map(([k, v]) => [k, String(v)]));
    this.#rebuild();
  }

  /** A UI string with its {placeholders} filled. */
  s(key, vars) {
    const strings = this.strings;
    return fill(Object.hasOwn(strings, key) ? strings[key] : key, vars);
  }

  /** The language numbers follow: the nearest lang attribute (the page's), else English. */
  get locale() {
    return this.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang || 'en';
  }
  fmt(v, digits = 3) {
    return fmt(v, digits, this.locale);
  }
  fmtScore(v) {
    return fmtScore(v, this.locale);
  }
  fmtT(t) {
    return fmtT(t, this.locale);
  }

  connectedCallback() {
    if (!this.#built) {
      this.#built = true;
      this.#readAll();
      this.build(this.body);
      this.#applyControls();
      this.sync();
      this.#observer = new MutationObserver((records) => {
        for (const r of records) if (!this.constructor.observedAttributes.includes(r.attributeName)) this.#checkUnknown();
      });
    }
    this.#observer.observe(this, { attributes: true });
    this.#checkUnknown();
    if (this.getAttribute('loading') === 'eager' || typeof IntersectionObserver !== 'function') this.#start();
    else if (!this.#started) {
      this.#io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && this.#start(), { rootMargin: '400px 0px' });
      this.#io.observe(this);
    }
  }

  disconnectedCallback() {
    this.#observer?.disconnect();
    this.#io?.disconnect();
    this.#io = null;
  }

  #start() {
    if (this.#started) return;
    this.#started = true;
    this.#io?.disconnect();
    this.#io = null;
    this.frame.setAttribute('aria-busy', 'true');
    Promise.all([softmaxModule(), this.prepare()]).then(
      async ([sm]) => {
        this.sm = sm;
        this.frame.removeAttribute('aria-busy');
        await Promise.all([this.update(), this.#styled]);
        this.#resolveReady(this);
        this.dispatchEvent(new Event('load')); // drawn for the first time, as an <img> fires load
      },
      (err) => {
        this.frame.removeAttribute('aria-busy');
        this.#report('module', '', `${this.s('loadFailed')} (${err.message})`);
        this.#resolveReady(this);
        console.error(err);
      },
    );
  }

  attributeChangedCallback(name, old, value) {
    if (!this.#built || old === value) return;
    this.#readOne(name);
    if (name === 'strings') return; // #readOne rebuilt
    if (name === 'hide' || name === 'lock') this.#applyControls();
    else this.sync();
    if (this.sm) this.update();
  }

  #readAll() {
    for (const name of this.constructor.observedAttributes) this.#readOne(name, true);
  }

  #readOne(name, first = false) {
    const rule = this.#rule(name);
    if (!rule) return;
    const has = this.hasAttribute(name);
    const text = this.getAttribute(name);
    if (!has) {
      this.#clear(name);
      this.#apply(name, rule.default, first);
      return;
    }
    try {
      const v = rule.parse(text);
      this.#clear(name);
      this.#apply(name, v, first);
    } catch (e) {
      this.#report(name, text, `${e.message}. Accepted: ${rule.accepts}`);
      if (first) this.#apply(name, rule.default, first);
    }
  }

  #rule(name) {
    const own = this.constructor.attrs?.[name];
    if (own) return own;
    const controls = this.constructor.controls ?? [];
    const list = {
      parse(t) {
        const s = String(t).trim().toLowerCase();
        if (s === '' || s === 'all') return new Set(controls);
        const names = s.split(/[\s,]+/);
        const bad = names.filter((n) => !controls.includes(n));
        if (bad.length) throw new Error(`no control named ${bad.map((b) => `"${b}"`).join(', ')}`);
        return new Set(names);
      },
      accepts: `empty or "all", or control names among ${controls.map((c) => `"${c}"`).join(', ')}`,
    };
    switch (name) {
      case 'hide':
        return { ...list, default: new Set() };
      case 'lock':
        return { ...list, default: new Set() };
      case 'strings':
        return {
          parse: (t) => {
            let obj;
            try {
              obj = JSON.parse(t);
            } catch {
              throw new Error('it is not JSON');
            }
            if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new Error('it is not a JSON object');
            const bad = Object.keys(obj).filter((k) => !Object.hasOwn(this.constructor.strings, k));
            if (bad.length) throw new Error(`unknown key${bad.length > 1 ? 's' : ''} ${bad.map((k) => `"${k}"`).join(', ')}`);
            return obj;
          },
          accepts: `a JSON object whose keys are among ${Object.keys(this.constructor.strings).join(', ')}`,
          default: {},
        };
      case 'label':
        return { ...ATTR.text(200), default: null };
      case 'theme':
        return { ...ATTR.oneOf('light', 'dark', 'auto'), default: 'light' };
      case 'loading':
        return { ...ATTR.oneOf('lazy', 'eager'), default: 'lazy' };
      default:
        return null;
    }
  }

  #apply(name, value, first) {
    switch (name) {
      case 'hide':
        this.hiddenControls = value;
        return;
      case 'lock':
        this.lockedControls = value;
        return;
      case 'strings':
        this.#stringsAttr = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
        if (!first) this.#rebuild();
        return;
      case 'label':
        this.#label.textContent = value ?? '';
        this.#label.hidden = !value;
        this.#syncLabel();
        return;
      case 'theme':
      case 'loading':
        return;
      default:
        this.applyAttribute(name, value);
    }
  }

  #syncLabel() {
    this.frame.setAttribute('aria-label', this.getAttribute('label') || this.s('title'));
  }

  #rebuild() {
    if (!this.#built) return;
    this.#controls.clear();
    this.body.replaceChildren();
    this.build(this.body);
    this.#applyControls();
    this.sync();
    this.#syncLabel();
    if (this.sm) this.update();
  }

  #checkUnknown() {
    const known = new Set(this.constructor.observedAttributes);
    const unknown = this.getAttributeNames().filter((n) => !known.has(n) && !GLOBAL_ATTRS.has(n) && !/^(data-|aria-|on)/.test(n));
    for (const key of [...this.#errors.keys()]) if (key.startsWith('unknown:') && !unknown.includes(key.slice(8))) this.#clear(key);
    for (const n of unknown) {
      const guess = nearest(n, [...known]);
      this.#report(`unknown:${n}`, this.getAttribute(n), `this widget has no attribute "${n}"${guess ? ` (did you mean "${guess}"?)` : ''}. Its attributes: ${[...known].join(', ')}`, n);
    }
  }

  /** Shows a message (role="alert") and fires `error`; once per attribute and value. */
  #report(key, value, message, attribute = key) {
    const text = key === 'module' ? message : `${this.localName}: ${key.startsWith('unknown:') ? '' : `${attribute}="${value}": `}${message}`;
    if (this.#errors.get(key) === text) return;
    this.#errors.set(key, text);
    this.#drawErrors();
    this.dispatchEvent(new CustomEvent('error', { detail: { attribute, value, message: text } })); // as an <img>'s: does not bubble
  }

  #clear(key) {
    if (this.#errors.delete(key)) this.#drawErrors();
  }

  #drawErrors() {
    this.alertBox.replaceChildren(...[...this.#errors.values()].map((m) => h('p', {}, m)));
  }

  /** For a rule that spans attributes (attention's scores against its tokens): shows it as a parse error would; null clears it. */
  attributeError(name, message) {
    // kept apart from the attribute's own parse error, so that clearing one never hides the other
    if (message) this.#report(`rule:${name}`, this.getAttribute(name), `${message}. Accepted: ${this.#rule(name)?.accepts ?? ''}`, name);
    else this.#clear(`rule:${name}`);
  }

  /** The messages on show (attribute errors), for tests and pages. */
  get errors() {
    return [...this.#errors.values()];
  }

  /** Registers the element of a named control (for hide / lock). */
  control(name, el) {
    this.#controls.set(name, el);
    el.dataset.control = name;
    return el;
  }

  isLocked(name) {
    return this.lockedControls.has(name);
  }

  #applyControls() {
    for (const [name, el] of this.#controls) {
      el.hidden = this.hiddenControls.has(name);
      const locked = this.lockedControls.has(name);
      el.classList.toggle('locked', locked);
      for (const input of [el, ...el.querySelectorAll('input, button, select, textarea')]) {
        if ('disabled' in input && input !== el) input.disabled = locked;
      }
      for (const s of [el, ...el.querySelectorAll('[role=slider]')]) {
        if (s.getAttribute('role') !== 'slider') continue;
        s.setAttribute('aria-disabled', String(locked));
        s.tabIndex = locked ? -1 : 0;
      }
    }
    this.frame.classList.toggle('all-hidden', [...this.#controls.keys()].every((n) => this.hiddenControls.has(n)));
  }

  /** Fires `input` (or `change`) — bubbles and crosses the shadow boundary, as a native input's does. */
  emit(type = 'input') {
    this.dispatchEvent(new Event(type, { bubbles: true, composed: type === 'input' }));
  }

  /** Subclass hooks. prepare(): extra loading (a promise) before the first update. */
  prepare() {
    return null;
  }
  build() {}
  applyAttribute() {}
  sync() {}
  update() {}
}

/** A scores text field with its error line; onScores(list) on every valid edit, onCommit on change. */
export function scoresField(host, onScores, { help, min = 1, max = 12, onCommit } = {}) {
  const id = newId('scores');
  const input = h('input', { id, type: 'text', inputmode: 'text', spellcheck: 'false', autocomplete: 'off', part: 'input', 'aria-describedby': `${id}-help ${id}-err` });
  const err = h('p', { id: `${id}-err`, class: 'error', role: 'alert' });
  input.addEventListener('input', () => {
    try {
      const list = parseScores(input.value, { min, max });
      input.removeAttribute('aria-invalid');
      err.textContent = '';
      onScores(list);
    } catch (e) {
      input.setAttribute('aria-invalid', 'true');
      err.textContent = e.message;
    }
  });
  input.addEventListener('change', () => input.getAttribute('aria-invalid') !== 'true' && onCommit?.());
  const el = h('div', { class: 'field scores', part: 'field' }, h('label', { for: id }, host.s('scores')), input, h('p', { id: `${id}-help`, class: 'help' }, help ?? host.s('scoresHelp')), err);
  return {
    el,
    input,
    set(list) {
      input.value = list.map(fmtScoreEdit).join(', ');
      input.removeAttribute('aria-invalid');
      err.textContent = '';
    },
  };
}

/** Scores written back into a text field: plain ASCII, parseable again. */
function fmtScoreEdit(v) {
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  if (Math.abs(v - Math.LN2) < 1e-12) return 'ln 2';
  return String(Number(v.toFixed(10)));
}

/** Strings every widget has: its accessible name and the message when the module does not load. */
export const BASE_STRINGS = {
  title: 'Softmax widget',
  loadFailed: 'Could not load the softmax module. The page needs to be served over http(s), for example with npm start',
};

/** Strings of the temperature control, merged into each widget that has one. */
export const TEMPERATURE_STRINGS = {
  temperature: 'Temperature T',
  greedy: 'greedy: all on the top score',
  flat: 'flat: every option equal',
  sharper: 'sharper',
  flatter: 'flatter',
  unchanged: 'scores unchanged',
};

/**
 * The temperature control: a range from 0 to 5 in steps of 0.1 that reaches 0
 * exactly (greedy), plus one notch past 5 for T = ∞ (flat). Home = greedy,
 * End = flat. The number the reader sees is also announced (aria-valuetext).
 */
export class TemperatureControl {
  static FLAT = 51; // slider position of T = ∞

  constructor(host, onChange, onCommit) {
    const id = newId('temperature');
    this.host = host;
    this.t = 1;
    this.input = h('input', { id, type: 'range', min: 0, max: TemperatureControl.FLAT, step: 1, class: 'temp-range', part: 'slider' });
    this.out = h('output', { for: id, class: 'temp-value' });
    this.note = h('span', { class: 'temp-note' });
    this.input.addEventListener('input', () => {
      const pos = Number(this.input.value);
      this.t = pos >= TemperatureControl.FLAT ? Infinity : pos / 10;
      this.#show();
      onChange(this.t);
    });
    this.input.addEventListener('change', () => onCommit?.());
    this.el = h(
      'div',
      { class: 'field temp', part: 'field' },
      h('label', { for: id }, host.s('temperature')),
      h('div', { class: 'temp-row' }, h('span', { class: 'tick', 'aria-hidden': 'true' }, '0'), this.input, h('span', { class: 'tick', 'aria-hidden': 'true' }, '∞')),
      h('div', { class: 'temp-read' }, this.out, this.note),
    );
    this.set(1);
  }

  set(t) {
    this.t = t;
    const pos = t === Infinity ? TemperatureControl.FLAT : Math.min(50, Math.round(t * 10));
    this.input.value = String(pos);
    this.#show();
  }

  #show() {
    const t = this.t;
    const s = (k) => this.host.s(k);
    this.out.textContent = `T = ${this.host.fmtT(t)}`;
    this.note.textContent = t === 0 ? s('greedy') : t === Infinity ? s('flat') : t < 1 ? s('sharper') : t > 1 ? s('flatter') : s('unchanged');
    this.input.setAttribute('aria-valuetext', t === 0 ? `T = 0, ${s('greedy')}` : t === Infinity ? `T = ∞, ${s('flat')}` : `T = ${this.host.fmtT(t)}`);
  }
}

/** Registers a custom element once (a page may import a widget twice). */
export function define(name, cls) {
  if (!customElements.get(name)) customElements.define(name, cls);
}
