// <softmax-bars scores="0.707, 0, 0.707" temperature="1" labels="A, B, C" steps stacked>
// Editable scores (type them, or drag a bar, or focus a bar and use the arrow
// keys), a temperature slider from 0 (greedy) to 5 plus ∞ (flat), the
// probabilities as bars, optionally as one stacked bar that always fills to 1,
// and the steps of the computation on demand.
// .value: the probabilities (Float32Array). Fires `input` on every change,
// `change` when the reader lets go. Controls: scores, temperature, steps, bars.
import { ATTR, BASE_STRINGS, capture, checkNumber, checkScores, TEMPERATURE_STRINGS, TemperatureControl, WidgetElement, addStep, define, h, labelsFor, newId, scoresField } from './base.js';

const UNITS_ACROSS = 10; // dragging across the whole track changes a score by this much

export class SoftmaxBars extends WidgetElement {
  static attrs = {
    scores: { ...ATTR.scores(12), default: [2, 1, 0] },
    temperature: { ...ATTR.temperature, default: 1 },
    labels: { ...ATTR.labels, default: null },
    steps: { ...ATTR.flag, default: false },
    stacked: { ...ATTR.flag, default: false },
  };
  static controls = ['scores', 'temperature', 'steps', 'bars'];
  static strings = {
    ...BASE_STRINGS,
    ...TEMPERATURE_STRINGS,
    title: 'Softmax: scores to probabilities',
    scores: 'Scores',
    scoresHelp: 'Numbers separated by commas. Or drag a bar sideways, or focus it and press the arrow keys.',
    showSteps: 'Show the steps',
    probabilities: 'Probabilities',
    scoreOf: 'Score of {label}',
    valueText: 'score {score}, probability {p}',
    sumLine: 'T = {t} · the bars add up to {sum}',
    stackCaption: 'The same probabilities stacked: together they always fill the bar, whatever T is.',
    allMasked: 'Every score is −∞ (masked): there is nothing to share out, so softmax has no answer here (NaN). Give at least one option a finite score.',
    top: 'top score',
    divideZero: 'the limit of a very small T. The top score stays at 0 after the shift; every other one falls to −∞.',
    divideInf: 'every score becomes 0, so every option ends up equal.',
    divideOne: 'nothing changes.',
    divideBy: 'Divide by T = {t}:',
    textbook: 'Textbook way, e to each:',
    sum: 'sum {sum}',
    overflow: 'overflow!',
    subtractMax: 'Subtract the max ({max}):',
    expEach: 'e to each (now all between 0 and 1):',
    addUp: 'Add them up:',
    divide: 'Divide each by the sum:',
  };

  #scores = [2, 1, 0];
  #t = 1;
  #labels = null;
  #showSteps = false;
  #stacked = false;
  #steps = null;
  #probs = new Float32Array(0);

  get value() {
    return this.#probs.slice();
  }
  get scores() {
    return this.#scores.slice();
  }
  set scores(list) {
    this.#scores = checkScores('softmax-bars', list);
    this.sync();
    if (this.sm) this.update();
  }
  get temperature() {
    return this.#t;
  }
  set temperature(t) {
    this.#t = checkNumber('softmax-bars', 'temperature', t, { min: 0, inf: true });
    this.sync();
    if (this.sm) this.update();
  }
  /** The steps of the last computation (sm.softmaxSteps), for pages that show them elsewhere. */
  get steps() {
    return this.#steps;
  }

  applyAttribute(name, v) {
    if (name === 'scores') this.#scores = v.slice();
    else if (name === 'temperature') this.#t = v;
    else if (name === 'labels') this.#labels = v;
    else if (name === 'steps') this.#showSteps = v;
    else if (name === 'stacked') this.#stacked = v;
  }

