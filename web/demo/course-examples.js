// Every worked example of the course text (shared/course/*.txt), listed once:
// its inputs, what it computes with the library, and the course's numbers.
// Read by the lesson page (web/demo/demo.js), by `npm run examples`
// (web/tools/examples.mjs) and by the Node tests (tests/js/course.test.js).
//
// A check is { key, label, course, expected, digits, source, kind }:
//  - key: the name of the computed value in compute()'s result;
//  - course: what the course prints (a number or words);
//  - expected: the machine-readable rule: a number compared at `digits`
//    decimals as the course rounds it, "NaN", or ">x", ">=x", "<x", "<=x", "=x";
//  - source: 'course' when the number is the course's, 'ours' when the course
//    gives words only and the number is our own double-precision reference;
//  - kind (display only): 'pct', 'count', 'yesno', 'order', 'exact', 'tiny'.
// Plain ES module with no DOM use: it runs in browsers and in Node.

/** The course's rule: "NaN", ">x", ">=x", "<x", "<=x", "=x", or equal once both are rounded to `digits` decimals. */
export function matches(value, expected, digits) {
  if (expected === 'NaN') return Number.isNaN(value);
  const m = /^(>=|<=|>|<|=)\s*(.+)$/.exec(expected);
  if (m) {
    const x = Number(m[2]);
    return { '>=': value >= x, '<=': value <= x, '>': value > x, '<': value < x, '=': value === x }[m[1]];
  }
  return Number.isFinite(value) && value.toFixed(digits) === Number(expected).toFixed(digits);
}

const sum = (xs) => Array.from(xs).reduce((a, b) => a + b, 0);

/** n draws of a seeded sampler, counted per index. */
function drawCounts(sm, scores, opts, n = 1000) {
  const s = sm.createSampler(opts);
  try {
    const counts = new Array(scores.length).fill(0);
    for (const d of s.sampleMany(scores, n)) counts[d]++;
    return counts;
  } finally {
    s.dispose();
  }
}

/** 1 when the probabilities rank the options as the scores do (ties by lower index). */
function sameOrder(scores, probs) {
  const rank = (xs) => Array.from(xs.keys()).sort((a, b) => xs[b] - xs[a] || a - b).join(',');
  return rank(Array.from(scores)) === rank(Array.from(probs)) ? 1 : 0;
}

const c = (key, label, course, expected, digits, extra = {}) => ({ key, label, course, expected, digits, source: 'course', ...extra });
const ours = (key, label, course, expected, digits, extra = {}) => ({ key, label, course, expected, digits, source: 'ours', ...extra });

