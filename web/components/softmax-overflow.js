// <softmax-overflow scores="1000, 1001, 1002" shift="0">
// The textbook formula e^z / Σ e^z beside the max trick e^(z − max) / Σ, both
// in float32 as the wasm module computes them. Add the same number to every
// score: the max trick's answer never moves; the textbook one turns to NaN once
// e^z no longer fits in a float32 (z above about 88.7).
// .value: { naive, stable } (Float32Arrays). Fires `input` on every change.
import { WidgetElement, define, fmt, fmtScore, h, newId, parseScores, scoresField } from './base.js';

const SHIFT_MAX = 1000;

export class SoftmaxOverflow extends WidgetElement {
  static observedAttributes = ['scores', 'shift'];

  #scores = [1000, 1001, 1002];
  #shift = 0;
  #naive = new Float32Array(0);
  #stable = new Float32Array(0);

  get value() {
    return { naive: this.#naive.slice(), stable: this.#stable.slice() };
  }
  get scores() {
    return this.#scores.slice();
  }
  set scores(list) {
    this.#scores = Array.from(list, Number);
    this.field?.set(this.#scores);
    if (this.sm) this.update();
  }
  get shift() {
    return this.#shift;
  }
  set shift(c) {
    this.#shift = Number(c);
    this.#syncShift();
    if (this.sm) this.update();
  }

  fromAttributes() {
    try {
      this.#scores = parseScores(this.getAttribute('scores') ?? '1000, 1001, 1002');
    } catch {
      this.#scores = [1000, 1001, 1002];
    }
    const c = Number(this.getAttribute('shift') ?? 0);
    this.#shift = Number.isFinite(c) ? c : 0;
    this.field.set(this.#scores);
    this.#syncShift();
  }

  #syncShift() {
    if (!this.shiftRange) return;
    this.shiftRange.value = String(Math.max(-SHIFT_MAX, Math.min(SHIFT_MAX, this.#shift)));
    this.shiftNumber.value = String(this.#shift);
    this.shiftRange.setAttribute('aria-valuetext', `add ${this.#shift} to every score`);
  }

  build(frame) {
    this.field = scoresField((list) => {
      this.#scores = list;
      this.update();
      this.emit();
    });
    const id = newId('shift');
    this.shiftRange = h('input', { id, type: 'range', min: -SHIFT_MAX, max: SHIFT_MAX, step: 1 });
    this.shiftNumber = h('input', { type: 'number', step: 1, class: 'num', 'aria-label': 'Amount added to every score' });
    const onShift = (v) => {
      if (!Number.isFinite(v)) return;
      this.#shift = v;
      this.#syncShift();
      this.update();
      this.emit();
    };
    this.shiftRange.addEventListener('input', () => onShift(Number(this.shiftRange.value)));
    this.shiftNumber.addEventListener('input', () => this.shiftNumber.value !== '' && onShift(Number(this.shiftNumber.value)));
    this.shifted = h('p', { class: 'shifted' });
    this.naivePanel = h('div', { class: 'panel naive', role: 'group', 'aria-label': 'Textbook formula' });
    this.stablePanel = h('div', { class: 'panel stable', role: 'group', 'aria-label': 'Max trick' });
    this.verdict = h('p', { class: 'verdict', 'aria-live': 'polite' });
    frame.classList.add('softmax-overflow');
    frame.append(
      h(
        'div',
        { class: 'controls' },
        this.field.el,
        h('div', { class: 'field shift' }, h('label', { for: id }, 'Add the same number to every score'), h('div', { class: 'shift-row' }, this.shiftRange, this.shiftNumber)),
      ),
      this.shifted,
      h('div', { class: 'panels' }, this.naivePanel, this.stablePanel),
      this.verdict,
    );
    this.fromAttributes();
  }

  update() {
    if (!this.sm) return;
    const z = this.#scores.map((v) => v + this.#shift);
    const steps = this.sm.softmaxSteps(z);
    this.#naive = this.sm.softmaxNaive(z);
    this.#stable = steps.probs;
    const unshifted = this.sm.softmax(this.#scores);
    this.shifted.textContent = `Scores used: ${z.map(fmtScore).join(', ')}`;
    const list = (xs, cls) => h('span', { class: 'vec' }, ...Array.from(xs, (x) => h('span', { class: `chip ${Number.isNaN(x) || x === Infinity ? 'bad' : ''} ${cls ?? ''}` }, fmt(x, 4))));
    const line = (title, body) => h('div', { class: 'line' }, h('span', { class: 'line-title' }, title), body);
    this.naivePanel.replaceChildren(
      h('h4', {}, 'Textbook: e', h('sup', {}, 'z'), ' ÷ sum'),
      line('e^z', list(steps.rawExps)),
      line('sum', list([steps.rawSum])),
      line('result', list(this.#naive, 'result')),
    );
    this.stablePanel.replaceChildren(
      h('h4', {}, 'Max trick: e', h('sup', {}, 'z − max'), ' ÷ sum'),
      line('z − max', list(steps.shifted)),
      line('e^(z − max)', list(steps.exps)),
      line('sum', list([steps.sum])),
      line('result', list(this.#stable, 'result')),
    );
    const naiveBroken = Array.from(this.#naive).some((p) => !Number.isFinite(p));
    const same = this.#stable.every((p, i) => Math.abs(p - unshifted[i]) < 1e-6);
    this.verdict.replaceChildren(
      naiveBroken
        ? h('span', { class: 'bad-text' }, '✗ The textbook formula overflowed: e^z is too big for a float32, and ∞ ÷ ∞ is NaN. ')
        : h('span', { class: 'ok-text' }, '✓ The textbook formula still fits in a float32. '),
      same
        ? h('span', { class: 'ok-text' }, `✓ The max trick gives the same answer as for the scores without the ${fmtScore(this.#shift)} added: only the gaps matter.`)
        : h('span', { class: 'bad-text' }, 'The shifted answer differs from the unshifted one (rounding of very large scores in float32).'),
    );
  }
}

define('softmax-overflow', SoftmaxOverflow);
