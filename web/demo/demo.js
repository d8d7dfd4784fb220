// The demo page: loads the module once (the baseline build with ?simd=0),
// then fills every check table with the course's numbers beside the live ones.
// Each live number is a <span data-example data-expected data-digits
// data-computed data-source> that tests/browser/run.mjs reads back.
import { configure, softmaxModule } from '../components/runtime.js';

const params = new URLSearchParams(location.search);
const simdParam = params.get('simd');
configure(simdParam === '0' || simdParam === 'false' ? { simd: false } : simdParam === '1' ? { simd: true } : undefined);
await import('../components/index.js');

/** Same rule as the tests: "NaN", ">x", ">=x", "<x", "=x", or a number compared at `digits` places. */
export function matches(value, expected, digits) {
  if (expected === 'NaN') return Number.isNaN(value);
  const m = /^(>=|<=|>|<|=)\s*(.+)$/.exec(expected);
  if (m) {
    const x = Number(m[2]);
    return { '>=': value >= x, '<=': value <= x, '>': value > x, '<': value < x, '=': value === x }[m[1]];
  }
  return Number.isFinite(value) && value.toFixed(digits) === Number(expected).toFixed(digits);
}

function show(v, digits, unit = '') {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  return `${v.toFixed(digits).replace('-', '−')}${unit}`;
}

// One row: label, what the course says (words or a number), expected (machine
// readable), digits, value (live), source ('course' or 'ours': our own reference
// where the course gives words only).
const row = (label, course, expected, digits, value, source = 'course', extra = {}) => ({ label, course, expected, digits, value, source, ...extra });
const pct = (label, expected, value) => row(label, `${expected} %`, expected, 0, value * 100, 'course', { unit: ' %' });
const ours = (label, words, expected, digits, value, extra) => row(label, words, expected, digits, value, 'ours', extra);
const tiny = (v) => (v === 0 ? '0 (identical)' : v.toExponential(1));

function drawCounts(sm, scores, opts, n = 1000) {
  if (typeof sm.createSampler !== 'function') return null;
  const s = sm.createSampler(opts);
  try {
    const draws = s.sampleMany(scores, n);
    const counts = new Array(scores.length).fill(0);
    for (const d of draws) counts[d]++;
    return counts;
  } finally {
    s.dispose();
  }
}

const sameOrder = (scores, probs) => {
  const rank = (xs) => Array.from(xs.keys()).sort((a, b) => xs[b] - xs[a] || a - b).join(',');
  return rank(Array.from(scores)) === rank(Array.from(probs)) ? 1 : 0;
};

