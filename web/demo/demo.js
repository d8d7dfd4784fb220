// The lesson page. Loads the module once (the baseline build with ?simd=0),
// sets each figure's starting state from the worked example it illustrates
// (web/demo/course-examples.js, the one list of the course's numbers), keeps
// the numbers in the prose in step with the figures, fills every inline check
// (the course's number beside the live one) and the summary, and runs the
// course's snippets as JavaScript. Each live number of a check is a
// <b data-example data-key data-expected data-digits data-computed data-source>
// that the browser tests read back.
import { configure, softmaxModule } from '../components/runtime.js';
import { fmt, fmtScore, parseScores, sci } from '../components/base.js';
import { EXAMPLES, runExamples } from './course-examples.js';
import { SNIPPETS, format, sourceOf } from './snippets.js';

const params = new URLSearchParams(location.search);
const simdParam = params.get('simd');
configure(simdParam === '0' || simdParam === 'false' ? { simd: false } : simdParam === '1' ? { simd: true } : undefined);

const byId = Object.fromEntries(EXAMPLES.map((e) => [e.id, e]));
const $ = (id) => document.getElementById(id);
const list = (xs, f = (x) => fmt(x)) => {
  const a = Array.from(xs, f);
  return a.length < 2 ? a.join('') : `${a.slice(0, -1).join(', ')} and ${a[a.length - 1]}`;
};

/** Puts the example's inputs on its figure, so the page and the checks start from the same numbers. */
function applyInputs(el) {
  const inputs = byId[el.dataset.example]?.inputs;
  if (!inputs) return;
  const tag = el.localName;
  if (tag === 'softmax-sigmoid') el.setAttribute('z', String(inputs.z));
  else if (tag === 'softmax-attention') {
    el.setAttribute('tokens', inputs.tokens.join(' '));
    el.setAttribute('scores', inputs.attention.join(', '));
  } else {
    el.setAttribute('scores', inputs.scores.map((z) => (z === Math.LN2 ? 'ln 2' : String(z))).join(', '));
    if (inputs.seed !== undefined && tag === 'softmax-sampler') el.setAttribute('seed', String(inputs.seed));
  }
}
for (const el of document.querySelectorAll('[data-example]')) applyInputs(el);
for (const b of document.querySelectorAll('button[data-reset]')) {
  b.addEventListener('click', () => {
    const el = $(b.dataset.reset);
    el.scores = byId[el.dataset.example].inputs.scores;
    el.dispatchEvent(new Event('input'));
  });
}
await import('../components/index.js');

// ---------- inline checks ----------

function shown(value, check) {
  const v = value;
  if (Number.isNaN(v)) return 'NaN';
  switch (check.kind) {
    case 'pct':
      return `${v.toFixed(0)} %`;
    case 'count':
      return `${v} times`;
    case 'yesno':
      return v ? 'yes' : 'no';
    case 'order':
      return v ? 'same order' : 'changed';
    case 'exact':
      return v === 0 ? '0 (identical)' : v === 1 ? '1 (exactly)' : v.toExponential(1);
    case 'tiny':
      return v === 0 ? '0 (float32 underflow)' : fmt(v, check.digits);
    default:
      return fmt(v, check.digits);
  }
}

function checkLine(results) {
  const ul = document.createElement('ul');
  ul.className = 'check-line';
  ul.setAttribute('aria-label', 'The course’s numbers (left of each arrow) beside the live ones');
  const head = document.createElement('li');
  head.className = 'head';
  head.setAttribute('aria-hidden', 'true');
  head.textContent = 'course → live';
  ul.append(head);
  for (const { example, check, value, ok } of results) {
    const li = document.createElement('li');
    li.className = ok ? 'ok' : 'bad';
    li.title = `${check.label}: the course says ${check.course}${check.source === 'ours' ? ` (our reference ${check.expected})` : ''}, computed live ${value}`;
    const label = document.createElement('span');
    label.className = 'lbl'; // visible: on a phone there is no tooltip to say which number a chip checks
    label.textContent = `${check.label}:`;
    const course = document.createElement('span');
    course.className = 'course';
    course.textContent = check.source === 'ours' ? `${check.course === '—' ? '' : `${check.course}, `}ref. ${check.expected}` : check.course;
    const live = document.createElement('b');
    Object.assign(live.dataset, { example: example.id, key: check.key, expected: check.expected, digits: String(check.digits), source: check.source, computed: String(value) });
    live.textContent = shown(value, check);
    const mark = document.createElement('span');
    mark.className = 'mark';
    mark.textContent = ok ? '✓' : '✗';
    mark.setAttribute('aria-label', ok ? 'matches the course' : 'does not match the course');
    // the arrow, the live number and its mark wrap as one: a lone ✓ on the next line reads as a new chip
    const res = document.createElement('span');
    res.className = 'res';
    res.append(h('span', 'arrow', '→'), ' ', live, ' ', mark);
    li.append(label, ' ', course, ' ', res);
    ul.append(li);
  }
  return ul;
}

