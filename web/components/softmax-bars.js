// <softmax-bars scores="0.707, 0, 0.707" temperature="1" labels="A, B, C" steps>
// Editable scores (type them, or drag a bar, or focus a bar and use the arrow
// keys), a temperature slider from 0 (greedy) to 5 plus ∞ (flat), the
// probabilities as bars, and the steps of the computation on demand.
// .value: the probabilities (Float32Array). Fires `input` on every change.
import { TemperatureControl, WidgetElement, define, fmt, fmtScore, fmtT, h, labelsFor, newId, parseLabels, parseScores, parseTemperature, scoresField } from './base.js';

const UNITS_ACROSS = 10; // dragging across the whole track changes a score by this much

export class SoftmaxBars extends WidgetElement {
  static observedAttributes = ['scores', 'temperature', 'labels', 'steps'];

  #scores = [2, 1, 0];
  #t = 1;
  #labels = null;
  #steps = null;
  #probs = new Float32Array(0);

  get value() {
    return this.#probs.slice();
  }
  get scores() {
    return this.#scores.slice();
  }
  set scores(list) {
    this.#scores = Array.from(list, Number);
    this.scoresField?.set(this.#scores);
    if (this.sm) this.update();
  }
  get temperature() {
    return this.#t;
  }
  set temperature(t) {
    this.#t = t;
    this.temp?.set(t);
    if (this.sm) this.update();
  }
  /** The steps of the last computation (sm.softmaxSteps), for pages that want to show them elsewhere. */
  get steps() {
    return this.#steps;
  }

  fromAttributes() {
    try {
      this.#scores = parseScores(this.getAttribute('scores') ?? '2, 1, 0');
    } catch {
      this.#scores = [2, 1, 0];
    }
    this.#t = parseTemperature(this.getAttribute('temperature'));
    this.#labels = parseLabels(this.getAttribute('labels'));
    this.scoresField.set(this.#scores);
    this.temp.set(this.#t);
    this.stepsToggle.checked = this.hasAttribute('steps');
    this.stepsBox.hidden = !this.stepsToggle.checked;
  }

  build(frame) {
    this.scoresField = scoresField((list) => {
      this.#scores = list;
      this.update();
      this.emit();
    }, { help: 'Numbers separated by commas. Or drag a bar sideways, or focus it and press the arrow keys.' });
    this.temp = new TemperatureControl((t) => {
      this.#t = t;
      this.update();
      this.emit();
    });
    const toggleId = newId('steps');
    this.stepsToggle = h('input', { id: toggleId, type: 'checkbox', 'aria-controls': `${toggleId}-box` });
    this.stepsToggle.addEventListener('change', () => {
      this.stepsBox.hidden = !this.stepsToggle.checked;
      this.update();
    });
    this.list = h('ol', { class: 'bars', 'aria-label': 'Probabilities' });
    this.stepsBox = h('div', { id: `${toggleId}-box`, class: 'steps', 'aria-live': 'polite' });
    this.sumLine = h('p', { class: 'sum-line' });
    frame.classList.add('softmax-bars');
    frame.append(
      h('div', { class: 'controls' }, this.scoresField.el, this.temp.el, h('div', { class: 'field toggle' }, this.stepsToggle, h('label', { for: toggleId }, 'Show the steps'))),
      this.list,
      this.sumLine,
      this.stepsBox,
    );
    this.fromAttributes();
  }

  /** Rebuilds the rows when the number of entries changes; otherwise updates in place. */
  #rows(n) {
    if (this.list.children.length === n) return [...this.list.children];
    this.list.replaceChildren();
    for (let i = 0; i < n; i++) {
      const fill = h('div', { class: `fill c${i % 8}` });
      const track = h('div', { class: 'track', role: 'slider', tabindex: 0, 'aria-valuemin': -100, 'aria-valuemax': 100 }, fill);
      this.#dragAndKeys(track, i);
      const row = h('li', { class: 'bar-row' }, h('span', { class: 'name' }), h('span', { class: 'score' }), track, h('span', { class: 'prob' }));
      this.list.append(row);
    }
    return [...this.list.children];
  }

  #setScore(i, v) {
    const r = Math.round(v * 100) / 100;
    if (this.#scores[i] === r) return;
    this.#scores[i] = r;
    this.scoresField.set(this.#scores);
    this.update();
    this.emit();
  }

  #dragAndKeys(track, i) {
    track.addEventListener('keydown', (e) => {
      const step = e.shiftKey || e.key === 'PageUp' || e.key === 'PageDown' ? 1 : 0.1;
      const dir = { ArrowRight: 1, ArrowUp: 1, PageUp: 1, ArrowLeft: -1, ArrowDown: -1, PageDown: -1 }[e.key];
      if (!dir) return;
      e.preventDefault();
      this.#setScore(i, this.#scores[i] + dir * step);
    });
    let start = null;
    track.addEventListener('pointerdown', (e) => {
      if (!Number.isFinite(this.#scores[i])) return;
      track.setPointerCapture(e.pointerId);
      start = { x: e.clientX, score: this.#scores[i], width: track.getBoundingClientRect().width || 200 };
      track.classList.add('dragging');
      e.preventDefault();
    });
    track.addEventListener('pointermove', (e) => {
      if (!start) return;
      this.#setScore(i, start.score + ((e.clientX - start.x) / start.width) * UNITS_ACROSS);
    });
    const end = () => {
      start = null;
      track.classList.remove('dragging');
    };
    track.addEventListener('pointerup', end);
    track.addEventListener('pointercancel', end);
  }

  update() {
    if (!this.sm) return;
    const steps = this.sm.softmaxSteps(this.#scores, { temperature: this.#t });
    this.#steps = steps;
    this.#probs = steps.probs;
    const labels = labelsFor(this.#scores.length, this.#labels);
    const rows = this.#rows(this.#scores.length);
    const top = this.sm.argmax(steps.probs);
    rows.forEach((row, i) => {
      const [name, score, track, prob] = row.children;
      const p = steps.probs[i];
      name.textContent = labels[i];
      score.textContent = `z = ${fmtScore(this.#scores[i])}`;
      track.firstChild.style.width = `${Number.isFinite(p) ? p * 100 : 0}%`; // CSSOM, allowed by style-src 'self'
      prob.textContent = fmt(p);
      row.classList.toggle('top', i === top);
      track.setAttribute('aria-label', `Score of ${labels[i]}`);
      track.setAttribute('aria-valuenow', String(Number.isFinite(this.#scores[i]) ? this.#scores[i] : 0));
      track.setAttribute('aria-valuetext', `score ${fmtScore(this.#scores[i])}, probability ${fmt(p)}`);
      row.dataset.prob = String(p);
    });
    const total = steps.probs.reduce((a, b) => a + b, 0);
    this.sumLine.textContent = `T = ${fmtT(this.#t)} · the bars add up to ${fmt(total)}`;
    if (this.stepsToggle.checked) this.#renderSteps(steps, labels);
  }

  #renderSteps(s, labels) {
    const t = this.#t;
    const vec = (xs, cls = '') =>
      h('span', { class: `vec ${cls}` }, ...Array.from(xs, (x, i) => h('span', { class: `chip c${i % 8}`, title: labels[i] }, fmt(x))));
    const step = (title, ...body) => h('li', {}, h('span', { class: 'step-title' }, title), ' ', ...body);
    const items = [];
    if (t === 0) {
      items.push(step('Divide by T = 0:', 'the limit of a very small T. The top score stays at 0 after the shift; every other one falls to −∞.'));
    } else if (t === Infinity) {
      items.push(step('Divide by T = ∞:', 'every score becomes 0, so every option ends up equal.'));
    } else if (t !== 1) {
      items.push(step(`Divide by T = ${fmtT(t)}:`, vec(s.scaled)));
    } else {
      items.push(step('Divide by T = 1:', 'nothing changes. ', vec(s.scaled)));
    }
    items.push(
      step('Textbook way, e to each:', vec(s.rawExps), h('span', { class: 'eq' }, ` sum ${fmt(s.rawSum)}`), Number.isFinite(s.rawSum) ? '' : h('strong', { class: 'warn' }, ' overflow!')),
      step(`Subtract the max (${fmt(s.max)}):`, vec(s.shifted)),
      step('e to each (now all between 0 and 1):', vec(s.exps)),
      step('Add them up:', h('span', { class: 'eq' }, fmt(s.sum))),
      step('Divide each by the sum:', vec(s.probs, 'result')),
    );
    this.stepsBox.replaceChildren(h('ol', { class: 'step-list' }, items));
  }
}

define('softmax-bars', SoftmaxBars);