const CHECKS = {
  positive(sm) {
    const p = sm.softmax([-100, 0, 50, 2]);
    return [
      row('smallest probability for [−100, 0, 50, 2]', 'never negative', '>=0', 3, Math.min(...p)),
      row('their total', 'exactly 1', '1', 5, p.reduce((a, b) => a + b, 0)),
    ];
  },
  three(sm) {
    const s = sm.softmaxSteps([0.707, 0, 0.707]);
    return [
      row('e^0.707', '≈\u00a02.028', '2.028', 3, s.rawExps[0]),
      row('e^0', '= 1', '1', 3, s.rawExps[1]),
      row('sum of the three', '≈\u00a05.056', '5.056', 3, s.rawSum),
      row('p(A)', '≈\u00a00.401', '0.401', 3, s.probs[0]),
      row('p(B)', '≈\u00a00.198', '0.198', 3, s.probs[1]),
      row('p(C)', '≈\u00a00.401', '0.401', 3, s.probs[2]),
    ];
  },
  abc(sm) {
    const t1 = sm.softmax([2, 0, -1]);
    const t03 = sm.softmax([2, 0, -1], { temperature: 0.3 });
    return [
      ours('T = 1, p(A)', 'most of it', '0.844', 3, t1[0]),
      ours('T = 1, p(B)', 'a little', '0.114', 3, t1[1]),
      ours('T = 1, p(C)', 'almost none', '0.042', 3, t1[2]),
      ours('T = 0.3, p(A)', 'nearly everything', '0.999', 3, t03[0]),
    ];
  },
  equal(sm) {
    const a = sm.softmax([1.5, 1.5, 1.5]);
    const b = sm.softmax([-7, -7, -7]);
    return [
      row('[1.5, 1.5, 1.5]: each', '1/3', '0.333', 3, a[0]),
      row('[1.5, 1.5, 1.5]: all equal', 'yes', '=1', 0, a[0] === a[1] && a[1] === a[2] ? 1 : 0, 'course', { text: (v) => (v ? 'yes' : 'no') }),
      row('[−7, −7, −7]: each', '1/3', '0.333', 3, b[0]),
    ];
  },
  giant(sm) {
    const p = sm.softmax([10, 1, 0]);
    return [
      ours('[10, 1, 0]: p of the 10', 'almost all', '1.000', 3, p[0]),
      ours('slope p(1 − p) there', 'very flat', '0.0002', 4, p[0] * (1 - p[0])),
    ];
  },
  sampling(sm) {
    const p = sm.softmax([2, 1, 0]);
    const c = drawCounts(sm, [2, 1, 0], { seed: 42, temperature: 1 });
    const g = drawCounts(sm, [2, 1, 0], { seed: 42, temperature: 0 });
    const n = (x) => (x === null ? NaN : x);
    return [
      pct('first', '67', p[0]),
      pct('second', '24', p[1]),
      pct('third', '9', p[2]),
      row('1,000 draws (seed 42): second picked', 'sometimes', '>0', 0, n(c && c[1]), 'course', { text: (v) => `${v} times` }),
      row('1,000 draws (seed 42): third picked', 'sometimes', '>0', 0, n(c && c[2]), 'course', { text: (v) => `${v} times` }),
      row('greedy (T = 0), 1,000 draws: first picked', 'always', '=1000', 0, n(g && g[0]), 'course', { text: (v) => `${v} times` }),
    ];
  },
  ln2(sm) {
    const s = sm.softmaxSteps([Math.LN2, 0, 0]);
    return [
      row('e^(ln 2)', '2', '2', 3, s.rawExps[0]),
      row('e^0 (twice)', '1', '1', 3, s.rawExps[1]),
      row('p(first)', '0.5', '0.5', 3, s.probs[0]),
      row('p(second)', '0.25', '0.25', 3, s.probs[1]),
      row('p(third)', '0.25', '0.25', 3, s.probs[2]),
    ];
  },
  gaps(sm) {
    const a = sm.softmax([1, 3]);
    const b = sm.softmax([11, 13]);
    return [
      row('[1, 3]', '0.119', '0.119', 3, a[0]),
      row('', '0.881', '0.881', 3, a[1]),
      row('[11, 13]', '0.119', '0.119', 3, b[0]),
      row('', '0.881', '0.881', 3, b[1]),
      ours('largest difference between the two', 'none', '<1e-6', 7, Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1])), { text: tiny }),
    ];
  },
  overflow(sm) {
    const z = [1000, 1001, 1002];
    const naive = sm.softmaxNaive(z);
    const stable = sm.softmax(z);
    return [
      row('textbook formula, first', 'nan', 'NaN', 0, naive[0]),
      row('textbook formula, second', 'nan', 'NaN', 0, naive[1]),
      row('textbook formula, third', 'nan', 'NaN', 0, naive[2]),
      row('max trick, first', '0.09', '0.09', 2, stable[0]),
      row('max trick, second', '0.2447', '0.2447', 4, stable[1]),
      row('max trick, third', '0.6652', '0.6652', 4, stable[2]),
    ];
  },
  temperature(sm) {
    const z = [2, 1, 0];
    const h = sm.softmaxSteps(z, { temperature: 0.5 });
    const one = sm.softmax(z);
    const two = sm.softmaxSteps(z, { temperature: 2 });
    return [
      row('T = 0.5: scores become', '4', '4', 3, h.scaled[0]),
      row('', '2', '2', 3, h.scaled[1]),
      row('T = 0.5: p(top)', '0.867', '0.867', 3, h.probs[0]),
      ours('T = 0.5: the other two', '—', '0.117', 3, h.probs[1]),
      ours('', '—', '0.016', 3, h.probs[2]),
      row('T = 1', '0.665', '0.665', 3, one[0]),
      row('', '0.245', '0.245', 3, one[1]),
      row('', '0.090', '0.090', 3, one[2]),
      row('T = 2: scores become', '0.5 (middle)', '0.5', 3, two.scaled[1]),
      row('T = 2', '0.506', '0.506', 3, two.probs[0]),
      row('', '0.307', '0.307', 3, two.probs[1]),
      row('', '0.186', '0.186', 3, two.probs[2]),
    ];
  },
  four(sm) {
    const z = [2, 1, 0.1, -1];
    const a = sm.softmax(z, { temperature: 0.3 });
    const b = sm.softmax(z, { temperature: 1 });
    const c = sm.softmax(z, { temperature: 3 });
    return [
      row('T = 0.3: p(top)', '0.964', '0.964', 3, a[0]),
      ours('T = 1', '—', '0.638', 3, b[0]),
      ours('', '—', '0.235', 3, b[1]),
      ours('', '—', '0.095', 3, b[2]),
      ours('', '—', '0.032', 3, b[3]),
      row('T = 3', '0.382', '0.382', 3, c[0]),
      row('', '0.274', '0.274', 3, c[1]),
      row('', '0.203', '0.203', 3, c[2]),
      row('', '0.141', '0.141', 3, c[3]),
    ];
  },
  greedy(sm) {
    const z = [2, 1, 0];
    const at = (t) => sm.softmax(z, { temperature: t });
    const zero = at(0);
    const g = drawCounts(sm, [2, 1, 0.1, -1], { seed: 7, temperature: 0 });
    return [
      ours('T = 0.3: p(top)', 'high', '0.964', 3, at(0.3)[0]),
      ours('T = 0.1: p(top)', 'nearly 1', '1.000', 3, at(0.1)[0]),
      ours('T = 0.01: p(top)', 'nearly 1', '1.000', 3, at(0.01)[0]),
      row('T = 0: p(top)', 'all of it', '=1', 0, zero[0], 'course', { text: (v) => String(v) }),
      row('T = 0: p of the others', 'none', '=0', 0, zero[1] + zero[2], 'course', { text: (v) => String(v) }),
      row('sampler at T = 0, 1,000 draws over [2, 1, 0.1, −1]: the top one', 'always', '=1000', 0, g === null ? NaN : g[0], 'course', { text: (v) => `${v} times` }),
    ];
  },
  order(sm) {
    const z = [2, 1, 0.1, -1];
    return [0.1, 0.3, 1, 3, 5].map((t) =>
      row(`T = ${t}`, 'same order', '=1', 0, sameOrder(z, sm.softmax(z, { temperature: t })), 'course', { text: (v) => (v ? 'same order' : 'changed') }),
    );
  },
  sigmoid(sm) {
    const s = sm.sigmoid(2);
    const p = sm.softmax([2, 0]);
    return [
      row('sigmoid(2)', '0.881', '0.881', 3, s),
      row('softmax([2, 0]), first', '0.881', '0.881', 3, p[0]),
      ours('difference', 'none', '<1e-6', 7, Math.abs(s - p[0]), { text: tiny }),
    ];
  },
  async axis(sm) {
    const t = [1, 2, 3, 1, 1, 1];
    const rows = sm.softmax(t, { shape: [2, 3], axis: -1 });
    const cols = sm.softmax(t, { shape: [2, 3], axis: 0 });
    const el = document.getElementById('attention');
    await customElements.whenDefined('softmax-attention');
    await el.ready;
    const att = el.value;
    const sum = (xs) => xs.reduce((a, b) => a + b, 0);
    return [
      row('[[1, 2, 3], [1, 1, 1]], axis −1: row 1 sums to', '1', '1', 5, rows[0] + rows[1] + rows[2]),
      row('row 2 sums to', '1', '1', 5, rows[3] + rows[4] + rows[5]),
      row('row 1', '0.09', '0.09', 2, rows[0]),
      row('', '0.2447', '0.2447', 4, rows[1]),
      row('', '0.6652', '0.6652', 4, rows[2]),
      row('axis 0: column 1 (scores 1 and 1)', '1/2 each', '0.5', 3, cols[0]),
      row('column 3 (scores 3 and 1)', '0.881', '0.881', 3, cols[2]),
      row('', '0.119', '0.119', 3, cols[5]),
      row('each column sums to', '1', '1', 5, cols[2] + cols[5]),
      ...att.map((r, i) => row(`attention widget: row ${i + 1} sums to`, '1', '1', 5, sum(r))),
    ];
  },
};

