// <softmax-sigmoid z="2">
// Two options with scores [z, 0]: the first one's softmax probability is the
// sigmoid of z. A slider (or a drag along the curve) sets z; the plot shows the
// S-curve and the point; the bars show softmax([z, 0]).
// .value: sigmoid(z). Fires `input` on every change.
import { ATTR, BASE_STRINGS, capture, checkNumber, WidgetElement, define, h, newId } from './base.js';

const ZMAX = 6;
const W = 320;
const H = 180;
const PAD = { l: 34, r: 10, t: 12, b: 26 };
const X = (z) => PAD.l + ((z + ZMAX) / (2 * ZMAX)) * (W - PAD.l - PAD.r);
const Y = (p) => PAD.t + (1 - p) * (H - PAD.t - PAD.b);

export class SoftmaxSigmoid extends WidgetElement {
  static attrs = { z: { ...ATTR.number(-ZMAX, ZMAX), default: 2 } };
  static controls = ['z'];
  static strings = {
    ...BASE_STRINGS,
    title: 'Two options: softmax and the sigmoid',
    z: 'Score z of the first option (the second has 0)',
    plotTitle: 'The sigmoid curve: the probability of the first option against its score z',
    bars: 'softmax of [z, 0]',
    first: 'first',
    second: 'second',
    same: ' — the same number.',
    andSoftmax: ' and softmax([{z}, 0]) gives the first option ',
  };

  #z = 2;
  #p = NaN;

  get value() {
    return this.#p;
  }
  get z() {
    return this.#z;
  }
  set z(v) {
    this.#z = checkNumber('softmax-sigmoid', 'z', v, { min: -ZMAX, max: ZMAX });
    this.sync();
    if (this.sm) this.update();
  }

  applyAttribute(name, v) {
    if (name === 'z') this.#z = v;
  }

  sync() {
    if (this.range) this.range.value = String(this.#z);
  }

  build(root) {
    const id = newId('z');
    this.range = h('input', { id, type: 'range', min: -ZMAX, max: ZMAX, step: 0.1, part: 'slider' });
    this.range.addEventListener('input', () => this.#set(Number(this.range.value)));
    this.range.addEventListener('change', () => this.emit('change'));
    this.zOut = h('output', { for: id, class: 'temp-value' });

    const curve = [];
    for (let i = 0; i <= 120; i++) {
      const z = -ZMAX + (i / 120) * 2 * ZMAX;
      curve.push(`${i ? 'L' : 'M'}${X(z).toFixed(1)},${Y(1 / (1 + Math.exp(-z))).toFixed(1)}`);
    }
    this.dot = h('circle', { r: 6, class: 'dot' });
    this.guideX = h('line', { class: 'guide' });
    this.guideY = h('line', { class: 'guide' });
    const ticks = [];
    for (const p of [0, 0.5, 1]) {
      ticks.push(h('line', { x1: PAD.l, x2: W - PAD.r, y1: Y(p), y2: Y(p), class: 'grid' }), h('text', { x: PAD.l - 6, y: Y(p) + 4, class: 'axis-label end' }, String(p)));
    }
    for (const z of [-6, -4, -2, 0, 2, 4, 6]) {
      ticks.push(h('text', { x: X(z), y: H - 8, class: 'axis-label middle' }, String(z).replace('-', '−')));
    }
    this.svg = h(
      'svg',
      { viewBox: `0 0 ${W} ${H}`, class: 'plot', part: 'plot', role: 'img', 'aria-labelledby': `${id}-plot-title` },
      h('title', { id: `${id}-plot-title` }, this.s('plotTitle')),
      ...ticks,
      h('line', { x1: X(0), x2: X(0), y1: PAD.t, y2: H - PAD.b, class: 'grid' }),
      h('path', { d: curve.join(''), class: 'curve' }),
      this.guideX,
      this.guideY,
      this.dot,
    );
    let dragging = false;
    const fromPointer = (e) => {
      const r = this.svg.getBoundingClientRect();
      const x = ((e.clientX - r.left) / r.width) * W;
      const z = ((x - PAD.l) / (W - PAD.l - PAD.r)) * 2 * ZMAX - ZMAX;
      this.#set(Math.round(Math.max(-ZMAX, Math.min(ZMAX, z)) * 10) / 10);
    };
    this.svg.addEventListener('pointerdown', (e) => {
      if (this.isLocked('z')) return;
      dragging = true;
      capture(this.svg, e.pointerId);
      fromPointer(e);
    });
    this.svg.addEventListener('pointermove', (e) => dragging && fromPointer(e));
    this.svg.addEventListener('pointerup', () => {
      if (dragging) this.emit('change');
      dragging = false;
    });
    this.svg.addEventListener('pointercancel', () => (dragging = false));

    this.bars = h('ol', { class: 'bars', part: 'bars', 'aria-label': this.s('bars') });
    for (let i = 0; i < 2; i++) {
      this.bars.append(
        h('li', { class: 'bar-row' }, h('span', { class: 'name', part: 'bar-label' }, this.s(i ? 'second' : 'first')), h('span', { class: 'score' }), h('div', { class: 'track', part: 'bar' }, h('div', { class: `fill c${i}`, part: 'bar-fill' })), h('span', { class: 'prob', part: 'prob' })),
      );
    }
    this.equation = h('p', { class: 'equation', 'aria-live': 'polite' });
    root.append(
      h('div', { class: 'controls', part: 'controls' }, this.control('z', h('div', { class: 'field', part: 'field' }, h('label', { for: id }, this.s('z')), h('div', { class: 'temp-row' }, this.range, this.zOut)))),
      this.svg,
      this.bars,
      this.equation,
    );
  }

  #set(z) {
    if (z === this.#z) return;
    this.#z = z;
    this.range.value = String(z);
    this.update();
    this.emit();
  }

  update() {
    if (!this.sm || !this.dot) return;
    const z = this.#z;
    const s = this.sm.sigmoid(z);
    const p = this.sm.softmax([z, 0]);
    this.#p = s;
    this.zOut.textContent = `z = ${this.fmtScore(z)}`;
    this.range.setAttribute('aria-valuetext', `z = ${this.fmtScore(z)}, sigmoid ${this.fmt(s)}`);
    const cx = X(Math.max(-ZMAX, Math.min(ZMAX, z)));
    const cy = Y(s);
    this.dot.setAttribute('cx', cx);
    this.dot.setAttribute('cy', cy);
    for (const [el, a] of [
      [this.guideX, { x1: cx, x2: cx, y1: cy, y2: H - PAD.b }],
      [this.guideY, { x1: PAD.l, x2: cx, y1: cy, y2: cy }],
    ]) {
      for (const [k, v] of Object.entries(a)) el.setAttribute(k, v);
    }
    [...this.bars.children].forEach((row, i) => {
      row.children[1].textContent = `z = ${this.fmtScore(i ? 0 : z)}`;
      row.children[2].firstChild.style.width = `${p[i] * 100}%`;
      row.children[3].textContent = this.fmt(p[i]);
    });
    this.equation.replaceChildren(
      `sigmoid(${this.fmtScore(z)}) = 1 / (1 + e`,
      h('sup', {}, this.fmtScore(z === 0 ? 0 : -z)),
      `) = `,
      h('strong', {}, this.fmt(s)),
      this.s('andSoftmax', { z: this.fmtScore(z) }),
      h('strong', {}, this.fmt(p[0])),
      p[0] === s ? this.s('same') : '.',
    );
  }
}

define('softmax-sigmoid', SoftmaxSigmoid);
