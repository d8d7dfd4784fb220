// <softmax-overflow scores="1000, 1001, 1002" shift="0">
// The textbook formula e^z / Σ e^z beside the max trick e^(z − max) / Σ, both
// in float32 as the wasm module computes them. Add the same number to every
// score: the max trick's answer never moves; the textbook one breaks once the
// float32 sum of the e^z passes 3.4 × 10³⁸; downwards, it loses digits once the
// e^z fall below the smallest normal float32 and fails once every e^z is 0.
// .value: { naive, stable } (Float32Arrays); .breaksAbove / .losesDigitsBelow /
// .breaksBelow: the shifts where the textbook formula overflows, starts to lose
// digits and underflows for these scores.
// Fires `input` on every change, `change` when the reader lets go.
import { ATTR, BASE_STRINGS, checkNumber, checkScores, WidgetElement, define, h, newId, scoresField } from './base.js';

const SHIFT_MAX = 1000;
const LN_FLT_MAX = Math.log(3.4028234663852886e38); // 88.7228…: e^z above this is ∞ in float32
const LN_FLT_MIN = Math.log(1.1754943508222875e-38); // −87.336…: e^z below this is a subnormal float32 (fewer digits)
const LN_FLT_TRUE_MIN = Math.log(1.401298464324817e-45); // −103.279…: e^z below this is 0 in float32

