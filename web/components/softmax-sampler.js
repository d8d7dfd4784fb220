// <softmax-sampler scores="2, 1, 0" temperature="1" seed="42" top-k="0" top-p="1" min-p="0" labels="…">
// Draw one token or a thousand from a seeded sampler of the wasm module, with
// top-k / top-p / min-p filters, and compare the share of draws with the
// probabilities the sampler draws from. T = 0 is greedy: always the top score.
// Changing any setting starts a fresh sampler from the seed, so the same
// settings always give the same draws.
// .value: the last drawn index (or null); .draws: every index drawn since the
// last reset (Int32Array); .counts; .probs. Fires `input` after every draw and
// change, `change` when a setting is committed. Controls: scores, temperature, filters, draw.
import { ATTR, BASE_STRINGS, checkScores, TEMPERATURE_STRINGS, TemperatureControl, WidgetElement, define, h, labelsFor, scoresField } from './base.js';
import { FILTER_ATTRS, FILTER_KEY as KEY, FILTER_STRINGS, filterFields, samplerOptions } from './filters.js';

const MANY = 1000;

export class SoftmaxSampler extends WidgetElement {
  static attrs = {
    scores: { ...ATTR.scores(12), default: [2, 1, 0] },
    temperature: { ...ATTR.temperature, default: 1 },
    ...FILTER_ATTRS,
    labels: { ...ATTR.labels, default: null },
  };
  static controls = ['scores', 'temperature', 'filters', 'draw'];
  static strings = {
    ...BASE_STRINGS,
    ...TEMPERATURE_STRINGS,
    ...FILTER_STRINGS,
    title: 'Seeded sampling from softmax probabilities',
    scores: 'Scores',
    scoresHelp: 'Numbers separated by commas, e.g. 2, 1, 0 (also −inf or ln 2).',
    drawOne: 'Draw 1',
    drawMany: 'Draw {n}',
    startOver: 'Start over',
    legendP: 'probability the sampler draws from',
    legendD: 'share of your draws',
    histLabel: 'Probability and share of draws per option',
    row: 'p {p} · {n} drawn',
    last: 'Last draw: {label} · {n} draws so far',
    lastGreedy: ' · T = 0 is greedy: always the top score',
    greedy0: 'T = 0: greedy, every draw picks the top score.',
    none: 'No draws yet.',
    filtered: 'p 0 · filtered out',
    masked: 'p 0 · masked (−∞)',
  };

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
  get samplerOptions() {
    return samplerOptions(this.#opts);
  }
  get scores() {
    return this.#scores.slice();
  }
  set scores(list) {
    this.#scores = checkScores('softmax-sampler', list);
    this.sync();
    this.#restart(false);
  }

  /** Draws n tokens (1 or more) as the buttons do; returns the indices. */
  draw(n = 1) {
    if (!this.sm) throw new Error('softmax-sampler: not ready yet (await el.ready)');
    return this.#drawNow(n);
  }

  /** Forgets the draws and starts again from the seed. */
  reset() {
    this.#restart(false);
  }

  applyAttribute(name, v) {
    if (name === 'scores') this.#scores = v.slice();
    else if (name === 'labels') this.#labels = v;
    else if (name === 'temperature') this.#opts.temperature = v;
    else this.#opts[KEY[name]] = v;
    this.#dispose();
    this.#draws = [];
  }

  sync() {
    if (!this.field) return;
    this.field.set(this.#scores);
    this.temp.set(this.#opts.temperature);
    this.filters.sync(this.#opts);
  }

  build(root) {
    const commit = () => this.emit('change');
    this.field = scoresField(this, (list) => {
      this.#scores = list;
      this.#restart();
    }, { onCommit: commit });
    this.temp = new TemperatureControl(this, (t) => {
      this.#opts.temperature = t;
      this.#restart();
    }, commit);
    this.filters = filterFields(this, this.#opts, (key, v) => {
      this.#opts[key] = v;
      this.#restart();
    }, commit);
    const f = this.filters.fields;
    const one = h('button', { type: 'button', class: 'primary', part: 'button' }, this.s('drawOne'));
    const many = h('button', { type: 'button', class: 'primary', part: 'button' }, this.s('drawMany', { n: MANY.toLocaleString(this.locale) }));
    const clear = h('button', { type: 'button', part: 'button' }, this.s('startOver'));
    one.addEventListener('click', () => this.#drawNow(1));
    many.addEventListener('click', () => this.#drawNow(MANY));
    clear.addEventListener('click', () => this.#restart());
    this.last = h('p', { class: 'last', 'aria-live': 'polite' });
    this.error = h('p', { class: 'error', role: 'alert' });
    this.hist = h('ol', { class: 'hist', part: 'bars', 'aria-label': this.s('histLabel') });
    this.legend = h(
      'p',
      { class: 'legend' },
      h('span', { class: 'legend-item' }, h('span', { class: 'key key-p', 'aria-hidden': 'true' }), ` ${this.s('legendP')}`),
      h('span', { class: 'legend-item' }, h('span', { class: 'key key-d', 'aria-hidden': 'true' }), ` ${this.s('legendD')}`),
    );
    root.append(
      h(
        'div',
        { class: 'controls', part: 'controls' },
        this.control('scores', this.field.el),
        this.control('temperature', this.temp.el),
        this.control('filters', h('div', { class: 'filters' }, f.seed.el, f.topK.el, f.topP.el, f.minP.el)),
      ),
      this.control('draw', h('div', { class: 'buttons' }, one, many, clear)),
      this.last,
      this.error,
      this.legend,
      this.hist,
    );
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.#dispose();
  }

  #dispose() {
    this.#sampler?.dispose();
    this.#sampler = null;
  }

  #restart(emit = true) {
    this.#dispose();
    this.#draws = [];
    this.#error = '';
    if (this.sm) this.update();
    if (emit) this.emit();
  }

  #ensure() {
    if (this.#sampler) return this.#sampler;
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
    if (!this.sm || !this.hist) return;
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
            h('span', { class: 'name', part: 'bar-label' }),
            h('div', { class: 'hist-bars' }, h('div', { class: 'track thin', part: 'bar' }, h('div', { class: `fill p c${i % 8}`, part: 'bar-fill' })), h('div', { class: 'track', part: 'bar' }, h('div', { class: `fill d c${i % 8}`, part: 'bar-fill' }))),
            h('span', { class: 'prob', part: 'prob' }),
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
      // a count that is 0 with p = 0 says why instead: the filters cut the option, or its score is −∞
      num.textContent = p === 0 && counts[i] === 0 ? this.s(this.#scores[i] === -Infinity ? 'masked' : 'filtered') : this.s('row', { p: this.fmt(p), n: counts[i].toLocaleString(this.locale) });
      row.classList.toggle('picked', total > 0 && this.value === i);
      row.classList.toggle('filtered', p === 0);
      row.dataset.count = String(counts[i]);
      row.dataset.prob = String(p);
    });
    const t = this.#opts.temperature;
    this.last.textContent = total
      ? `${this.s('last', { label: labels[this.value], n: total.toLocaleString(this.locale) })}${t === 0 ? this.s('lastGreedy') : ''}`
      : t === 0
        ? this.s('greedy0')
        : this.s('none');
  }
}

define('softmax-sampler', SoftmaxSampler);