  sync() {
    if (!this.scoresField) return;
    this.scoresField.set(this.#scores);
    this.temp.set(this.#t);
    this.stepsToggle.checked = this.#showSteps;
    this.stepsBox.hidden = !this.#showSteps;
    this.stack.hidden = !this.#stacked;
  }

  build(root) {
    const changed = () => {
      this.update();
      this.emit();
    };
    this.scoresField = scoresField(this, (list) => {
      this.#scores = list;
      changed();
    }, { onCommit: () => this.emit('change') });
    this.temp = new TemperatureControl(this, (t) => {
      this.#t = t;
      changed();
    }, () => this.emit('change'));
    const toggleId = newId('steps');
    this.stepsToggle = h('input', { id: toggleId, type: 'checkbox', 'aria-controls': `${toggleId}-box` });
    this.stepsToggle.addEventListener('change', () => {
      this.#showSteps = this.stepsToggle.checked;
      this.stepsBox.hidden = !this.#showSteps;
      this.update();
    });
    this.list = h('ol', { class: 'bars', part: 'bars', 'aria-label': this.s('probabilities') });
    this.stack = h('div', { class: 'stack-wrap' }, h('div', { class: 'stack', part: 'stack', role: 'img' }), h('p', { class: 'help' }, this.s('stackCaption')));
    this.masked = h('p', { class: 'note', role: 'status' });
    this.stepsBox = h('div', { id: `${toggleId}-box`, class: 'steps', part: 'steps', 'aria-live': 'polite' });
    this.sumLine = h('p', { class: 'sum-line' });
    this.bars = this.control('bars', h('div', { class: 'bars-wrap' }, this.list));
    root.append(
      h(
        'div',
        { class: 'controls', part: 'controls' },
        this.control('scores', this.scoresField.el),
        this.control('temperature', this.temp.el),
        this.control('steps', h('div', { class: 'field toggle' }, this.stepsToggle, h('label', { for: toggleId }, this.s('showSteps')))),
      ),
      this.bars,
      this.masked,
      this.stack,
      this.sumLine,
      this.stepsBox,
    );
  }

  /** Rebuilds the rows when the number of entries changes; otherwise updates in place. */
  #rows(n) {
    if (this.list.children.length === n) return [...this.list.children];
    this.list.replaceChildren();
    for (let i = 0; i < n; i++) {
      const fill = h('div', { class: `fill c${i % 8}`, part: 'bar-fill' });
      const track = h('div', { class: 'track', part: 'bar', role: 'slider', tabindex: this.isLocked('bars') ? -1 : 0, 'aria-valuemin': -100, 'aria-valuemax': 100, 'aria-disabled': String(this.isLocked('bars')) }, fill);
      this.#dragAndKeys(track, i);
      const row = h('li', { class: 'bar-row' }, h('span', { class: 'name', part: 'bar-label' }), h('span', { class: 'score' }), track, h('span', { class: 'prob', part: 'prob' }));
      this.list.append(row);
    }
    return [...this.list.children];
  }

  #setScore(i, v) {
    if (this.#scores[i] === v) return;
    this.#scores[i] = v;
    this.scoresField.set(this.#scores);
    this.update();
    this.emit();
  }

  #dragAndKeys(track, i) {
    track.addEventListener('keydown', (e) => {
      if (this.isLocked('bars')) return;
      const step = e.shiftKey || e.key === 'PageUp' || e.key === 'PageDown' ? 1 : 0.1;
      const dir = { ArrowRight: 1, ArrowUp: 1, PageUp: 1, ArrowLeft: -1, ArrowDown: -1, PageDown: -1 }[e.key];
      if (!dir || !Number.isFinite(this.#scores[i])) return;
      e.preventDefault();
      this.#setScore(i, addStep(this.#scores[i], dir * step));
      this.emit('change');
    });
    let start = null;
    track.addEventListener('pointerdown', (e) => {
      if (this.isLocked('bars') || !Number.isFinite(this.#scores[i])) return;
      capture(track, e.pointerId);
      start = { x: e.clientX, score: this.#scores[i], width: track.getBoundingClientRect().width || 200 };
      track.classList.add('dragging');
      e.preventDefault();
    });
    track.addEventListener('pointermove', (e) => {
      if (!start) return;
      // a dragged score moves in steps of 0.01; the others keep every digit they had
      this.#setScore(i, Math.round((start.score + ((e.clientX - start.x) / start.width) * UNITS_ACROSS) * 100) / 100);
    });
    const end = () => {
      if (!start) return;
      const moved = this.#scores[i] !== start.score;
      start = null;
      track.classList.remove('dragging');
      if (moved) this.emit('change');
    };
    track.addEventListener('pointerup', end);
    track.addEventListener('pointercancel', end);
  }

  update() {
    if (!this.sm || !this.list) return;
    const steps = this.sm.softmaxSteps(this.#scores, { temperature: this.#t });
    this.#steps = steps;
    this.#probs = steps.probs;
    const labels = labelsFor(this.#scores.length, this.#labels);
    const rows = this.#rows(this.#scores.length);
    const maxScore = Math.max(...this.#scores);
    const allMasked = this.#scores.every((z) => z === -Infinity);
    rows.forEach((row, i) => {
      const [name, score, track, prob] = row.children;
      const p = steps.probs[i];
      name.textContent = labels[i];
      score.textContent = `z = ${this.fmtScore(this.#scores[i])}`;
      track.firstChild.style.width = `${Number.isFinite(p) ? p * 100 : 0}%`; // CSSOM, allowed by style-src 'self'
      prob.textContent = this.fmt(p);
      // every entry holding the top score is starred: ties share the top
      const top = !allMasked && this.#scores[i] === maxScore;
      row.classList.toggle('top', top);
      name.title = top ? this.s('top') : '';
      track.setAttribute('aria-label', this.s('scoreOf', { label: labels[i] }));
      track.setAttribute('aria-valuenow', String(Number.isFinite(this.#scores[i]) ? this.#scores[i] : 0));
      track.setAttribute('aria-valuetext', this.s('valueText', { score: this.fmtScore(this.#scores[i]), p: this.fmt(p) }));
      row.dataset.prob = String(p);
    });
    this.masked.textContent = allMasked ? this.s('allMasked') : '';
    const stack = this.stack.firstChild;
    if (stack.children.length !== this.#scores.length) {
      stack.replaceChildren(...this.#scores.map((_, i) => h('span', { class: `seg c${i % 8}`, part: 'stack-segment' })));
    }
    [...stack.children].forEach((seg, i) => {
      const p = steps.probs[i];
      seg.style.width = `${Number.isFinite(p) ? p * 100 : 0}%`;
      seg.textContent = p >= 0.08 ? `${labels[i]} ${this.fmt(p, 2)}` : '';
      seg.title = `${labels[i]}: ${this.fmt(p)}`;
    });
    stack.setAttribute('aria-label', labels.map((l, i) => `${l} ${this.fmt(steps.probs[i])}`).join(', '));
    const total = steps.probs.reduce((a, b) => a + b, 0);
    this.sumLine.textContent = this.s('sumLine', { t: this.fmtT(this.#t), sum: this.fmt(total) });
    if (this.#showSteps) this.#renderSteps(steps, labels);
  }

  #renderSteps(s, labels) {
    const t = this.#t;
    const vec = (xs, cls = '') =>
      h('span', { class: `vec ${cls}` }, ...Array.from(xs, (x, i) => h('span', { class: `chip c${i % 8}`, title: labels[i] }, this.fmt(x))));
    const step = (title, ...body) => h('li', {}, h('span', { class: 'step-title' }, title), ' ', ...body);
    const items = [];
    const divide = this.s('divideBy', { t: this.fmtT(t) });
    if (t === 0) items.push(step(divide, this.s('divideZero')));
    else if (t === Infinity) items.push(step(divide, this.s('divideInf')));
    else if (t !== 1) items.push(step(divide, vec(s.scaled)));
    else items.push(step(divide, `${this.s('divideOne')} `, vec(s.scaled)));
    // the textbook sum as float32 holds it: past 3.4e38 it is ∞
    const rawSum32 = Math.fround(s.rawSum);
    items.push(
      step(this.s('textbook'), vec(s.rawExps), h('span', { class: 'eq' }, ` ${this.s('sum', { sum: this.fmt(rawSum32) })}`), Number.isFinite(rawSum32) ? '' : h('strong', { class: 'warn' }, ` ${this.s('overflow')}`)),
      step(this.s('subtractMax', { max: this.fmt(s.max) }), vec(s.shifted)),
      step(this.s('expEach'), vec(s.exps)),
      step(this.s('addUp'), h('span', { class: 'eq' }, this.fmt(s.sum))),
      step(this.s('divide'), vec(s.probs, 'result')),
    );
    this.stepsBox.replaceChildren(h('ol', { class: 'step-list' }, items));
  }
}

define('softmax-bars', SoftmaxBars);
