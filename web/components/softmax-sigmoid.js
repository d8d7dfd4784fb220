// <softmax-sigmoid z="2">
// Two options with scores [z, 0]: the first one's softmax probability is the
// sigmoid of z. A slider (or a drag along the curve) sets z; the plot shows the
// S-curve and the point; the bars show softmax([z, 0]).
// .value: sigmoid(z). Fires `input` on every change.
import { WidgetElement, define, fmt, fmtScore, h, newId } from './base.js';

const ZMAX = 6;
const W = 320;
const H = 180;
const PAD = { l: 34, r: 10, t: 12, b: 26 };
const X = (z) => PAD.l + ((z + ZMAX) / (2 * ZMAX)) * (W - PAD.l - PAD.r);
const Y = (p) => PAD.t + (1 - p) * (H - PAD.t - PAD.b);

export class SoftmaxSigmoid extends WidgetElement {
  static observedAttributes = ['z'];

  #z = 2;
  #p = NaN;

  get value() {
    return this.#p;
  }
  get z() {
    return this.#z;
  }
  set z(v) {
    this.#z = Number(v);
    if (this.range) this.range.value = String(this.#z);
    if (this.sm) this.update();
  }

  fromAttributes() {
    const z = Number(this.getAttribute('z') ?? 2);
    this.#z = Number.isFinite(z) ? Math.max(-ZMAX, Math.min(ZMAX, z)) : 2;
    this.range.value = String(this.#z);
  }

  build(frame) {
    const id = newId('z');
    this.range = h('input', { id, type: 'range', min: -ZMAX, max: ZMAX, step: 0.1 });
    this.range.addEventListener('input', () => this.#set(Number(this.range.value)));
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
      { viewBox: `0 0 ${W} ${H}`, class: 'plot', role: 'img', 'aria-labelledby': `${id}-plot-title` },
      h('title', { id: `${id}-plot-title` }, 'The sigmoid curve: the probability of the first option against its score z'),
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
      dragging = true;
      this.svg.setPointerCapture(e.pointerId);
      fromPointer(e);
    });
    this.svg.addEventListener('pointermove', (e) => dragging && fromPointer(e));
    this.svg.addEventListener('pointerup', () => (dragging = false));
    this.svg.addEventListener('pointercancel', () => (dragging = false));

    this.bars = h('ol', { class: 'bars', 'aria-label': 'softmax of [z, 0]' });
    for (let i = 0; i < 2; i++) {
      this.bars.append(
        h('li', { class: 'bar-row' }, h('span', { class: 'name' }, i ? 'second' : 'first'), h('span', { class: 'score' }), h('div', { class: 'track' }, h('div', { class: `fill c${i}` })), h('span', { class: 'prob' })),
      );
    }
    this.equation = h('p', { class: 'equation', 'aria-live': 'polite' });
    frame.classList.add('softmax-sigmoid');
    frame.append(
      h('div', { class: 'controls' }, h('div', { class: 'field' }, h('label', { for: id }, 'Score z of the first option (the second has 0)'), h('div', { class: 'temp-row' }, this.range, this.zOut))),
      this.svg,
      this.bars,
      this.equation,
    );
    this.fromAttributes();
  }

  #set(z) {
    if (z === this.#z) return;
    this.#z = z;
    this.range.value = String(z);
    this.update();
    this.emit();
  }

  update() {
    if (!this.sm) return;
    const z = this.#z;
    const s = this.sm.sigmoid(z);
    const p = this.sm.softmax([z, 0]);
    this.#p = s;
    this.zOut.textContent = `z = ${fmtScore(z)}`;
    this.range.setAttribute('aria-valuetext', `z = ${fmtScore(z)}, sigmoid ${fmt(s)}`);
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
      row.children[1].textContent = `z = ${fmtScore(i ? 0 : z)}`;
      row.children[2].firstChild.style.width = `${p[i] * 100}%`;
      row.children[3].textContent = fmt(p[i]);
    });
    this.equation.replaceChildren(
      `sigmoid(${fmtScore(z)}) = 1 / (1 + e`,
      h('sup', {}, fmtScore(z === 0 ? 0 : -z)),
      `) = `,
      h('strong', {}, fmt(s)),
      ` and softmax([${fmtScore(z)}, 0]) gives the first option `,
      h('strong', {}, fmt(p[0])),
      p[0] === s ? ' — the same number.' : '.',
    );
  }
}

define('softmax-sigmoid', SoftmaxSigmoid);
