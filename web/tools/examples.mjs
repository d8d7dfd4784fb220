// npm run examples: every worked example of the course (web/demo/course-examples.js)
// computed by the wasm module, next to the number the course prints. Exits 1
// if any number differs from the course.
import { EXAMPLES, runExamples } from '../demo/course-examples.js';
import { load } from '../src/node.js';

const sm = await load();
const show = (v, digits) => (Number.isNaN(v) ? 'NaN' : Number.isInteger(v) && digits === 0 ? String(v) : Math.abs(v) < 1e-4 && v !== 0 ? v.toExponential(1) : v.toFixed(digits));
const results = runExamples(sm);
const rows = results.map(({ check, value, ok }) => [
  `  ${check.label}`,
  `${check.course}${check.source === 'ours' ? ` (ref. ${check.expected})` : ''}`,
  show(value, check.digits),
  ok ? 'ok' : 'DIFFERS',
]);
const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length), ['example', 'course', 'computed'][i].length));
const line = (cells) => cells.map((c, i) => (i < 3 ? c.padEnd(w[i]) : c)).join('  ');
console.log(`softmax-wasm ${sm.simd ? 'SIMD128' : 'baseline'} build: the course's worked examples\n`);
console.log(line(['example', 'course', 'computed', '']));
console.log(line(w.map((n) => '-'.repeat(n)).concat('')));
rows.forEach((r, i) => {
  if (i === 0 || results[i].example !== results[i - 1].example) console.log(results[i].example.title);
  console.log(line(r));
});
const bad = results.filter((r) => !r.ok).length;
console.log(`\n${results.length - bad} of ${results.length} numbers of ${EXAMPLES.length} worked examples match the course`);
process.exit(bad ? 1 : 0);
