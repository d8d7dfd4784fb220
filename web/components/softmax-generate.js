// <softmax-generate prompt="the cat" tokens="24" seed="42" temperature="1" top-k="0" top-p="1" min-p="0">
// Real tokens: a small word-level language model that ships with the package
// (model/lm.js, a trigram model built from an original text) turns the words
// so far into one logit per word of its vocabulary; the library's seeded
// sampler (temperature, top-k, top-p, min-p) picks the next word, and the
// widget writes its text word by word. The bars show the distribution of the
// next word after the prompt, labelled with the real words; click (or focus
// and press Enter on) any written word to see the distribution it was drawn from.
//
// The text is written as soon as the widget is connected and whenever a
// setting changes; word by word unless prefers-reduced-motion asks for none.
// .value: the text; .words: the written words; .ready resolves once the text
// for the current settings is complete. Same seed, same text; T = 0 gives the
// same text whatever the seed. `input` fires when the text of a change made
// by the reader is complete, `change` when the reader commits a setting.
// Controls: prompt, tokens, temperature, filters.
import { ATTR, BASE_STRINGS, TEMPERATURE_STRINGS, TemperatureControl, WidgetElement, define, h, newId } from './base.js';
import { loadLanguageModel } from './model/lm.js';
import { FILTER_ATTRS, FILTER_KEY as KEY, FILTER_STRINGS, checkedInput, filterFields, samplerOptions } from './filters.js';

const SHOWN = 8; // bars in the distribution
const WORD_MS = 45; // delay between words when motion is allowed (less for long texts: at most ~1.8 s in all)

export class SoftmaxGenerate extends WidgetElement {
  static attrs = {
    prompt: { ...ATTR.text(200), default: 'the cat' },
    tokens: { ...ATTR.int(1, 200), default: 24 },
    temperature: { ...ATTR.temperature, default: 1 },
    ...FILTER_ATTRS,
  };
  static controls = ['prompt', 'tokens', 'temperature', 'filters'];
  static strings = {
    ...BASE_STRINGS,
    ...TEMPERATURE_STRINGS,
    ...FILTER_STRINGS,
    seedHelp: 'same seed, same text',
    title: 'A small language model writes, one sampled word at a time',
    prompt: 'Prompt',
    promptHelp: 'The words the model continues. It knows {n} words.',
    tokens: 'Words to write',
    tokensBad: 'Type a whole number from 1 to 200. Still writing {v}.',
    unknown: 'Not in the model’s vocabulary, left out: {words}.',
    text: 'Generated text',
    writing: 'Writing…',
    done: 'Wrote {n} words with seed {seed} at T = {t}.',
    distAfter: 'Next word after “{context}”',
    distStep: 'Word {i}: the distribution “{word}” was drawn from, after “{context}”',
    kept: '{kept} of {v} words can be drawn',
    legendModel: 'model’s softmax (T = 1)',
    legendDrawn: 'what the sampler draws from',
    drawn: 'drawn',
    wordButton: 'word {i}: {word}. Show the distribution it was drawn from',
    distLabel: 'The {n} most likely next words',
    barText: '{p} · model {m}',
  };

  #prompt = 'the cat';
  #count = 24;
  #opts = { temperature: 1, seed: 42, topK: 0, topP: 1, minP: 0 };
  #run = 0;
  #runPromise = Promise.resolve();
  #steps = [];
  #promptIds = [];
  #words = [];
  #text = '';
  #selected = 0;
  #pending = { input: false, change: false };

