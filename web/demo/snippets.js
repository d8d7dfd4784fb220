// The course's Python and NumPy snippets as JavaScript with softmax-wasm. The
// lesson shows each function's own source (Function.prototype.toString, no
// eval: the strict CSP allows none) and runs that very function when the reader
// presses Run, with `console` standing for the output box. `course` is what
// the course says the snippet prints.

export const SNIPPETS = {
  gaps: {
    title: 'Only the gaps matter',
    course: 'True',
    run(sm, console) {
      const round3 = (p) => Array.from(p, (v) => Math.round(v * 1000) / 1000);
      const a = round3(sm.softmax([1, 3]));
      const b = round3(sm.softmax([11, 13]));
      console.log(a, b);
      console.log(a.join() === b.join()); // the course's Python prints True
    },
  },
  overflow: {
    title: 'The overflow trap and the max trick',
    course: 'naive: [nan nan nan]; stable: [0.09 0.2447 0.6652]',
    run(sm, console) {
      const z = [1000, 1001, 1002];
      const naive = sm.softmaxNaive(z); // e^z / sum(e^z): inf / inf
      const stable = sm.softmax(z); // subtracts the max first
      console.log('naive: ', naive);
      console.log('stable:', Array.from(stable, (p) => Math.round(p * 1e4) / 1e4));
    },
  },
  temperature: {
    title: 'A reusable softmax with a temperature',
    course: 'T=0.3: top 0.964; T=3.0: [0.382 0.274 0.203 0.141]',
    run(sm, console) {
      const z = [2.0, 1.0, 0.1, -1.0];
      for (const T of [0.3, 1.0, 3.0]) {
        const p = sm.softmax(z, { temperature: T }); // divides by T, then the max trick
        console.log(`T=${T.toFixed(1)}:`, Array.from(p, (v) => Number(v.toFixed(3))));
      }
    },
  },
  sigmoid: {
    title: 'Softmax of two is the sigmoid',
    course: '0.881 and 0.881',
    run(sm, console) {
      const z = 2.0;
      console.log(sm.softmax([z, 0])[0].toFixed(3)); // e^z / (e^z + e^0)
      console.log(sm.sigmoid(z).toFixed(3)); // 1 / (1 + e^-z)
    },
  },
};

/** The body of a snippet's function, dedented: the code the reader sees is the code that runs. */
export function sourceOf(fn) {
  const src = fn.toString();
  const lines = src.slice(src.indexOf('{') + 1, src.lastIndexOf('}')).split('\n');
  while (lines.length && lines[0].trim() === '') lines.shift();
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.match(/^ */)[0].length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

/** A console.log stand-in: arrays and typed arrays as [a, b], floats to 6 significant digits. */
export function format(value) {
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : String(Number(value.toPrecision(6)));
  if (Array.isArray(value) || ArrayBuffer.isView(value)) return `[${Array.from(value, format).join(', ')}]`;
  return String(value);
}
