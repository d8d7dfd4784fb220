// npm run examples: the course's worked examples computed by the wasm module,
// next to the numbers the course prints.
import { load } from '../src/node.js';

const sm = await load();
const r = (v, d = 3) => Number(v).toFixed(d);
const list = (a, d) => `[${Array.from(a, (v) => (Number.isNaN(v) ? 'NaN' : r(v, d))).join(', ')}]`;
const rows = [
  ['[0.707, 0, 0.707]', '[0.401, 0.198, 0.401]', list(sm.softmax([0.707, 0, 0.707]))],
  ['e^0.707 and the sum of exps', '2.028, 5.056', (() => { const s = sm.softmaxSteps([0.707, 0, 0.707]); return `${r(s.rawExps[0])}, ${r(s.rawSum)}`; })()],
  ['[2, 0, -1], T = 1', 'A most, C almost none', list(sm.softmax([2, 0, -1]))],
  ['[2, 0, -1], T = 0.3', 'A nearly everything', list(sm.softmax([2, 0, -1], { temperature: 0.3 }))],
  ['three equal scores', '[1/3, 1/3, 1/3]', list(sm.softmax([4, 4, 4]))],
  ['[2, 1, 0]', '[0.665, 0.245, 0.090]', list(sm.softmax([2, 1, 0]))],
  ['[2, 1, 0], T = 0.5', 'top 0.867', list(sm.softmax([2, 1, 0], { temperature: 0.5 }))],
  ['[2, 1, 0], T = 2', '[0.506, 0.307, 0.186]', list(sm.softmax([2, 1, 0], { temperature: 2 }))],
  ['[ln 2, 0, 0]', '[0.5, 0.25, 0.25]', list(sm.softmax([Math.LN2, 0, 0]))],
  ['[1, 3] and [11, 13]', '[0.119, 0.881] both', `${list(sm.softmax([1, 3]))} ${list(sm.softmax([11, 13]))}`],
  ['[1000, 1001, 1002] naive', '[nan, nan, nan]', list(sm.softmaxNaive([1000, 1001, 1002]), 4)],
  ['[1000, 1001, 1002] stable', '[0.09, 0.2447, 0.6652]', list(sm.softmax([1000, 1001, 1002]), 4)],
  ['[2, 1, 0.1, -1], T = 0.3', 'top 0.964', list(sm.softmax([2, 1, 0.1, -1], { temperature: 0.3 }))],
  ['[2, 1, 0.1, -1], T = 3', '[0.382, 0.274, 0.203, 0.141]', list(sm.softmax([2, 1, 0.1, -1], { temperature: 3 }))],
  ['greedy of [2, 1, 0] (T = 0)', 'the first', `index ${sm.argmax([2, 1, 0])}, ${list(sm.softmax([2, 1, 0], { temperature: 0 }))}`],
  ['sigmoid(2) = softmax([2, 0])[0]', '0.881', `${r(sm.sigmoid(2))} = ${r(sm.softmax([2, 0])[0])}`],
];
const w = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length), ['example', 'course', 'computed'][i].length));
const line = (cells) => cells.map((c, i) => c.padEnd(w[i])).join('  ');
console.log(`softmax-wasm ${sm.simd ? 'SIMD128' : 'baseline'} build: the course's worked examples\n`);
console.log(line(['example', 'course', 'computed']));
console.log(line(w.map((n) => '-'.repeat(n))));
for (const row of rows) console.log(line(row));