  get value() {
    return this.#text;
  }
  /** The written words (without the prompt). */
  get words() {
    return this.#words.slice();
  }
  /** The next-word distribution at each written word: { word, probs: [{ word, p, model }], kept }. */
  get steps() {
    return this.#steps.map((s) => ({ word: this.lm.vocab[s.tok], kept: s.kept, probs: s.top.map((t) => ({ word: this.lm.vocab[t.id], p: t.p, model: t.model })) }));
  }
  get ready() {
    return super.ready.then(async () => {
      for (;;) {
        const p = this.#runPromise;
        await p;
        if (p === this.#runPromise) return this;
      }
    });
  }
  get prompt() {
    return this.#prompt;
  }
  set prompt(t) {
    if (typeof t !== 'string' || t.length > 200) throw new TypeError('softmax-generate: prompt must be a string of up to 200 characters');
    this.#prompt = t;
    this.sync();
    if (this.sm) this.update();
  }

  prepare() {
    return loadLanguageModel().then((lm) => {
      this.lm = lm;
      this.promptHelp.textContent = this.s('promptHelp', { n: lm.size.toLocaleString(this.locale) });
    });
  }

  applyAttribute(name, v) {
    if (name === 'prompt') this.#prompt = v;
    else if (name === 'tokens') this.#count = v;
    else if (name === 'temperature') this.#opts.temperature = v;
    else this.#opts[KEY[name]] = v;
  }

  sync() {
    if (!this.promptIn) return;
    this.promptIn.value = this.#prompt;
    this.countIn.value = String(this.#count);
    this.countIn.dispatchEvent(new CustomEvent('smx-restore'));
    this.temp.set(this.#opts.temperature);
    this.filters.sync(this.#opts);
  }

  build(root) {
    const changed = () => {
      this.#pending.input = true;
      this.update();
    };
    const commit = () => {
      this.#pending.change = true;
      if (this.#runPromise.done) this.#flush();
    };
    const pid = newId('prompt');
    this.promptIn = h('input', { id: pid, type: 'text', spellcheck: 'false', autocomplete: 'off', part: 'input', maxlength: 200, 'aria-describedby': `${pid}-help ${pid}-unknown` });
    this.promptIn.addEventListener('input', () => {
      this.#prompt = this.promptIn.value;
      changed();
    });
    this.promptIn.addEventListener('change', commit);
    this.promptHelp = h('p', { id: `${pid}-help`, class: 'help' }, this.lm ? this.s('promptHelp', { n: this.lm.size }) : '');
    this.unknownLine = h('p', { id: `${pid}-unknown`, class: 'note' });
    const cid = newId('tokens');
    this.countIn = h('input', { id: cid, type: 'number', min: 1, max: 200, step: 1, class: 'num', part: 'input' });
    const countErr = checkedInput(
      this.countIn,
      (t) => (t !== '' && Number.isInteger(Number(t)) && Number(t) >= 1 && Number(t) <= 200 ? Number(t) : null),
      (v) => {
        this.#count = v;
        changed();
      },
      () => this.s('tokensBad', { v: this.#count }),
    );
    this.countIn.addEventListener('smx-restore', () => {
      this.countIn.value = String(this.#count);
      this.countIn.removeAttribute('aria-invalid');
      countErr.textContent = '';
    });
    this.countIn.addEventListener('change', commit);
    this.temp = new TemperatureControl(this, (t) => {
      this.#opts.temperature = t;
      changed();
    }, commit);
    this.filters = filterFields(this, this.#opts, (key, v) => {
      this.#opts[key] = v;
      changed();
    }, commit);
    const f = this.filters.fields;
    this.textBox = h('p', { class: 'gen-text', part: 'text', 'aria-label': this.s('text') });
    this.status = h('p', { class: 'help gen-status', role: 'status' });
    this.distTitle = h('p', { class: 'dist-title' });
    this.dist = h('ol', { class: 'hist dist', part: 'bars', 'aria-label': this.s('distLabel', { n: SHOWN }) });
    this.kept = h('p', { class: 'help' });
    root.append(
      h(
        'div',
        { class: 'controls', part: 'controls' },
        this.control('prompt', h('div', { class: 'field prompt', part: 'field' }, h('label', { for: pid }, this.s('prompt')), this.promptIn, this.promptHelp, this.unknownLine)),
        this.control('tokens', h('div', { class: 'field small tokens', part: 'field' }, h('label', { for: cid }, this.s('tokens')), this.countIn, countErr)),
        this.control('temperature', this.temp.el),
        this.control('filters', h('div', { class: 'filters' }, f.seed.el, f.topK.el, f.topP.el, f.minP.el)),
      ),
      this.textBox,
      this.status,
      this.distTitle,
      h(
        'p',
        { class: 'legend' },
        h('span', { class: 'legend-item' }, h('span', { class: 'key key-p', 'aria-hidden': 'true' }), ` ${this.s('legendModel')}`),
        h('span', { class: 'legend-item' }, h('span', { class: 'key key-d', 'aria-hidden': 'true' }), ` ${this.s('legendDrawn')}`),
      ),
      this.dist,
      this.kept,
    );
  }

  update() {
    if (!this.sm || !this.lm || !this.textBox) return this.#runPromise;
    const p = this.#generate(++this.#run);
    p.done = false;
    p.then(() => (p.done = true));
    this.#runPromise = p;
    return p;
  }

  #flush() {
    if (this.#pending.input) this.emit('input');
    if (this.#pending.change) this.emit('change');
    this.#pending = { input: false, change: false };
  }

  async #generate(run) {
    const lm = this.lm;
    const { ids, unknown } = lm.encode(this.#prompt);
    this.unknownLine.textContent = unknown.length ? this.s('unknown', { words: unknown.join(', ') }) : '';
    this.#promptIds = ids;
    this.#steps = [];
    this.#words = [];
    this.#selected = 0;
    const animate = !matchMedia('(prefers-reduced-motion: reduce)').matches;
    const context = [lm.bos, ...ids];
    let sampler;
    try {
      sampler = this.sm.createSampler(samplerOptions(this.#opts));
    } catch (e) {
      this.status.textContent = e.message;
      return;
    }
    this.status.textContent = this.s('writing');
    try {
      for (let i = 0; i < this.#count; i++) {
        const logits = lm.logits(context);
        const drawn = sampler.probs(logits); // what sample() draws from: temperature and filters applied
        const model = this.sm.softmax(logits);
        const tok = sampler.sample(logits);
        const order = Array.from(drawn.keys()).sort((a, b) => drawn[b] - drawn[a] || model[b] - model[a] || a - b);
        const top = order.slice(0, SHOWN).map((id) => ({ id, p: drawn[id], model: model[id] }));
        if (!top.some((t) => t.id === tok)) top[SHOWN - 1] = { id: tok, p: drawn[tok], model: model[tok] };
        let kept = 0;
        for (const x of drawn) if (x > 0) kept++;
        this.#steps.push({ tok, top, kept, context: context.slice(-2) });
        context.push(tok);
        if (animate) {
          this.#render(i);
          await new Promise((r) => setTimeout(r, Math.min(WORD_MS, 1800 / this.#count)));
          if (run !== this.#run) return;
        }
      }
    } finally {
      sampler.dispose();
    }
    if (run !== this.#run) return;
    const gen = this.#steps.map((s) => s.tok);
    this.#words = gen.map((id) => lm.vocab[id]);
    this.#text = lm.decode([...ids, ...gen]);
    this.#render(null);
    this.status.textContent = this.s('done', { n: this.#count, seed: this.#opts.seed, t: this.fmtT(this.#opts.temperature) });
    this.#flush();
  }

  /** Draws the text (up to the word being written) and the distribution of the selected step. */
  #render(writing) {
    const lm = this.lm;
    const gen = this.#steps.map((s) => s.tok);
    const pieces = lm.pieces([...this.#promptIds, ...gen]);
    const n = this.#promptIds.length;
    this.textBox.replaceChildren(
      ...pieces.flatMap((piece, k) => {
        const space = piece.space ? ' ' : '';
        if (k < n) return [space, h('span', { class: 'prompt-word', part: 'prompt-word' }, piece.text)];
        const i = k - n;
        const b = h('button', { type: 'button', class: 'tok', part: 'token', 'aria-pressed': String(i === this.#selected), 'aria-label': this.s('wordButton', { i: i + 1, word: piece.text }) }, piece.text);
        b.addEventListener('click', () => {
          this.#selected = i;
          this.#render(null);
        });
        return [space, b];
      }),
    );
    this.#drawDist(writing ?? this.#selected);
  }

  #drawDist(i) {
    const step = this.#steps[i];
    if (!step) return;
    const lm = this.lm;
    const words = step.context.map((id) => lm.vocab[id]);
    // the model reads the last two tokens; shown as text: "move." rather than "move ."
    const ctx = (words.length > 1 && words[0] === '.' ? words.slice(1) : words).reduce((s, w) => s + (s && !/^[.,!?;:]$/.test(w) ? ' ' : '') + w, '');
    const word = lm.vocab[step.tok];
    this.distTitle.textContent = i === 0 ? this.s('distAfter', { context: ctx }) : this.s('distStep', { i: i + 1, word, context: ctx });
    if (this.dist.children.length !== step.top.length) {
      this.dist.replaceChildren(
        ...step.top.map((_, k) =>
          h(
            'li',
            { class: 'hist-row' },
            h('span', { class: 'name', part: 'bar-label' }),
            h('div', { class: 'hist-bars' }, h('div', { class: 'track thin', part: 'bar' }, h('div', { class: `fill p c${k % 8}`, part: 'bar-fill' })), h('div', { class: 'track', part: 'bar' }, h('div', { class: `fill d c${k % 8}`, part: 'bar-fill' }))),
            h('span', { class: 'prob', part: 'prob' }),
          ),
        ),
      );
    }
    [...this.dist.children].forEach((row, k) => {
      const t = step.top[k];
      const [name, bars, num] = row.children;
      name.textContent = t.id === step.tok ? `${lm.vocab[t.id]} ← ${this.s('drawn')}` : lm.vocab[t.id];
      bars.children[0].firstChild.style.width = `${t.model * 100}%`;
      bars.children[1].firstChild.style.width = `${t.p * 100}%`;
      num.textContent = this.s('barText', { p: this.fmt(t.p), m: this.fmt(t.model) });
      row.classList.toggle('picked', t.id === step.tok);
      row.classList.toggle('filtered', t.p === 0);
      row.dataset.word = lm.vocab[t.id];
      row.dataset.prob = String(t.p);
    });
    this.kept.textContent = this.s('kept', { kept: step.kept.toLocaleString(this.locale), v: lm.size.toLocaleString(this.locale) });
  }
}

define('softmax-generate', SoftmaxGenerate);
