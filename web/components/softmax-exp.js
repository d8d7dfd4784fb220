// <softmax-exp scores="0.707, 0, 0.707" labels="A, B, C">
// Why e^z: the curve y = e^z with each score as a point on it. The height of
// each point is e^z; stacked at the right, the heights fill one column, and
// each one's share of the column is its probability. Drag a point (or focus it
// and press the arrow keys): a score that moves right grows exponentially and
// takes the column from the others.
// .value: the probabilities (Float32Array); .exps: e^z (float32); .sum: their
// sum. Fires `input` on every change, `change` when the reader lets go.
// Controls: points.
import { ATTR, BASE_STRINGS, capture, checkScores, WidgetElement, addStep, define, h, labelsFor } from './base.js';

const W = 360;
const H = 220;
const PAD = { l: 34, r: 96, t: 14, b: 30 };
const COL = { x: W - 62, w: 40 };
const ZLIM = 8;

export class SoftmaxExp extends WidgetElement {
  static attrs = {
    scores: {
      ...ATTR.scores(6, 2),
      parse(t) {
        const list = ATTR.scores(6, 2).parse(t);
        if (list.some((z) => !Number.isFinite(z) || Math.abs(z) > ZLIM)) throw new Error(`each score must be finite and within ±${ZLIM}`);
        return list;
      },
      accepts: `2 to 6 numbers from −${ZLIM} to ${ZLIM}, separated by commas`,
      default: [0.707, 0, 0.707],
    },
    labels: { ...ATTR.labels, default: null },
  };
  static controls = ['points'];
  static strings = {
    ...BASE_STRINGS,
    title: 'The exponential hands the mass to the largest score',
    plotTitle: 'The curve e to the z, each score a point on it, and the heights stacked into one column',
    point: 'Score of {label}',
    valueText: 'score {z}, e^z {e}, probability {p}',
    column: '÷ sum',
    readout: 'e^{z} = {e}',
    sum: 'sum {sum}',
    probs: 'p = {list}',
    help: 'Drag a point along the curve, or focus it and press the arrow keys (Shift: steps of 1).',
  };

  #scores = [0.707, 0, 0.707];
  #labels = null;
  #steps = null;

  get value() {
    return this.#steps ? this.#steps.probs.slice() : new Float32Array(0);
  }
  get exps() {
    return this.#steps ? this.#steps.rawExps.slice() : new Float32Array(0);
  }
  get sum() {
    return this.#steps ? this.#steps.rawSum : NaN;
  }
  get scores() {
    return this.#scores.slice();
  }
  set scores(list) {
    const z = checkScores('softmax-exp', list, { min: 2, max: 6, finite: true });
    if (z.some((v) => Math.abs(v) > ZLIM)) throw new RangeError(`softmax-exp: scores must be within ±${ZLIM}`);
    this.#scores = z;
    if (this.sm) this.update();
  }

  applyAttribute(name, v) {
    if (name === 'scores') this.#scores = v.slice();
    else if (name === 'labels') this.#labels = v;
  }

  #marks = null;