function h(tag, cls, text) {
  const el = document.createElement(tag);
  el.className = cls;
  el.setAttribute('aria-hidden', 'true');
  el.textContent = text;
  return el;
}

function fullTable(results) {
  const tbl = document.createElement('table');
  tbl.className = 'checks';
  const head = tbl.createTHead().insertRow();
  for (const t of ['Example', 'Quantity', 'Course', 'Live', '']) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = t;
    head.append(th);
  }
  const body = tbl.createTBody();
  for (const { example, check, value, ok } of results) {
    const tr = body.insertRow();
    tr.className = ok ? '' : 'mismatch';
    const cells = [example.title, check.label, check.course + (check.source === 'ours' ? ` (ref. ${check.expected})` : ''), shown(value, check), ok ? '✓' : '✗'];
    cells.forEach((text, i) => {
      const td = tr.insertCell();
      td.textContent = text;
      if (i === 4) td.className = ok ? 'ok' : 'bad';
    });
  }
  return tbl;
}

// ---------- numbers in the prose that follow the figures ----------

const setText = (id, text) => {
  const el = $(id);
  if (el) el.textContent = text;
};

function whyBox(sm) {
  const input = $('why-scores');
  const out = $('why-out');
  const render = () => {
    let z;
    try {
      z = parseScores(input.value, { min: 1, max: 12 });
      input.removeAttribute('aria-invalid');
    } catch (e) {
      input.setAttribute('aria-invalid', 'true');
      out.textContent = `${e.message}.`;
      return;
    }
    const p = sm.softmax(z);
    if (z.every((v) => v === -Infinity)) {
      out.textContent = 'Every score is −∞ (masked): there is nothing to share out, so softmax has no answer here and gives NaN for each. At least one option needs a finite score.';
      return;
    }
    const total = Array.from(p).reduce((a, b) => a + b, 0);
    const i = Array.from(p).indexOf(Math.min(...p));
    const parts = [`Probabilities: ${list(p)}; all ≥ 0, total ${fmt(total, 5)}.`];
    const m = Math.max(...z);
    const lse = m + Math.log(z.reduce((s, v) => s + Math.exp(v - m), 0));
    const exact = Math.exp(z[i] - lse); // double precision
    // numbers past a million in scientific notation ("1 × 10³⁹", not forty digits)
    const big = (v) => (Number.isFinite(v) && Math.abs(v) >= 1e6 ? (v < 0 ? '−' : '') + sci(Math.abs(v), 1).replace('.0\u00a0', '\u00a0') : fmtScore(v));
    if (z.includes(Infinity)) {
      parts.push('A score of +∞ takes everything: e^∞ outweighs any finite score, so every other option gets exactly 0, in exact arithmetic too.');
    } else if (p[i] === 0 && z[i] !== -Infinity) {
      const size = exact > 0 ? `≈ ${fmt(exact)}` : `≈ 10^${big(Math.floor((z[i] - lse) / Math.LN10))}`; // past double range: its power of ten
      parts.push(`The smallest, for the score ${big(z[i])}, is e^${big(z[i] - lse)} ${size} in exact arithmetic: positive, but below the smallest float32 (1.4 × 10⁻⁴⁵), so float32 stores it as 0.`);
    }
    out.textContent = parts.join(' ');
  };
  input.value = byId.positive.inputs.scores.join(', ');
  input.addEventListener('input', render);
  render();
}

function follow(id, fn) {
  const el = $(id);
  if (!el) return;
  // 'load': the figure has drawn (it loads lazily, near the viewport); reading el.ready would load it at once
  for (const type of ['load', 'input']) el.addEventListener(type, () => fn(el));
}

