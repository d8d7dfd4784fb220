// <softmax-attention tokens="the cat sat down" scores="…n×n numbers, row by row…" axis="rows">
// A small matrix of query–key scores. Softmax runs along the chosen axis of the
// 2-D tensor: along each row (axis −1, what attention does: every query's
// weights over the keys sum to 1) or down each column (axis 0). Cells are
// editable; −inf masks a key.
// .value: the weights, an array of rows. Fires `input` on every change.
import { ATTR, BASE_STRINGS, WidgetElement, define, h, newId, parseScore } from './base.js';

const DEFAULT_TOKENS = ['the', 'cat', 'sat', 'down'];
const DEFAULT_SCORES = [2.0, 0.5, 0.1, -0.3, 0.4, 2.5, 1.0, 0.2, 0.1, 1.8, 1.2, 0.6, -0.5, 0.9, 1.5, 1.1];

export class SoftmaxAttention extends WidgetElement {
  static attrs = {
    tokens: {
      parse(t) {
        const list = String(t).trim().split(/\s+/).filter(Boolean);
        if (list.length < 2 || list.length > 6) throw new Error(`${list.length} token${list.length === 1 ? '' : 's'}`);
        return list;
      },
      accepts: '2 to 6 words separated by spaces',
      default: DEFAULT_TOKENS,
    },
    scores: {
      parse(t) {
        const parts = String(t).split(/[,\s]+/).filter(Boolean);
        return parts.map((p, i) => {
          const v = parseScore(p);
          if (Number.isNaN(v) || v === Infinity) throw new Error(`entry ${i + 1} ("${p}") is not a number`);
          return v;
        });
      },
      accepts: 'n × n numbers row by row (n = the number of tokens), separated by commas or spaces; -inf masks',
      default: null,
    },
    axis: { ...ATTR.oneOf('rows', 'columns'), default: 'rows' },
  };
  static controls = ['axis', 'scores'];
  static strings = {
    ...BASE_STRINGS,
    title: 'Softmax along an axis: attention weights',
    along: 'Softmax along',
    rows: 'each row (axis −1): each query’s weights',
    columns: 'each column (axis 0)',
    scoresCaption: 'Scores: query (row) · key (column). Edit any cell.',
    weightsCaption: 'Weights after softmax',
    cell: 'score of query {q} for key {k}',
    corner: 'query \\ key',
    sum: 'sum',
    rowsNote: 'Every row sums to 1: each query shares out its attention over the keys. This is the axis attention uses.',
    columnsNote: 'Now every column sums to 1 and the rows do not: same numbers, a different question. The axis decides which entries compete.',
    masked: 'A slice whose scores are all −∞ has nothing to share out: its weights are NaN (PyTorch gives the same). Unmask at least one score in it.',
    scoresCount: '{n} tokens need {need} numbers, got {got}',
    cellBad: 'The score of “{q}” for “{k}” takes a number (or −inf to mask it); the weights still use {v}.',
  };