function table(id, rows) {
  const tbl = document.createElement('table');
  tbl.className = 'checks';
  tbl.innerHTML = '<caption>Course vs. live</caption><thead><tr><th scope="col">Quantity</th><th scope="col">Course</th><th scope="col">Live (wasm)</th><th scope="col"><span class="sr-only">Match</span></th></tr></thead>';
  const body = document.createElement('tbody');
  let all = true;
  for (const r of rows) {
    const tr = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = r.label;
    tr.append(th);
    const course = tr.insertCell();
    course.textContent = r.course;
    if (r.source === 'ours') {
      const ref = document.createElement('span');
      ref.className = 'ref';
      ref.textContent = ` ref. ${r.expected}`;
      ref.title = 'Our own reference value (the course gives words, not a number)';
      course.append(ref);
    }
    const live = tr.insertCell();
    const span = document.createElement('span');
    span.dataset.example = id;
    span.dataset.expected = r.expected;
    span.dataset.digits = String(r.digits);
    span.dataset.source = r.source;
    span.dataset.computed = String(r.value);
    span.textContent = r.text && !Number.isNaN(r.value) ? r.text(r.value) : show(r.value, r.digits, r.unit);
    span.title = String(r.value);
    live.append(span);
    const ok = matches(r.value, r.expected, r.digits);
    all &&= ok;
    const mark = tr.insertCell();
    mark.className = ok ? 'ok' : 'bad';
    mark.textContent = ok ? '✓' : '✗';
    mark.setAttribute('aria-label', ok ? 'matches' : 'does not match');
    tr.className = ok ? '' : 'mismatch';
  }
  tbl.append(body);
  return { tbl, all };
}