function bindProse() {
  follow('exp-plot', (el) => {
    const z = el.scores;
    const p = el.value;
    setText('exp-scores', list(z, fmtScore));
    setText('exp-heights', list(el.exps));
    setText('exp-sum', fmt(el.sum));
    setText('exp-probs', list(p));
    const lo = Math.min(...p);
    const hi = Math.max(...p);
    const names = ['A', 'B', 'C', 'D', 'E', 'F'];
    const who = (v) => list(z.map((_, i) => i).filter((i) => p[i] === v).map((i) => names[i]), (x) => x);
    setText('exp-story', hi === lo ? 'The scores are equal, so the slices are too.' : `${who(hi)} ${z.filter((_, i) => p[i] === hi).length > 1 ? 'have' : 'has'} the largest score and the largest slice; ${who(lo)} the smallest.`);
  });
  follow('bars-dial', (el) => {
    const t = el.temperature;
    setText('temp-t', t === Infinity ? '∞' : fmtScore(t));
    setText('temp-scaled', t === 0 ? 'infinitely far apart (the limit as T shrinks to 0)' : list(el.steps.scaled, (v) => fmtScore(v)));
    setText('temp-top', fmt(el.value[0]));
    setText('temp-story', t === 0 ? 'At T = 0 the top option takes it all: greedy.' : t === Infinity ? 'At T = ∞ every option is equal.' : t < 1 ? 'The gaps grew, and so did the lead.' : t > 1 ? 'The gaps shrank, and the probabilities moved closer.' : 'T = 1 leaves the scores as they are.');
  });
  follow('sampler', (el) => {
    const c = el.counts;
    const n = c.reduce((a, b) => a + b, 0);
    setText('sampling-counts', n ? `${n.toLocaleString('en')} ${n === 1 ? 'draw' : 'draws'}: first ${c[0]}, second ${c[1]}, third ${c[2]}` : 'no draws yet');
  });
  follow('generate', (el) => {
    const s = el.steps[0];
    if (s) setText('words-top', `${fmt(s.probs[0].p)} (“${s.probs[0].word}”)`);
  });
  follow('overflow-big', (el) => {
    setText('overflow-lo', fmt(el.losesDigitsBelow, 1));
    setText('overflow-zero', fmt(el.breaksBelow, 1));
    setText('overflow-hi', fmt(el.breaksAbove, 1));
  });
  follow('sigmoid-widget', (el) => {
    setText('sigmoid-z', fmtScore(el.z));
    setText('sigmoid-p', fmt(el.value));
  });
}

// ---------- the course's snippets, runnable ----------

function snippets(sm) {
  for (const box of document.querySelectorAll('.runnable[data-snippet]')) {
    const sn = SNIPPETS[box.dataset.snippet];
    if (!sn) continue;
    const pre = document.createElement('pre');
    pre.className = 'snippet';
    const code = document.createElement('code');
    code.textContent = `import { load } from 'softmax-wasm';\nconst sm = await load();\n\n${sourceOf(sn.run)}`;
    pre.append(code);
    const run = document.createElement('button');
    run.type = 'button';
    run.className = 'run';
    run.textContent = 'Run';
    const out = document.createElement('pre');
    out.className = 'output';
    out.setAttribute('aria-live', 'polite');
    out.hidden = true;
    const note = document.createElement('p');
    note.className = 'course-says';
    note.textContent = `The course’s ${box.dataset.snippet === 'gaps' || box.dataset.snippet === 'sigmoid' ? 'Python' : 'NumPy'} version prints ${sn.course}.`;
    run.addEventListener('click', () => {
      const lines = [];
      sn.run(sm, { log: (...args) => lines.push(args.map(format).join(' ')) });
      out.textContent = lines.join('\n');
      out.hidden = false;
    });
    const head = document.createElement('p');
    head.className = 'snippet-head';
    head.append(`${sn.title}, in JavaScript `, run);
    box.replaceChildren(head, pre, out, note);
  }
}

// ---------- start ----------

const buildBadge = $('build');
const switchLink = $('build-switch');
try {
  const sm = await softmaxModule();
  document.documentElement.dataset.simd = String(sm.simd);
  buildBadge.textContent = sm.simd ? 'Running the WebAssembly SIMD build' : 'Running the baseline build (no SIMD)';
  switchLink.href = sm.simd ? '?simd=0' : '?simd=1';
  switchLink.textContent = sm.simd ? 'Try the baseline build' : 'Try the SIMD build';
  const results = runExamples(sm);
  for (const box of document.querySelectorAll('.check[data-check]')) {
    box.replaceChildren(checkLine(results.filter((r) => r.example.id === box.dataset.check)));
  }
  const bad = results.filter((r) => !r.ok).length;
  const line = bad
    ? `✗ ${bad} of ${results.length} numbers differ from the course`
    : `✓ All ${results.length} numbers of the course’s ${EXAMPLES.length} worked examples match the live computation`;
  setText('summary', line);
  $('summary').classList.toggle('bad', bad > 0);
  setText('all-summary', `${line}. Each sits beside the course’s number in its section; here they are in one table.`);
  $('all-table-body').replaceChildren(fullTable(results));
  document.documentElement.dataset.failures = String(bad);
  whyBox(sm);
  bindProse();
  snippets(sm);
} catch (err) {
  buildBadge.textContent = 'The WebAssembly module did not load';
  const box = $('load-error');
  box.textContent = `${err.message}. The page needs to be served over http(s), for example with npm start.`;
  box.hidden = false;
  console.error(err);
}
document.documentElement.dataset.ready = 'true';
