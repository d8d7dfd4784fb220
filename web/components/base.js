// Shared pieces of the lesson widgets: a base element with a shadow root and
// the external stylesheet (the strict CSP allows no inline styles), parsing of
// typed score lists, number formatting, and the temperature control.
import { softmaxModule } from './runtime.js';

const STYLESHEET = new URL('./widgets.css', import.meta.url).href;
let uid = 0;

/** h('div', { class: 'x', 'aria-label': 'y' }, child, 'text') — attributes only, never style. */
export function h(tag, attrs = {}, ...children) {
  const svg = ['svg', 'path', 'circle', 'line', 'g', 'text', 'rect', 'title'].includes(tag);
  const el = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === undefined || v === null) continue;
    if (k === 'style') throw new Error('no style attributes under the strict CSP');
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** A page-unique id prefix for label/for and aria-* references inside one widget. */
export const newId = (name) => `${name}-${++uid}`;

const MINUS = /[\u2212\u2013]/g; // typographic minus and en dash typed or pasted as "-"

/** One typed score: a number, "inf", "-inf", "∞", or "ln 2" / "ln(2)". */
export function parseScore(token) {
  const t = token.trim().replace(MINUS, '-').toLowerCase();
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

/** A score for display: "0.707", "-1", "ln 2" is not reconstructed. */
export function fmtScore(v) {
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  const r = Math.round(v * 1000) / 1000;
  return String(r).replace('-', '−');
}

/**
 * A computed number for display, `digits` after the point; tiny positive values
 * in scientific notation so that 4.5e-5 does not read as 0.
 */
export function fmt(v, digits = 3) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  if (v !== 0 && Math.abs(v) < 0.5 * 10 ** -digits) return sci(v, 1);
  if (Math.abs(v) >= 1e4) return sci(v);
  return v.toFixed(digits).replace('-', '−');
}

const SUP = { '-': '⁻', '+': '', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

/** 59874.14 -> "5.987 × 10⁴": large values in scientific notation a learner can read. */
export function sci(v, digits = 3) {
  const [m, e] = v.toExponential(digits).split('e');
  return `${m.replace('-', '−')} × 10${[...e].map((c) => SUP[c]).join('')}`;
}

export const labelsFor = (n, given) =>
  Array.from({ length: n }, (_, i) => (given && given[i] !== undefined && given[i] !== '' ? given[i] : String.fromCharCode(65 + (i % 26))));

export function parseLabels(text) {
  if (!text) return null;
  return text.split(',').map((s) => s.trim());
}

/** Temperature attribute: a number >= 0, or "inf"/"infinity"/"flat". */
export function parseTemperature(text, fallback = 1) {
  if (text === null || text === undefined || text === '') return fallback;
  const t = String(text).trim().toLowerCase();
  if (t === 'inf' || t === 'infinity' || t === '∞' || t === 'flat') return Infinity;
  const v = Number(t);
  return Number.isFinite(v) && v >= 0 ? v : fallback;
}

export const fmtT = (t) => (t === Infinity ? '∞' : String(Math.round(t * 100) / 100));

/**
 * The temperature control: a range from 0 to 5 in steps of 0.1 that reaches 0
 * exactly (greedy), plus one notch past 5 for T = ∞ (flat). Home = greedy,
 * End = flat. The number the learner sees is also announced (aria-valuetext).
 */
export class TemperatureControl {
  static FLAT = 51; // slider position of T = ∞

  constructor(onChange, { label = 'Temperature T' } = {}) {
    const id = newId('temperature');
    this.t = 1;
    this.input = h('input', { id, type: 'range', min: 0, max: TemperatureControl.FLAT, step: 1, class: 'temp-range' });
    this.out = h('output', { for: id, class: 'temp-value' });
    this.note = h('span', { class: 'temp-note' });
    this.input.addEventListener('input', () => {
      const pos = Number(this.input.value);
      this.t = pos >= TemperatureControl.FLAT ? Infinity : pos / 10;
      this.#show();
      onChange(this.t);
    });
    this.el = h(
      'div',
      { class: 'field temp' },
      h('label', { for: id }, label),
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
    this.out.textContent = `T = ${fmtT(t)}`;
    this.note.textContent = t === 0 ? 'greedy: all on the top score' : t === Infinity ? 'flat: every option equal' : t < 1 ? 'sharper' : t > 1 ? 'flatter' : 'scores unchanged';
    this.input.setAttribute('aria-valuetext', t === 0 ? 'T = 0, greedy' : t === Infinity ? 'T = infinity, flat' : `T = ${fmtT(t)}`);
  }
}

/**
 * Base of every widget: an open shadow root holding a link to widgets.css
 * (hidden until the sheet has loaded, so nothing flashes unstyled), the shared
 * module, `ready` (resolves after the first render) and `input` events.
 */
export class WidgetElement extends HTMLElement {
  #built = false;
  #resolveReady;

  constructor() {
    super();
    this.ready = new Promise((r) => (this.#resolveReady = r));
    this.sm = null;
    const root = this.attachShadow({ mode: 'open' });
    const link = h('link', { rel: 'stylesheet', href: STYLESHEET });
    this.frame = h('div', { class: 'smx', hidden: true });
    const show = () => this.frame.removeAttribute('hidden');
    link.addEventListener('load', show);
    link.addEventListener('error', show);
    root.append(link, this.frame);
  }

  connectedCallback() {
    if (this.#built) return;
    this.#built = true;
    this.build(this.frame);
    this.frame.setAttribute('aria-busy', 'true');
    softmaxModule().then(
      (sm) => {
        this.sm = sm;
        this.frame.removeAttribute('aria-busy');
        this.update();
        this.#resolveReady(this);
      },
      (err) => {
        this.frame.replaceChildren(h('p', { class: 'error', role: 'alert' }, `Could not load the softmax module: ${err.message}`));
        this.#resolveReady(this);
        console.error(err);
      },
    );
  }

  attributeChangedCallback() {
    if (!this.#built) return;
    this.fromAttributes();
    if (this.sm) this.update();
  }

  /** Fires `input` (bubbles, crosses the shadow boundary), as a native input does. */
  emit() {
    this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  }

  /** Subclasses: build(frame) once, fromAttributes(), update() whenever state changes. */
  build() {}
  fromAttributes() {}
  update() {}
}

/** A scores text field with its error line; onScores(list) on every valid edit. */
export function scoresField(onScores, { label = 'Scores', help = 'Numbers separated by commas, e.g. 2, 1, 0 (also −inf or ln 2).', min = 1, max = 12 } = {}) {
  const id = newId('scores');
  const input = h('input', { id, type: 'text', inputmode: 'text', spellcheck: 'false', autocomplete: 'off', 'aria-describedby': `${id}-help ${id}-err` });
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
  const el = h('div', { class: 'field scores' }, h('label', { for: id }, label), input, h('p', { id: `${id}-help`, class: 'help' }, help), err);
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
  return String(Math.round(v * 10000) / 10000);
}

/** Registers a custom element once (a page may import a widget twice). */
export function define(name, cls) {
  if (!customElements.get(name)) customElements.define(name, cls);
}