const buildBadge = document.getElementById('build');
const switchLink = document.getElementById('build-switch');
try {
  const sm = await softmaxModule();
  document.documentElement.dataset.simd = String(sm.simd);
  buildBadge.textContent = sm.simd ? 'Running the WebAssembly SIMD build' : 'Running the baseline build (no SIMD)';
  switchLink.href = sm.simd ? '?simd=0' : '?simd=1';
  switchLink.textContent = sm.simd ? 'Try the baseline build' : 'Try the SIMD build';
  let failures = 0;
  for (const box of document.querySelectorAll('.check[data-check]')) {
    const id = box.dataset.check;
    try {
      const { tbl, all } = table(id, await CHECKS[id](sm));
      if (!all) failures++;
      box.replaceChildren(tbl);
    } catch (err) {
      failures++;
      box.textContent = `This example could not be computed: ${err.message}`;
      box.classList.add('failed');
      console.error(err);
    }
  }
  document.documentElement.dataset.failures = String(failures);
} catch (err) {
  buildBadge.textContent = 'The WebAssembly module did not load';
  const box = document.getElementById('load-error');
  box.textContent = `${err.message}. The page needs to be served over http(s), for example with npm start.`;
  box.hidden = false;
  console.error(err);
}
document.documentElement.dataset.ready = 'true';
