// The README's code blocks, for tests/pack/run.mjs: each fenced block follows a
// `<!-- snippet: NAME -->` line, and run.mjs runs every NAME where a user
// would (Node, CommonJS, TypeScript, a page, a worker, a CDN origin, ...).
//
// A line `EXPR; // VALUE` (or `EXPR // VALUE` in a table cell) whose comment
// reads as a value (a number, a list, true/false, NaN) is checked: the value
// the expression gives must print as the comment does, to the digits shown.

/** Every fenced block of a Markdown text: { name (or null), lang, code, line }. */
export function codeBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^(\s*)```(\w*)\s*$/);
    if (!open) continue;
    const indent = open[1].length;
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++) body.push(lines[j].slice(indent));
    let k = i - 1;
    while (k >= 0 && lines[k].trim() === '') k--;
    const marker = k >= 0 ? lines[k].match(/<!--\s*snippet:\s*([\w-]+)\s*-->/) : null;
    blocks.push({ name: marker ? marker[1] : null, lang: open[2], code: body.join('\n'), line: i + 1 });
    i = j;
  }
  return blocks;
}

/** The examples of the API table's last column: code cells whose text starts with `sm.` or `const`. */
export function tableExamples(markdown) {
  const out = [];
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const cells = line.split(' | ');
    const last = cells.at(-1).replace(/\s*\|\s*$/, '');
    const m = last.match(/^`(.+)`$/);
    if (m && /^(sm\.|const )/.test(m[1])) out.push(m[1].replaceAll('\\|', '|'));
  }
  return out;
}

const VALUE = /^(?:(?:Float32|Float64|Int32)Array\s*)?(?:\[|-?\d|NaN\b|-?Infinity\b|true\b|false\b)/;

/** The value a comment states, or undefined when it is prose. */
export function statedValue(comment) {
  const text = comment.trim();
  if (!VALUE.test(text)) return undefined;
  const head = text.split(/:\s|\s\(/)[0].replace(/^\w+Array\s*/, '');
  if (/^(true|false)\b/.test(head)) return { bool: head.startsWith('true') };
  const numbers = [...head.matchAll(/-?(?:\d+(?:\.\d+)?(?:e-?\d+)?|NaN|Infinity)/g)].map((m) => m[0]);
  return { numbers };
}

/** Throws unless `value` prints as `stated` does, to the digits shown. */
export function matchesStated(value, stated, where) {
  if (stated.bool !== undefined) {
    if (value !== stated.bool) throw new Error(`${where}: got ${value}, the README says ${stated.bool}`);
    return;
  }
  const got = typeof value === 'number' ? [value] : Array.from(value ?? [], Number);
  if (got.length !== stated.numbers.length) throw new Error(`${where}: got [${got}], the README says [${stated.numbers}]`);
  stated.numbers.forEach((s, i) => {
    const want = Number(s);
    const decimals = (s.split('.')[1] ?? '').replace(/e.*/, '').length;
    const ok = Number.isNaN(want) ? Number.isNaN(got[i]) : Math.abs(got[i] - want) <= 0.5 * 10 ** -decimals * (1 + 1e-9) || got[i] === want;
    if (!ok) throw new Error(`${where}: entry ${i} is ${got[i]}, the README says ${s}`);
  });
}

/**
 * A module body that runs the snippet and checks each `EXPR; // VALUE` line.
 * Lines that print (console.log) are left as they are; their output is the
 * caller's to check with printedValues().
 */
export function checkedModule(code, name) {
  const lines = code.split('\n').map((line, i) => {
    const m = line.match(/^(\s*)(.+?);\s*\/\/\s*(.+)$/);
    if (!m || /console\.log|^\s*(const|let|var|import)\b/.test(m[2]) || statedValue(m[3]) === undefined) return line;
    return `${m[1]}__check(${m[2]}, ${JSON.stringify(m[3])}, ${JSON.stringify(`README ${name}, line ${i + 1}`)});`;
  });
  const helper = `import { matchesStated as __matches, statedValue as __stated } from ${JSON.stringify(import.meta.url)};
const __check = (value, comment, where) => (__matches(value, __stated(comment), where), value);
`;
  return `${helper}${lines.join('\n')}`;
}

/** The values stated by the comments of the snippet's console.log lines, in order. */
export function printedValues(code) {
  return code
    .split('\n')
    .map((line) => line.match(/console\.log\(.*\/\/\s*(.+)$/))
    .filter(Boolean)
    .map((m) => statedValue(m[1]))
    .filter(Boolean);
}

/** Numbers of one line of Node's console.log output (util.inspect of a typed array or a number). */
export function numbersOf(printed) {
  return [...printed.replace(/^\w+Array\(\d+\)\s*/, '').matchAll(/-?(?:\d+(?:\.\d+)?(?:e-?\d+)?|NaN|Infinity)/g)].map((m) => Number(m[0]));
}
