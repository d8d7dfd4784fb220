// <softmax-attention tokens="the cat sat down" scores="…n×n numbers, row by row…" axis="rows">
// A small matrix of query–key scores. Softmax runs along the chosen axis of the
// 2-D tensor: along each row (axis −1, what attention does: every query's
// weights over the keys sum to 1) or down each column (axis 0). Cells are
// editable; −inf masks a key.
// .value: the weights, an array of rows. Fires `input` on every change.
import { WidgetElement, define, fmt, h, newId, parseScore } from './base.js';

const DEFAULT_TOKENS = ['the', 'cat', 'sat', 'down'];
const DEFAULT_SCORES = [2.0, 0.5, 0.1, -0.3, 0.4, 2.5, 1.0, 0.2, 0.1, 1.8, 1.2, 0.6, -0.5, 0.9, 1.5, 1.1];

export class SoftmaxAttention extends WidgetElement {
  static observedAttributes = ['tokens', 'scores', 'axis'];

  #tokens = DEFAULT_TOKENS;
  #scores = DEFAULT_SCORES.slice();
  #axis = 'rows';
  #weights = new Float32Array(0);

  get value() {
    const n = this.#tokens.length;
    return Array.from({ length: n }, (_, i) => Array.from(this.#weights.subarray(i * n, (i + 1) * n)));
  }
  get axis() {
    return this.#axis;
  }
  set axis(a) {
    this.#axis = a === 'columns' ? 'columns' : 'rows';
    this.#syncAxis();
    if (this.sm) this.update();
  }

  fromAttributes() {
    const tokens = (this.getAttribute('tokens') ?? '').trim().split(/\s+/).filter(Boolean);
    this.#tokens = tokens.length >= 2 && tokens.length <= 6 ? tokens : DEFAULT_TOKENS;
    const n = this.#tokens.length;
    const given = (this.getAttribute('scores') ?? '').split(/[,\s]+/).filter(Boolean).map(parseScore);
    this.#scores = given.length === n * n && given.every((v) => !Number.isNaN(v))
      ? given
      : Array.from({ length: n * n }, (_, k) => DEFAULT_SCORES[k % DEFAULT_SCORES.length]);
    this.#axis = this.getAttribute('axis') === 'columns' ? 'columns' : 'rows';
    this.#syncAxis();
    this.#buildGrids();
  }

  #syncAxis() {
    if (!this.radios) return;
    for (const r of this.radios) r.checked = r.value === this.#axis;
  }

  build(frame) {
    const name = newId('axis');
    this.radios = ['rows', 'columns'].map((v) => {
      const r = h('input', { type: 'radio', name, value: v, id: `${name}-${v}` });
      r.addEventListener('change', () => {
        if (!r.checked) return;
        this.#axis = v;
        this.update();
        this.emit();
      });
      return r;
    });
    const [rows, cols] = this.radios;
    this.scoreTable = h('table', { class: 'matrix scores-matrix' });
    this.weightTable = h('table', { class: 'matrix weights-matrix' });
    this.note = h('p', { class: 'help', 'aria-live': 'polite' });
    frame.classList.add('softmax-attention');
    frame.append(
      h(
        'fieldset',
        { class: 'field axis' },
        h('legend', {}, 'Softmax along'),
        h('span', { class: 'radio' }, rows, h('label', { for: rows.id }, 'each row (axis −1): each query’s weights')),
        h('span', { class: 'radio' }, cols, h('label', { for: cols.id }, 'each column (axis 0)')),
      ),
      h('div', { class: 'matrices' },
        h('figure', {}, h('figcaption', {}, 'Scores: query (row) · key (column). Edit any cell.'), h('div', { class: 'scroll' }, this.scoreTable)),
        h('figure', {}, h('figcaption', {}, 'Weights after softmax'), h('div', { class: 'scroll' }, this.weightTable)),
      ),
      this.note,
    );
    this.fromAttributes();
  }

  #buildGrids() {
    const n = this.#tokens.length;
    const head = (extra) => h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'query \\ key')), ...this.#tokens.map((t) => h('th', { scope: 'col' }, t)), extra ? h('th', { scope: 'col' }, extra) : null));
    const sbody = h('tbody');
    const wbody = h('tbody');
    this.cells = [];
    this.wcells = [];
    this.rowSums = [];
    for (let i = 0; i < n; i++) {
      const srow = h('tr', {}, h('th', { scope: 'row' }, this.#tokens[i]));
      const wrow = h('tr', {}, h('th', { scope: 'row' }, this.#tokens[i]));
      for (let j = 0; j < n; j++) {
        const k = i * n + j;
        const input = h('input', { type: 'text', inputmode: 'decimal', class: 'cell', value: String(this.#scores[k]), 'aria-label': `score of query ${this.#tokens[i]} for key ${this.#tokens[j]}` });
        input.addEventListener('input', () => {
          const v = parseScore(input.value);
          if (Number.isNaN(v) || v === Infinity) {
            input.setAttribute('aria-invalid', 'true');
            return;
          }
          input.removeAttribute('aria-invalid');
          this.#scores[k] = v;
          this.update();
          this.emit();
        });
        this.cells.push(input);
        srow.append(h('td', {}, input));
        const w = h('td', { class: 'w' });
        this.wcells.push(w);
        wrow.append(w);
      }
      const sum = h('td', { class: 'sum' });
      this.rowSums.push(sum);
      wrow.append(sum);
      sbody.append(srow);
      wbody.append(wrow);
    }
    this.colSums = Array.from({ length: n }, () => h('td', { class: 'sum' }));
    const foot = h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, 'sum'), ...this.colSums, h('td')));
    this.scoreTable.replaceChildren(head(), sbody);
    this.weightTable.replaceChildren(head('sum'), wbody, foot);
  }

  update() {
    if (!this.sm) return;
    const n = this.#tokens.length;
    const axis = this.#axis === 'rows' ? -1 : 0;
    this.#weights = this.sm.softmax(this.#scores, { shape: [n, n], axis });
    const w = this.#weights;
    for (let k = 0; k < n * n; k++) {
      const cell = this.wcells[k];
      cell.textContent = fmt(w[k], 2);
      cell.style.setProperty('--w', Number.isFinite(w[k]) ? String(w[k]) : '0'); // CSSOM custom property drives the shade
      cell.classList.toggle('dark', w[k] > 0.75);
    }
    for (let i = 0; i < n; i++) {
      let rs = 0;
      let cs = 0;
      for (let j = 0; j < n; j++) {
        rs += w[i * n + j];
        cs += w[j * n + i];
      }
      this.rowSums[i].textContent = fmt(rs, 2);
      this.colSums[i].textContent = fmt(cs, 2);
      this.rowSums[i].classList.toggle('one', axis === -1);
      this.colSums[i].classList.toggle('one', axis === 0);
    }
    this.note.textContent =
      axis === -1
        ? 'Every row sums to 1: each query shares out its attention over the keys. This is the axis attention uses.'
        : 'Now every column sums to 1 and the rows do not: same numbers, a different question. The axis decides which entries compete.';
  }
}

define('softmax-attention', SoftmaxAttention);
