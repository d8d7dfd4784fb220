// A small word-level language model for <softmax-generate>: a trigram model
// with interpolated Kneser–Ney smoothing (absolute discount D), built by
// web/tools/build-lm.mjs from web/tools/lm-corpus.txt (an original text of
// this project; see README.md beside this file). The model file holds the
// vocabulary and the trigram counts; every other count is derived here.
//
//   const lm = await loadLanguageModel();          // fetches lm.json beside this file
//   const { ids } = lm.encode('the cat');
//   const logits = lm.logits(ids);                 // Float32Array, one score per word
//   lm.decode([...ids, next])                      // 'The cat sat'
//
// Plain ES module with no DOM use: the build script imports tokenize() from it.

/** Words are runs of letters (with an inner apostrophe); . , ! ? ; : are tokens of their own. */
export function tokenize(text) {
  return String(text).toLowerCase().replace(/[’‘]/g, "'").match(/[a-z]+(?:'[a-z]+)?|[.,!?;:]/g) ?? [];
}

const SENTENCE_END = new Set(['.', '!', '?']);
const NO_SPACE_BEFORE = new Set(['.', ',', '!', '?', ';', ':']);

export class LanguageModel {
  /** @param {{ vocab: string[], trigrams: number[], discount: number }} data the parsed lm.json */
  constructor(data) {
    const { vocab, trigrams, discount } = data;
    if (!Array.isArray(vocab) || !Array.isArray(trigrams) || trigrams.length % 4 !== 0 || !(discount > 0 && discount < 1)) {
      throw new TypeError('language model: the model file is not a softmax-wasm n-gram model');
    }
    const V = vocab.length;
    this.vocab = vocab;
    this.size = V;
    this.discount = discount;
    this.index = new Map(vocab.map((w, i) => [w, i]));
    this.bos = this.index.get('.');
    const D = discount;
    // Trigram level: counts c(a b w) per context (a, b).
    const tri = new Map();
    // Bigram level, Kneser–Ney: continuation counts N1+(• b w) = distinct a before (b, w).
    const bi = new Map();
    const seenPairs = new Set();
    for (let k = 0; k < trigrams.length; k += 4) {
      const [a, b, w, n] = [trigrams[k], trigrams[k + 1], trigrams[k + 2], trigrams[k + 3]];
      const key = a * V + b;
      let t = tri.get(key);
      if (!t) tri.set(key, (t = { total: 0, next: [] }));
      t.total += n;
      t.next.push(w, n);
      let c = bi.get(b);
      if (!c) bi.set(b, (c = { total: 0, next: new Map() }));
      c.total += 1;
      c.next.set(w, (c.next.get(w) ?? 0) + 1);
      seenPairs.add(b * V + w);
    }
    // Unigram level: N1+(• w) = distinct words before w, plus one for every word (no zero).
    const cont = new Float64Array(V).fill(1);
    for (const pair of seenPairs) cont[pair % V] += 1;
    const total = cont.reduce((s, x) => s + x, 0);
    this.unigram = cont.map((x) => x / total);
    this.tri = tri;
    this.bi = bi;
    this.D = D;
  }

  /** The probability of every word after `context` (ids; the last two count), float64. */
  probabilities(context) {
    const V = this.size;
    const D = this.D;
    const n = context.length;
    const b = n >= 1 ? context[n - 1] : this.bos;
    const a = n >= 2 ? context[n - 2] : this.bos;
    let p = Float64Array.from(this.unigram);
    const big = this.bi.get(b);
    if (big) {
      const lambda = (D * big.next.size) / big.total;
      for (let w = 0; w < V; w++) p[w] *= lambda;
      for (const [w, c] of big.next) p[w] += Math.max(c - D, 0) / big.total;
    }
    const t = this.tri.get(a * V + b);
    if (t) {
      const lambda = (D * (t.next.length / 2)) / t.total;
      for (let w = 0; w < V; w++) p[w] *= lambda;
      for (let k = 0; k < t.next.length; k += 2) p[t.next[k]] += Math.max(t.next[k + 1] - D, 0) / t.total;
    }
    return p;
  }

  /** Next-word logits: ln p for every word of the vocabulary (a Float32Array of `size`). */
  logits(context) {
    return Float32Array.from(this.probabilities(context), Math.log);
  }

  /** Text -> word ids; words outside the vocabulary are left out and listed in `unknown`. */
  encode(text) {
    const ids = [];
    const unknown = [];
    for (const tok of tokenize(text)) {
      const id = this.index.get(tok);
      if (id === undefined) unknown.push(tok);
      else ids.push(id);
    }
    return { ids, unknown };
  }

  /** Word ids -> the pieces of text: { text, space } (space: a space goes before it); a capital after a sentence end. */
  pieces(ids) {
    const out = [];
    let cap = true;
    for (const id of ids) {
      const w = this.vocab[id];
      const text = w === 'i' || cap ? w[0].toUpperCase() + w.slice(1) : w;
      out.push({ text, space: out.length > 0 && !NO_SPACE_BEFORE.has(w) });
      if (SENTENCE_END.has(w)) cap = true;
      else if (!NO_SPACE_BEFORE.has(w)) cap = false;
    }
    return out;
  }

  /** Word ids -> text: spaces between words, none before punctuation, a capital after a sentence end. */
  decode(ids) {
    return this.pieces(ids).map((p) => (p.space ? ` ${p.text}` : p.text)).join('');
  }
}

const loaded = new Map();

/** Fetches and parses a model file (default: lm.json beside this module); memoised per URL. */
export function loadLanguageModel(url = new URL('./lm.json', import.meta.url)) {
  const key = String(url);
  if (!loaded.has(key)) {
    loaded.set(
      key,
      fetch(key)
        .then((r) => {
          if (!r.ok) throw new Error(`language model: ${key} answered ${r.status}`);
          return r.json();
        })
        .then((data) => new LanguageModel(data)),
    );
    loaded.get(key).catch(() => loaded.delete(key));
  }
  return loaded.get(key);
}