  #buildMarks() {
    this.#marks = this.#scores.map((_, i) => {
      const cls = `c${i % 8}`;
      const dot = h('circle', {
        r: 8, class: `handle ${cls}`, part: 'point', role: 'slider', tabindex: this.isLocked('points') ? -1 : 0,
        'aria-valuemin': -ZLIM, 'aria-valuemax': ZLIM, 'aria-disabled': String(this.isLocked('points')),
      });
      this.#dragAndKeys(dot, i);
      return {
        stem: h('line', { class: `stem ${cls}` }),
        dot,
        label: h('text', { class: 'axis-label middle point-label' }),
        seg: h('rect', { class: `seg ${cls}` }),
        segText: h('text', { class: 'axis-label middle on-fill' }),
      };
    });
    this.front.replaceChildren(...this.#marks.flatMap((m) => [m.stem, m.dot, m.label]));
    this.col.replaceChildren(...this.#marks.map((m) => m.seg), ...this.#marks.map((m) => m.segText));
  }

  build(root) {
    this.#marks = null;
    this.back = h('g');
    this.front = h('g');
    this.col = h('g');
    this.svg = h(
      'svg',
      { viewBox: `0 0 ${W} ${H}`, class: 'plot exp-plot', part: 'plot', role: 'group', 'aria-label': this.s('plotTitle') },
      h('title', {}, this.s('plotTitle')),
      this.back,
      this.front,
      h('text', { x: COL.x + COL.w / 2, y: PAD.t - 3, class: 'axis-label middle' }, this.s('column')),
      this.col,
      h('rect', { x: COL.x, y: PAD.t, width: COL.w, height: H - PAD.t - PAD.b, class: 'col-frame' }),
    );
    this.#pointer(this.svg);
    this.readout = h('p', { class: 'equation readout' });
    this.probLine = h('p', { class: 'equation' });
    this.points = this.control('points', h('div', { class: 'exp-wrap' }, this.svg, h('p', { class: 'help' }, this.s('help'))));
    root.append(this.points, this.readout, this.probLine);
  }

  #dragFrame = null;

  /** Dragging: a press anywhere on the plot takes the nearest point (a finger need not hit the dot); the z axis holds still meanwhile. */
  #pointer(svg) {
    svg.addEventListener('pointerdown', (e) => {
      if (this.isLocked('points') || !this.sm) return;
      const f = this.#frame();
      const r = svg.getBoundingClientRect();
      const x = ((e.clientX - r.left) / r.width) * W;
      let i = -1;
      this.#scores.forEach((z, k) => {
        if (Math.abs(f.X(z) - x) <= 36 && (i < 0 || Math.abs(f.X(z) - x) < Math.abs(f.X(this.#scores[i]) - x))) i = k;
      });
      if (i < 0) return;
      e.preventDefault();
      this.#dragFrame = f;
      capture(svg, e.pointerId);
      const move = (ev) => {
        const xx = ((ev.clientX - r.left) / r.width) * W;
        this.#set(i, Math.round(Math.max(f.lo, Math.min(f.hi, f.Z(xx))) * 100) / 100);
      };
      const end = () => {
        svg.removeEventListener('pointermove', move);
        svg.removeEventListener('pointerup', end);
        svg.removeEventListener('pointercancel', end);
        this.#dragFrame = null;
        this.update();
        this.emit('change');
      };
      svg.addEventListener('pointermove', move);
      svg.addEventListener('pointerup', end);
      svg.addEventListener('pointercancel', end);
    });
  }

  /** The plotted window: z from lo to hi, e^z from 0 to top. */
  #frame() {
    if (this.#dragFrame) {
      // the z axis holds still during a drag; the height follows the tallest point
      const f = this.#dragFrame;
      const top = Math.max(Math.exp(Math.max(...this.#scores)) * 1.15, 1.5);
      const Y = (y) => PAD.t + (1 - Math.min(y, top) / top) * (H - PAD.t - PAD.b);
      return { ...f, top, Y };
    }
    const lo = Math.min(-3, Math.floor(Math.min(...this.#scores) - 0.5));
    const hi = Math.max(3, Math.ceil(Math.max(...this.#scores) + 0.5));
    const top = Math.max(Math.exp(Math.max(...this.#scores)) * 1.15, 1.5);
    const X = (z) => PAD.l + ((z - lo) / (hi - lo)) * (W - PAD.l - PAD.r);
    const Y = (y) => PAD.t + (1 - Math.min(y, top) / top) * (H - PAD.t - PAD.b);
    return { lo, hi, top, X, Y, Z: (x) => lo + ((x - PAD.l) / (W - PAD.l - PAD.r)) * (hi - lo) };
  }

  update() {
    if (!this.sm || !this.svg) return;
    const steps = this.sm.softmaxSteps(this.#scores);
    this.#steps = steps;
    const labels = labelsFor(this.#scores.length, this.#labels);
    const { lo, hi, top, X, Y } = this.#frame();
    const set = (el, attrs) => {
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, typeof v === 'number' ? v.toFixed(2) : v);
    };
    const curve = [];
    const zTop = Math.min(hi, Math.log(top)); // the curve leaves the plot at its top edge
    for (let k = 0; k <= 160; k++) {
      const z = lo + (k / 160) * (zTop - lo);
      curve.push(`${k ? 'L' : 'M'}${X(z).toFixed(1)},${Y(Math.exp(z)).toFixed(1)}`);
    }
    const nice = (t) => {
      const raw = t / 4;
      const p = 10 ** Math.floor(Math.log10(raw));
      return [1, 2, 5, 10].map((m) => m * p).find((m) => m >= raw);
    };
    const stepY = nice(top);
    const grid = [];
    for (let y = 0; y <= top; y += stepY) {
      grid.push(h('line', { x1: PAD.l, x2: W - PAD.r, y1: Y(y), y2: Y(y), class: 'grid' }), h('text', { x: PAD.l - 5, y: Y(y) + 4, class: 'axis-label end' }, this.fmtScore(y)));
    }
    const every = hi - lo > 8 ? 2 : 1; // a label per unit runs together once the axis widens ("−3−2−1 0 1")
    for (let z = Math.ceil(lo / every) * every; z <= hi; z += every) grid.push(h('text', { x: X(z), y: H - 10, class: 'axis-label middle' }, this.fmtScore(z)));
    if (!this.#marks || this.#marks.length !== this.#scores.length) this.#buildMarks();
    let acc = 0;
    this.#scores.forEach((z, i) => {
      const e = steps.rawExps[i];
      const m = this.#marks[i];
      set(m.stem, { x1: X(z), x2: X(z), y1: Y(0), y2: Y(e) });
      set(m.dot, {
        cx: X(z), cy: Y(e), 'aria-label': this.s('point', { label: labels[i] }), 'aria-valuenow': String(z),
        'aria-valuetext': this.s('valueText', { z: this.fmtScore(z), e: this.fmt(e), p: this.fmt(steps.probs[i]) }),
      });
      set(m.label, { x: X(z), y: Math.max(PAD.t + 8, Y(e) - 13) });
      // points that sit on top of each other share one label: "A, C"
      const first = this.#scores.findIndex((w) => Math.abs(X(w) - X(z)) < 12 && Math.abs(Y(Math.exp(w)) - Y(e)) < 12);
      m.label.textContent = first < i ? '' : labels.filter((_, j) => Math.abs(X(this.#scores[j]) - X(z)) < 12 && Math.abs(Y(Math.exp(this.#scores[j])) - Y(e)) < 12).join(', ');
      const hgt = steps.probs[i] * (H - PAD.t - PAD.b);
      const y0 = H - PAD.b - acc - hgt;
      set(m.seg, { x: COL.x, y: y0, width: COL.w, height: Math.max(hgt, 0) });
      set(m.segText, { x: COL.x + COL.w / 2, y: y0 + hgt / 2 + 4 });
      m.segText.textContent = steps.probs[i] > 0.07 ? this.fmt(steps.probs[i], 2) : '';
      acc += hgt;
    });
    this.back.replaceChildren(...grid, h('path', { d: curve.join(''), class: 'curve' }));
    this.readout.replaceChildren(
      ...this.#scores.flatMap((z, i) => [h('span', { class: `chip c${i % 8}` }, this.s('readout', { z: this.fmtScore(z), e: this.fmt(steps.rawExps[i]) })), ' ']),
      h('strong', { class: 'eq' }, this.s('sum', { sum: this.fmt(steps.rawSum) })),
    );
    this.probLine.textContent = this.s('probs', { list: Array.from(steps.probs, (p) => this.fmt(p)).join(', ') });
  }

  #set(i, z) {
    z = Math.max(-ZLIM, Math.min(ZLIM, z));
    if (z === this.#scores[i]) return;
    this.#scores[i] = z;
    this.update();
    this.emit();
  }

  #dragAndKeys(dot, i) {
    dot.addEventListener('keydown', (e) => {
      if (this.isLocked('points')) return;
      const dir = { ArrowRight: 1, ArrowUp: 1, PageUp: 1, ArrowLeft: -1, ArrowDown: -1, PageDown: -1 }[e.key];
      if (!dir) return;
      e.preventDefault();
      this.#set(i, addStep(this.#scores[i], dir * (e.shiftKey || e.key.startsWith('Page') ? 1 : 0.1)));
      this.emit('change');
    });
  }
}

define('softmax-exp', SoftmaxExp);