  #tokens = DEFAULT_TOKENS;
  #given = null;
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
    if (a !== 'rows' && a !== 'columns') throw new TypeError(`softmax-attention: axis must be 'rows' or 'columns' (got ${String(a)})`);
    this.#axis = a;
    this.sync();
    if (this.sm) this.update();
  }

  applyAttribute(name, v) {
    if (name === 'tokens') this.#tokens = v;
    else if (name === 'scores') this.#given = v;
    else if (name === 'axis') this.#axis = v;
    if (name === 'axis') return;
    const n = this.#tokens.length;
    if (this.#given && this.#given.length === n * n) this.#scores = this.#given.slice();
    // no scores for these tokens: the default 4 × 4 pattern, row i and column j of it (repeated past 4), so rows stay rows
    else this.#scores = Array.from({ length: n * n }, (_, k) => DEFAULT_SCORES[(Math.floor(k / n) % 4) * 4 + ((k % n) % 4)]);
    this.attributeError('scores', this.#given && this.#given.length !== n * n ? this.s('scoresCount', { n, need: n * n, got: this.#given.length }) : null);
    this.#grids = false;
  }

  #grids = false;

  sync() {
    if (!this.radios) return;
    for (const r of this.radios) r.checked = r.value === this.#axis;
    if (!this.#grids) this.#buildGrids();
  }

  build(root) {
    this.#grids = false;
    const name = newId('axis');
    this.radios = ['rows', 'columns'].map((v) => {
      const r = h('input', { type: 'radio', name, value: v, id: `${name}-${v}` });
      r.addEventListener('change', () => {
        if (!r.checked) return;
        this.#axis = v;
        this.update();
        this.emit();
        this.emit('change');
      });
      return r;
    });
    const [rows, cols] = this.radios;
    this.scoreTable = h('table', { class: 'matrix scores-matrix' });
    this.weightTable = h('table', { class: 'matrix weights-matrix' });
    this.note = h('p', { class: 'help', 'aria-live': 'polite' });
    this.maskNote = h('p', { class: 'note', role: 'status' });
    this.cellError = h('p', { class: 'error field-error', 'aria-live': 'polite' });
    root.append(
      this.control(
        'axis',
        h(
          'fieldset',
          { class: 'field axis', part: 'field' },
          h('legend', {}, this.s('along')),
          h('span', { class: 'radio' }, rows, h('label', { for: rows.id }, this.s('rows'))),
          h('span', { class: 'radio' }, cols, h('label', { for: cols.id }, this.s('columns'))),
        ),
      ),
      h('div', { class: 'matrices' },
        this.control('scores', h('figure', {}, h('figcaption', {}, this.s('scoresCaption')), h('div', { class: 'scroll' }, this.scoreTable))),
        h('figure', {}, h('figcaption', {}, this.s('weightsCaption')), h('div', { class: 'scroll' }, this.weightTable)),
      ),
      this.cellError,
      this.maskNote,
      this.note,
    );
  }

  #buildGrids() {
    this.#grids = true;
    this.cellError.textContent = '';
    const n = this.#tokens.length;
    const head = (extra) => h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, this.s('corner'))), ...this.#tokens.map((t) => h('th', { scope: 'col' }, t)), extra ? h('th', { scope: 'col' }, extra) : null));
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
        const input = h('input', { type: 'text', inputmode: 'decimal', class: 'cell', value: String(this.#scores[k]), part: 'input', disabled: this.isLocked('scores'), 'aria-label': this.s('cell', { q: this.#tokens[i], k: this.#tokens[j] }) });
        input.addEventListener('input', () => {
          const v = parseScore(input.value);
          if (Number.isNaN(v) || v === Infinity) {
            input.setAttribute('aria-invalid', 'true');
            this.cellError.textContent = this.s('cellBad', { q: this.#tokens[i], k: this.#tokens[j], v: this.fmtScore(this.#scores[k]) });
            return;
          }
          input.removeAttribute('aria-invalid');
          if (!this.cells.some((c) => c.getAttribute('aria-invalid') === 'true')) this.cellError.textContent = '';
          this.#scores[k] = v;
          this.update();
          this.emit();
        });
        input.addEventListener('change', () => input.getAttribute('aria-invalid') !== 'true' && this.emit('change'));
        // leaving a cell that holds no number puts back the score in use: the cell shows what the weights use
        input.addEventListener('blur', () => {
          if (input.getAttribute('aria-invalid') !== 'true') return;
          input.value = String(this.#scores[k]);
          input.removeAttribute('aria-invalid');
          if (!this.cells.some((c) => c.getAttribute('aria-invalid') === 'true')) this.cellError.textContent = '';
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
    const foot = h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, this.s('sum')), ...this.colSums, h('td')));
    this.scoreTable.replaceChildren(head(), sbody);
    this.weightTable.replaceChildren(head(this.s('sum')), wbody, foot);
  }

  update() {
    if (!this.sm || !this.wcells) return;
    const n = this.#tokens.length;
    const axis = this.#axis === 'rows' ? -1 : 0;
    this.#weights = this.sm.softmax(this.#scores, { shape: [n, n], axis });
    const w = this.#weights;
    for (let k = 0; k < n * n; k++) {
      const cell = this.wcells[k];
      cell.textContent = this.fmt(w[k], 2);
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
      this.rowSums[i].textContent = this.fmt(rs, 2);
      this.colSums[i].textContent = this.fmt(cs, 2);
      this.rowSums[i].classList.toggle('one', axis === -1);
      this.colSums[i].classList.toggle('one', axis === 0);
    }
    this.note.textContent = axis === -1 ? this.s('rowsNote') : this.s('columnsNote');
    this.maskNote.textContent = Array.from(w).some(Number.isNaN) ? this.s('masked') : '';
  }
}

define('softmax-attention', SoftmaxAttention);
