// <softmax-sampler scores="2, 1, 0" temperature="1" seed="42" top-k="0" top-p="1" min-p="0" labels="…">
// Draw one token or a thousand from a seeded sampler of the wasm module, with
// top-k / top-p / min-p filters, and compare the share of draws with the
// probabilities the sampler draws from. T = 0 is greedy: always the top score.
// Changing any setting starts a fresh sampler from the seed, so the same
// settings always give the same draws.
// .value: the last drawn index (or null); .draws: every index drawn since the
// last reset (Int32Array); .counts; .probs. Fires `input` after every draw and change.
import { TemperatureControl, WidgetElement, define, fmt, h, labelsFor, newId, parseLabels, parseScores, parseTemperature, scoresField } from './base.js';

const MANY = 1000;

export class SoftmaxSampler extends WidgetElement {
  static observedAttributes = ['scores', 'temperature', 'seed', 'top-k', 'top-p', 'min-p', 'labels'];

  #scores = [2, 1, 0];
  #labels = null;
  #opts = { temperature: 1, seed: 42, topK: 0, topP: 1, minP: 0 };
  #sampler = null;
  #draws = [];
  #probs = new Float32Array(0);
  #error = '';

  get value() {
    return this.#draws.length ? this.#draws[this.#draws.length - 1] : null;
  }
  get draws() {
    return Int32Array.from(this.#draws);
  }
  get counts() {
    const c = new Array(this.#scores.length).fill(0);
    for (const d of this.#draws) c[d]++;
    return c;
  }
  get probs() {
    return this.#probs.slice();
  }
  /** The options handed to sm.createSampler (filters that are off are left out). */
  get samplerOptions() {
    const { seed, temperature, topK, topP, minP } = this.#opts;
    const o = { seed, temperature };
    if (topK > 0) o.topK = topK;
    if (topP < 1) o.topP = topP;
    if (minP > 0) o.minP = minP;
    return o;
  }
  get scores() {
    return this.#scores.slice();
  }
  set scores(list) {
    this.#scores = Array.from(list, Number);
    this.field?.set(this.#scores);
    this.#restart();
  }

  /** Draws n tokens (1 or more) as the buttons do; returns the indices. */
  draw(n = 1) {
    if (!this.sm) throw new Error('softmax-sampler: not ready yet (await el.ready)');
    return this.#drawNow(n);
  }

  /** Forgets the draws and starts again from the seed. */
  reset() {
    this.#restart();
  }

  fromAttributes() {
    try {
      this.#scores = parseScores(this.getAttribute('scores') ?? '2, 1, 0');
    } catch {
      this.#scores = [2, 1, 0];
    }
    this.#labels = parseLabels(this.getAttribute('labels'));
    const num = (name, fallback, ok) => {
      const v = Number(this.getAttribute(name) ?? fallback);
      return Number.isFinite(v) && ok(v) ? v : fallback;
    };
    this.#opts = {
      temperature: parseTemperature(this.getAttribute('temperature')),
      seed: num('seed', 42, (v) => Number.isInteger(v) && v >= 0),
      topK: num('top-k', 0, (v) => Number.isInteger(v) && v >= 0),
      topP: num('top-p', 1, (v) => v > 0 && v <= 1),
      minP: num('min-p', 0, (v) => v >= 0 && v <= 1),
    };
    this.field.set(this.#scores);
    this.temp.set(this.#opts.temperature);
    this.seedIn.value = String(this.#opts.seed);
    this.topKIn.value = String(this.#opts.topK);
    this.topPIn.value = String(this.#opts.topP);
    this.minPIn.value = String(this.#opts.minP);
    this.#dispose();
    this.#draws = [];
  }

  build(frame) {
    this.field = scoresField((list) => {
      this.#scores = list;
      this.#restart();
    });
    this.temp = new TemperatureControl((t) => {
      this.#opts.temperature = t;
      this.#restart();
    });
    const numberField = (label, attrs, key, parse, help) => {
      const id = newId(key);
      const input = h('input', { id, type: 'number', class: 'num', 'aria-describedby': `${id}-help`, ...attrs });
      input.addEventListener('input', () => {
        const v = parse(input.value);
        if (v === null) {
          input.setAttribute('aria-invalid', 'true');
          return;
        }
        input.removeAttribute('aria-invalid');
        this.#opts[key] = v;
        this.#restart();
      });
      return { input, el: h('div', { class: 'field small' }, h('label', { for: id }, label), input, h('p', { id: `${id}-help`, class: 'help' }, help)) };
    };
    const intIn = (min) => (s) => (s !== '' && Number.isInteger(Number(s)) && Number(s) >= min ? Number(s) : null);
    const inRange = (lo, hi, openLo) => (s) => {
      const v = Number(s);
      return s !== '' && Number.isFinite(v) && (openLo ? v > lo : v >= lo) && v <= hi ? v : null;
    };
    const seed = numberField('Seed', { min: 0, step: 1 }, 'seed', intIn(0), 'same seed, same draws');
    const topK = numberField('Top-k', { min: 0, step: 1 }, 'topK', intIn(0), '0 = off');
    const topP = numberField('Top-p', { min: 0.01, max: 1, step: 0.05 }, 'topP', inRange(0, 1, true), '1 = off');
    const minP = numberField('Min-p', { min: 0, max: 1, step: 0.05 }, 'minP', inRange(0, 1, false), '0 = off');
    [this.seedIn, this.topKIn, this.topPIn, this.minPIn] = [seed.input, topK.input, topP.input, minP.input];

    const one = h('button', { type: 'button', class: 'primary' }, 'Draw 1');
    const many = h('button', { type: 'button', class: 'primary' }, `Draw ${MANY.toLocaleString('en')}`);
    const clear = h('button', { type: 'button' }, 'Start over');
    one.addEventListener('click', () => this.#drawNow(1));
    many.addEventListener('click', () => this.#drawNow(MANY));
    clear.addEventListener('click', () => this.#restart());
    this.last = h('p', { class: 'last', 'aria-live': 'polite' });
    this.error = h('p', { class: 'error', role: 'alert' });
    this.hist = h('ol', { class: 'hist', 'aria-label': 'Probability and share of draws per option' });
    this.legend = h(
      'p',
      { class: 'legend' },
      h('span', { class: 'key key-p', 'aria-hidden': 'true' }),
      ' probability the sampler draws from  ',
      h('span', { class: 'key key-d', 'aria-hidden': 'true' }),
      ' share of your draws',
    );
    frame.classList.add('softmax-sampler');
    frame.append(
      h('div', { class: 'controls' }, this.field.el, this.temp.el, h('div', { class: 'filters' }, seed.el, topK.el, topP.el, minP.el)),
      h('div', { class: 'buttons' }, one, many, clear),
      this.last,
      this.error,
      this.legend,
      this.hist,
    );
    this.fromAttributes();
  }

  disconnectedCallback() {
    this.#dispose();
  }

  #dispose() {
    this.#sampler?.dispose();
    this.#sampler = null;
  }

  #restart() {
    this.#dispose();
    this.#draws = [];
    this.#error = '';
    if (this.sm) this.update();
    this.emit();
  }

  #ensure() {
    if (this.#sampler) return this.#sampler;
    if (typeof this.sm.createSampler !== 'function') throw new Error('this build of softmax-wasm has no createSampler');
    this.#sampler = this.sm.createSampler(this.samplerOptions);
    return this.#sampler;
  }

  #drawNow(n) {
    let got = [];
    try {
      const s = this.#ensure();
      got = n === 1 ? [s.sample(this.#scores)] : Array.from(s.sampleMany(this.#scores, n));
      this.#draws.push(...got);
      this.#error = '';
    } catch (e) {
      this.#error = e.message;
      this.#dispose();
    }
    this.update();
    this.emit();
    return got;
  }

  update() {
    if (!this.sm) return;
    const n = this.#scores.length;
    const labels = labelsFor(n, this.#labels);
    try {
      this.#probs = this.#ensure().probs(this.#scores);
      this.error.textContent = this.#error;
    } catch (e) {
      this.#probs = new Float32Array(n).fill(NaN);
      this.error.textContent = e.message;
      this.#dispose();
    }
    if (this.hist.children.length !== n) {
      this.hist.replaceChildren(
        ...Array.from({ length: n }, (_, i) =>
          h(
            'li',
            { class: 'hist-row' },
            h('span', { class: 'name' }),
            h('div', { class: 'hist-bars' }, h('div', { class: 'track thin' }, h('div', { class: `fill p c${i % 8}` })), h('div', { class: 'track' }, h('div', { class: `fill d c${i % 8}` }))),
            h('span', { class: 'prob' }),
          ),
        ),
      );
    }
    const counts = this.counts;
    const total = this.#draws.length;
    [...this.hist.children].forEach((row, i) => {
      const [name, bars, num] = row.children;
      const p = this.#probs[i];
      const share = total ? counts[i] / total : 0;
      name.textContent = labels[i];
      bars.children[0].firstChild.style.width = `${Number.isFinite(p) ? p * 100 : 0}%`;
      bars.children[1].firstChild.style.width = `${share * 100}%`;
      num.textContent = `p ${fmt(p)} · ${counts[i]} drawn`;
      row.classList.toggle('picked', total > 0 && this.value === i);
      row.classList.toggle('filtered', p === 0);
      row.dataset.count = String(counts[i]);
      row.dataset.prob = String(p);
    });
    const t = this.#opts.temperature;
    this.last.textContent = total
      ? `Last draw: ${labels[this.value]} · ${total.toLocaleString('en')} draw${total > 1 ? 's' : ''} so far${t === 0 ? ' · T = 0 is greedy: always the top score' : ''}`
      : t === 0
        ? 'T = 0: greedy, every draw picks the top score.'
        : 'No draws yet.';
  }
}

define('softmax-sampler', SoftmaxSampler);