export const EXAMPLES = [
  {
    id: 'positive',
    title: 'Scores are not chances',
    inputs: { scores: [-100, 0, 50, 2] },
    compute(sm, { scores }) {
      const p = sm.softmax(scores);
      return { min: Math.min(...p), total: sum(p) };
    },
    checks: [
      c('min', 'smallest probability for [−100, 0, 50, 2]', 'never negative', '>=0', 3, { kind: 'tiny' }),
      c('total', 'their total', 'exactly 1', '1', 5),
    ],
  },
  {
    id: 'three',
    title: 'Three scores by hand',
    inputs: { scores: [0.707, 0, 0.707] },
    compute(sm, { scores }) {
      const s = sm.softmaxSteps(scores);
      return { e0: s.rawExps[0], e1: s.rawExps[1], sum: s.rawSum, p0: s.probs[0], p1: s.probs[1], p2: s.probs[2] };
    },
    checks: [
      c('e0', 'e^0.707', '≈ 2.028', '2.028', 3),
      c('e1', 'e^0', '= 1', '1', 3),
      c('sum', 'sum of the three', '≈ 5.056', '5.056', 3),
      c('p0', 'p(A)', '≈ 0.401', '0.401', 3),
      c('p1', 'p(B)', '≈ 0.198', '0.198', 3),
      c('p2', 'p(C)', '≈ 0.401', '0.401', 3),
    ],
  },
  {
    id: 'abc',
    title: 'A, B and C at two temperatures',
    inputs: { scores: [2, 0, -1], temperatures: [1, 0.3] },
    compute(sm, { scores, temperatures: [t1, t2] }) {
      const a = sm.softmax(scores, { temperature: t1 });
      const b = sm.softmax(scores, { temperature: t2 });
      return { a: a[0], b: a[1], c: a[2], cold: b[0] };
    },
    checks: [
      ours('a', 'T = 1, p(A)', 'most of it', '0.844', 3),
      ours('b', 'T = 1, p(B)', 'a little', '0.114', 3),
      ours('c', 'T = 1, p(C)', 'almost none', '0.042', 3),
      ours('cold', 'T = 0.3, p(A)', 'nearly everything', '0.999', 3),
    ],
  },
  {
    id: 'equal',
    title: 'Equal scores',
    inputs: { a: [1.5, 1.5, 1.5], b: [-7, -7, -7] },
    compute(sm, { a, b }) {
      const p = sm.softmax(a);
      const q = sm.softmax(b);
      return { a0: p[0], allEqual: p[0] === p[1] && p[1] === p[2] ? 1 : 0, b0: q[0] };
    },
    checks: [
      c('a0', '[1.5, 1.5, 1.5]: each', '1/3', '0.333', 3),
      c('allEqual', '[1.5, 1.5, 1.5]: all equal', 'yes', '=1', 0, { kind: 'yesno' }),
      c('b0', '[−7, −7, −7]: each', '1/3', '0.333', 3),
    ],
  },
  {
    id: 'giant',
    title: 'One score far ahead',
    inputs: { scores: [10, 1, 0] },
    compute(sm, { scores }) {
      const p = sm.softmax(scores);
      return { top: p[0], slope: p[0] * (1 - p[0]) };
    },
    checks: [
      ours('top', '[10, 1, 0]: p of the 10', 'almost all', '1.000', 3),
      ours('slope', 'slope p(1 − p) there', 'very flat', '0.0002', 4),
    ],
  },
  {
    id: 'sampling',
    title: 'Probabilities are not choices',
    inputs: { scores: [2, 1, 0], seed: 42, draws: 1000 },
    compute(sm, { scores, seed, draws }) {
      const p = sm.softmax(scores);
      const counts = drawCounts(sm, scores, { seed, temperature: 1 }, draws);
      const greedy = drawCounts(sm, scores, { seed, temperature: 0 }, draws);
      return { p0: p[0] * 100, p1: p[1] * 100, p2: p[2] * 100, second: counts[1], third: counts[2], greedy: greedy[0] };
    },
    checks: [
      c('p0', 'first', '67 %', '67', 0, { kind: 'pct' }),
      c('p1', 'second', '24 %', '24', 0, { kind: 'pct' }),
      c('p2', 'third', '9 %', '9', 0, { kind: 'pct' }),
      c('second', '1,000 draws (seed 42): second picked', 'sometimes', '>0', 0, { kind: 'count' }),
      c('third', '1,000 draws (seed 42): third picked', 'sometimes', '>0', 0, { kind: 'count' }),
      c('greedy', 'greedy (T = 0), 1,000 draws: first picked', 'always', '=1000', 0, { kind: 'count' }),
    ],
  },
  {
    id: 'ln2',
    title: 'A number picked to come out round',
    inputs: { scores: [Math.LN2, 0, 0] },
    compute(sm, { scores }) {
      const s = sm.softmaxSteps(scores);
      return { e0: s.rawExps[0], e1: s.rawExps[1], p0: s.probs[0], p1: s.probs[1], p2: s.probs[2] };
    },
    checks: [
      c('e0', 'e^(ln 2)', '2', '2', 3),
      c('e1', 'e^0 (twice)', '1', '1', 3),
      c('p0', 'p(first)', '0.5', '0.5', 3),
      c('p1', 'p(second)', '0.25', '0.25', 3),
      c('p2', 'p(third)', '0.25', '0.25', 3),
    ],
  },
  {
    id: 'gaps',
    title: 'Only the gaps matter',
    inputs: { a: [1, 3], b: [11, 13] },
    compute(sm, { a, b }) {
      const p = sm.softmax(a);
      const q = sm.softmax(b);
      return { a0: p[0], a1: p[1], b0: q[0], b1: q[1], diff: Math.max(Math.abs(p[0] - q[0]), Math.abs(p[1] - q[1])) };
    },
    checks: [
      c('a0', '[1, 3]: first', '0.119', '0.119', 3),
      c('a1', '[1, 3]: second', '0.881', '0.881', 3),
      c('b0', '[11, 13]: first', '0.119', '0.119', 3),
      c('b1', '[11, 13]: second', '0.881', '0.881', 3),
      ours('diff', 'largest difference between the two', 'none', '<1e-6', 7, { kind: 'exact' }),
    ],
  },
  {
    id: 'overflow',
    title: 'When e^z does not fit',
    inputs: { scores: [1000, 1001, 1002] },
    compute(sm, { scores }) {
      const n = sm.softmaxNaive(scores);
      const s = sm.softmax(scores);
      return { n0: n[0], n1: n[1], n2: n[2], s0: s[0], s1: s[1], s2: s[2] };
    },
    checks: [
      c('n0', 'textbook formula, first', 'nan', 'NaN', 0),
      c('n1', 'textbook formula, second', 'nan', 'NaN', 0),
      c('n2', 'textbook formula, third', 'nan', 'NaN', 0),
      c('s0', 'max trick, first', '0.09', '0.09', 2),
      c('s1', 'max trick, second', '0.2447', '0.2447', 4),
      c('s2', 'max trick, third', '0.6652', '0.6652', 4),
    ],
  },
  {
    id: 'temperature',
    title: 'The temperature dial',
    inputs: { scores: [2, 1, 0], temperatures: [0.5, 1, 2] },
    compute(sm, { scores, temperatures: [lo, one, hi] }) {
      const a = sm.softmaxSteps(scores, { temperature: lo });
      const b = sm.softmax(scores, { temperature: one });
      const d = sm.softmaxSteps(scores, { temperature: hi });
      return {
        s0: a.scaled[0], s1: a.scaled[1], a0: a.probs[0], a1: a.probs[1], a2: a.probs[2],
        b0: b[0], b1: b[1], b2: b[2], mid: d.scaled[1], d0: d.probs[0], d1: d.probs[1], d2: d.probs[2],
      };
    },
    checks: [
      c('s0', 'T = 0.5: scores become (first)', '4', '4', 3),
      c('s1', 'T = 0.5: scores become (second)', '2', '2', 3),
      c('a0', 'T = 0.5: p(top)', '0.867', '0.867', 3),
      ours('a1', 'T = 0.5: second', '—', '0.117', 3),
      ours('a2', 'T = 0.5: third', '—', '0.016', 3),
      c('b0', 'T = 1: first', '0.665', '0.665', 3),
      c('b1', 'T = 1: second', '0.245', '0.245', 3),
      c('b2', 'T = 1: third', '0.090', '0.090', 3),
      c('mid', 'T = 2: scores become (middle)', '0.5', '0.5', 3),
      c('d0', 'T = 2: first', '0.506', '0.506', 3),
      c('d1', 'T = 2: second', '0.307', '0.307', 3),
      c('d2', 'T = 2: third', '0.186', '0.186', 3),
    ],
  },
  {
    id: 'four',
    title: 'Four options, three temperatures',
    inputs: { scores: [2, 1, 0.1, -1], temperatures: [0.3, 1, 3] },
    compute(sm, { scores, temperatures: [lo, one, hi] }) {
      const a = sm.softmax(scores, { temperature: lo });
      const b = sm.softmax(scores, { temperature: one });
      const d = sm.softmax(scores, { temperature: hi });
      return { a0: a[0], b0: b[0], b1: b[1], b2: b[2], b3: b[3], d0: d[0], d1: d[1], d2: d[2], d3: d[3] };
    },
    checks: [
      c('a0', 'T = 0.3: p(top)', '0.964', '0.964', 3),
      ours('b0', 'T = 1: first', '—', '0.638', 3),
      ours('b1', 'T = 1: second', '—', '0.235', 3),
      ours('b2', 'T = 1: third', '—', '0.095', 3),
      ours('b3', 'T = 1: fourth', '—', '0.032', 3),
      c('d0', 'T = 3: first', '0.382', '0.382', 3),
      c('d1', 'T = 3: second', '0.274', '0.274', 3),
      c('d2', 'T = 3: third', '0.203', '0.203', 3),
      c('d3', 'T = 3: fourth', '0.141', '0.141', 3),
    ],
  },
  {
    id: 'greedy',
    title: 'Turning the dial down to zero',
    inputs: { scores: [2, 1, 0], sampled: [2, 1, 0.1, -1], seed: 7, draws: 1000 },
    compute(sm, { scores, sampled, seed, draws }) {
      const at = (t) => sm.softmax(scores, { temperature: t });
      const zero = at(0);
      return { t03: at(0.3)[0], t01: at(0.1)[0], t001: at(0.01)[0], zero: zero[0], others: zero[1] + zero[2], sampler: drawCounts(sm, sampled, { seed, temperature: 0 }, draws)[0] };
    },
    checks: [
      ours('t03', 'T = 0.3: p(top)', 'high', '0.964', 3),
      ours('t01', 'T = 0.1: p(top)', 'nearly 1', '1.000', 3),
      ours('t001', 'T = 0.01: p(top)', 'nearly 1', '1.000', 3),
      c('zero', 'T = 0: p(top)', 'all of it', '=1', 0, { kind: 'exact' }),
      c('others', 'T = 0: p of the others', 'none', '=0', 0, { kind: 'exact' }),
      c('sampler', 'sampler at T = 0, 1,000 draws over [2, 1, 0.1, −1]: the top one', 'always', '=1000', 0, { kind: 'count' }),
    ],
  },
  {
    id: 'order',
    title: 'The ranking is safe',
    inputs: { scores: [2, 1, 0.1, -1], temperatures: [0.1, 0.3, 1, 3, 5] },
    compute(sm, { scores, temperatures }) {
      return Object.fromEntries(temperatures.map((t) => [`t${t}`, sameOrder(scores, sm.softmax(scores, { temperature: t }))]));
    },
    checks: [0.1, 0.3, 1, 3, 5].map((t) => c(`t${t}`, `T = ${t}`, 'same order', '=1', 0, { kind: 'order' })),
  },
  {
    id: 'sigmoid',
    title: 'Two options: the S-curve',
    inputs: { z: 2 },
    compute(sm, { z }) {
      const s = sm.sigmoid(z);
      const p = sm.softmax([z, 0]);
      return { sigmoid: s, softmax: p[0], diff: Math.abs(s - p[0]) };
    },
    checks: [
      c('sigmoid', 'sigmoid(2)', '0.881', '0.881', 3),
      c('softmax', 'softmax([2, 0]), first', '0.881', '0.881', 3),
      ours('diff', 'difference', 'none', '<1e-6', 7, { kind: 'exact' }),
    ],
  },
  {
    id: 'axis',
    title: 'Which axis? Tensors and attention',
    inputs: {
      matrix: [1, 2, 3, 1, 1, 1],
      tokens: ['the', 'cat', 'sat', 'down'],
      attention: [2.0, 0.5, 0.1, -0.3, 0.4, 2.5, 1.0, 0.2, 0.1, 1.8, 1.2, 0.6, -0.5, 0.9, 1.5, 1.1],
    },
    compute(sm, { matrix, tokens, attention }) {
      const rows = sm.softmax(matrix, { shape: [2, 3], axis: -1 });
      const cols = sm.softmax(matrix, { shape: [2, 3], axis: 0 });
      const n = tokens.length;
      const att = sm.softmax(attention, { shape: [n, n], axis: -1 });
      const out = { r1: rows[0] + rows[1] + rows[2], r2: rows[3] + rows[4] + rows[5], a: rows[0], b: rows[1], c: rows[2], col1: cols[0], col3top: cols[2], col3bottom: cols[5], col3: cols[2] + cols[5] };
      for (let i = 0; i < n; i++) out[`att${i}`] = sum(att.subarray(i * n, (i + 1) * n));
      return out;
    },
    checks: [
      c('r1', '[[1, 2, 3], [1, 1, 1]], axis −1: row 1 sums to', '1', '1', 5),
      c('r2', 'row 2 sums to', '1', '1', 5),
      c('a', 'row 1: first', '0.09', '0.09', 2),
      c('b', 'row 1: second', '0.2447', '0.2447', 4),
      c('c', 'row 1: third', '0.6652', '0.6652', 4),
      c('col1', 'axis 0: column 1 (scores 1 and 1)', '1/2 each', '0.5', 3),
      c('col3top', 'column 3 (scores 3 and 1): top', '0.881', '0.881', 3),
      c('col3bottom', 'column 3: bottom', '0.119', '0.119', 3),
      c('col3', 'each column sums to', '1', '1', 5),
      ...[0, 1, 2, 3].map((i) => c(`att${i}`, `attention of “${['the', 'cat', 'sat', 'down'][i]}” (a row) sums to`, '1', '1', 5)),
    ],
  },
];

/** Runs every example: [{ example, check, value, ok }] in the course's order. */
export function runExamples(sm) {
  const out = [];
  for (const ex of EXAMPLES) {
    const values = ex.compute(sm, ex.inputs);
    for (const check of ex.checks) {
      const value = Number(values[check.key]);
      out.push({ example: ex, check, value, ok: matches(value, check.expected, check.digits) });
    }
  }
  return out;
}