export class SoftmaxOverflow extends WidgetElement {
  static attrs = {
    scores: { ...ATTR.scores(12), default: [1000, 1001, 1002] },
    shift: { ...ATTR.number(-1e6, 1e6), default: 0 },
  };
  static controls = ['scores', 'shift'];
  static strings = {
    ...BASE_STRINGS,
    title: 'The textbook formula against the max trick',
    scores: 'Scores',
    scoresHelp: 'Numbers separated by commas, e.g. 2, 1, 0 (also −inf or ln 2).',
    shift: 'Add the same number to every score',
    shiftNumber: 'Amount added to every score',
    shiftText: 'add {shift} to every score',
    used: 'Scores used: {scores}',
    textbookTitle: 'Textbook: e^z ÷ sum (float32)',
    trickTitle: 'Max trick: e^(z − max) ÷ sum',
    sum: 'sum',
    result: 'result',
    overflowed: '✗ The textbook formula overflowed: the float32 sum of the e^z passed 3.4 × 10³⁸ and became ∞, so every e^z ÷ ∞ is 0 (or ∞ ÷ ∞, NaN).',
    underflowed: '✗ The textbook formula underflowed: every e^z is below the smallest float32 and became 0, and 0 ÷ 0 is NaN.',
    lostDigits: '✗ The textbook formula lost precision: the e^z are below the smallest normal float32 (1.2 × 10⁻³⁸), where a float32 keeps fewer digits or rounds to 0, so its answer is off.',
    fitsBarely: '✓ The textbook formula still works, barely: the e^z are below the smallest normal float32 (1.2 × 10⁻³⁸) and keep fewer digits; a little lower and its answer drifts.',
    fits: '✓ The textbook formula still works: the sum of the e^z fits in a float32.',
    same: '✓ The max trick gives the same answer as for the scores without the {shift} added: only the gaps matter.',
    sameAtZero: '✓ Move the shift: the max trick’s answer will not change, because only the gaps matter.',
    differs: 'The shifted answer differs from the unshifted one (rounding of very large scores in float32).',
    window: 'For these scores the textbook formula works while the shift stays between about {lo} and {hi}: above, the sum of the e^z overflows (the largest score is then about {top}); below, the e^z lose digits, and below {zero} every one is 0.',
  };

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
    this.#scores = checkScores('softmax-overflow', list);
    this.sync();
    if (this.sm) this.update();
  }
  get shift() {
    return this.#shift;
  }
  set shift(c) {
    this.#shift = checkNumber('softmax-overflow', 'shift', c, { min: -1e6, max: 1e6 });
    this.sync();
    if (this.sm) this.update();
  }
  /** The shift above which the float32 sum of e^(z + shift) overflows: ln(FLT_MAX) − ln Σ e^z (float64). */
  get breaksAbove() {
    const m = Math.max(...this.#scores);
    if (!Number.isFinite(m)) return NaN;
    return LN_FLT_MAX - (m + Math.log(this.#scores.reduce((s, z) => s + Math.exp(z - m), 0)));
  }
  /** The shift below which the largest e^(z + shift) is a subnormal float32 (fewer digits): ln(FLT_MIN) − max. */
  get losesDigitsBelow() {
    return LN_FLT_MIN - Math.max(...this.#scores);
  }
  /** The shift below which every e^(z + shift) underflows to 0 in float32. */
  get breaksBelow() {
    return LN_FLT_TRUE_MIN - Math.max(...this.#scores);
  }

  applyAttribute(name, v) {
    if (name === 'scores') this.#scores = v.slice();
    else if (name === 'shift') this.#shift = v;
  }

  sync() {
    if (!this.shiftRange) return;
    this.field.set(this.#scores);
    this.shiftRange.value = String(Math.max(-SHIFT_MAX, Math.min(SHIFT_MAX, this.#shift)));
    this.shiftNumber.value = String(this.#shift);
    this.shiftRange.setAttribute('aria-valuetext', this.s('shiftText', { shift: this.fmtScore(this.#shift) }));
  }

  build(root) {
    this.field = scoresField(this, (list) => {
      this.#scores = list;
      this.update();
      this.emit();
    }, { onCommit: () => this.emit('change') });
    const id = newId('shift');
    this.shiftRange = h('input', { id, type: 'range', min: -SHIFT_MAX, max: SHIFT_MAX, step: 0.5, part: 'slider' });
    this.shiftNumber = h('input', { type: 'number', step: 0.5, class: 'num', part: 'input', 'aria-label': this.s('shiftNumber') });
    const onShift = (v) => {
      if (!Number.isFinite(v)) return;
      this.#shift = v;
      this.sync();
      this.update();
      this.emit();
    };
    this.shiftRange.addEventListener('input', () => onShift(Number(this.shiftRange.value)));
    this.shiftNumber.addEventListener('input', () => this.shiftNumber.value !== '' && onShift(Number(this.shiftNumber.value)));
    for (const el of [this.shiftRange, this.shiftNumber]) el.addEventListener('change', () => this.emit('change'));
    this.shifted = h('p', { class: 'shifted' });
    this.naivePanel = h('div', { class: 'panel naive', part: 'panel', role: 'group', 'aria-label': this.s('textbookTitle') });
    this.stablePanel = h('div', { class: 'panel stable', part: 'panel', role: 'group', 'aria-label': this.s('trickTitle') });
    this.verdict = h('p', { class: 'verdict', 'aria-live': 'polite' });
    this.windowLine = h('p', { class: 'help window' });
    root.append(
      h(
        'div',
        { class: 'controls', part: 'controls' },
        this.control('scores', this.field.el),
        this.control('shift', h('div', { class: 'field shift', part: 'field' }, h('label', { for: id }, this.s('shift')), h('div', { class: 'shift-row' }, this.shiftRange, this.shiftNumber))),
      ),
      this.shifted,
      h('div', { class: 'panels' }, this.naivePanel, this.stablePanel),
      this.verdict,
      this.windowLine,
    );
  }

  update() {
    if (!this.sm || !this.naivePanel) return;
    const z = this.#scores.map((v) => v + this.#shift);
    const steps = this.sm.softmaxSteps(z);
    this.#naive = this.sm.softmaxNaive(z);
    this.#stable = steps.probs;
    const unshifted = this.sm.softmax(this.#scores);
    const rawSum32 = Math.fround(steps.rawSum); // the textbook sum as a float32 holds it
    this.shifted.textContent = this.s('used', { scores: z.map((v) => this.fmtScore(v)).join(', ') });
    const naiveWrong = Array.from(this.#naive).some((p, i) => !(Math.abs(p - this.#stable[i]) < 1e-4));
    const list = (xs, cls, wrong = false) => h('span', { class: 'vec' }, ...Array.from(xs, (x) => h('span', { class: `chip ${wrong || Number.isNaN(x) || x === Infinity ? 'bad' : ''} ${cls ?? ''}` }, this.fmt(x, 4))));
    const line = (title, body) => h('div', { class: 'line' }, h('span', { class: 'line-title' }, title), body);
    this.naivePanel.replaceChildren(
      h('h4', {}, this.s('textbookTitle')),
      line('e^z', list(steps.rawExps)),
      line(this.s('sum'), list([rawSum32])),
      line(this.s('result'), list(this.#naive, 'result', naiveWrong)),
    );
    this.stablePanel.replaceChildren(
      h('h4', {}, this.s('trickTitle')),
      line('z − max', list(steps.shifted)),
      line('e^(z − max)', list(steps.exps)),
      line(this.s('sum'), list([steps.sum])),
      line(this.s('result'), list(this.#stable, 'result')),
    );
    const overflowed = !Number.isFinite(rawSum32);
    const underflowed = !overflowed && rawSum32 === 0 && this.#scores.some(Number.isFinite);
    // the textbook result is finite but its e^z are subnormal: digits lost (the answer drifts, then jumps to 0 and 1)
    const subnormal = !overflowed && !underflowed && Math.max(...steps.rawExps) < 1.1754943508222875e-38;
    const same = this.#stable.every((p, i) => Math.abs(p - unshifted[i]) < 1e-6);
    const verdict = overflowed ? 'overflowed' : underflowed ? 'underflowed' : naiveWrong ? (subnormal ? 'lostDigits' : 'underflowed') : subnormal ? 'fitsBarely' : 'fits';
    this.verdict.dataset.verdict = verdict;
    this.verdict.replaceChildren(
      h('span', { class: verdict.startsWith('fits') ? 'ok-text' : 'bad-text' }, this.s(verdict)),
      same
        ? h('span', { class: 'ok-text' }, this.#shift === 0 ? this.s('sameAtZero') : this.s('same', { shift: this.fmtScore(this.#shift) }))
        : h('span', { class: 'bad-text' }, this.s('differs')),
    );
    const hi = this.breaksAbove;
    this.windowLine.textContent = Number.isFinite(hi)
      ? this.s('window', { lo: this.fmt(this.losesDigitsBelow, 1), hi: this.fmt(hi, 1), top: this.fmt(Math.max(...this.#scores) + hi, 1), zero: this.fmt(this.breaksBelow, 1) })
      : '';
  }
}

define('softmax-overflow', SoftmaxOverflow);
