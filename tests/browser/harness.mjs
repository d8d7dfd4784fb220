// The browser suites' runner (run.mjs, lesson.mjs): named tests with a
// timeout, counted, each printed with its time; one summary line and the exit
// code at the end.

export const results = { passed: 0, failed: 0, failures: [] };

/** Runs fn as the test `name`; returns whether it passed. */
export async function test(name, fn, timeoutMs = 60_000) {
  let timer;
  const start = performance.now();
  try {
    await Promise.race([fn(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs)))]);
    results.passed++;
    console.log(`  ✓ ${name} (${((performance.now() - start) / 1000).toFixed(1)} s)`);
    return true;
  } catch (err) {
    results.failed++;
    results.failures.push(name);
    console.log(`  ✗ ${name}\n      ${String(err?.stack || err).split('\n').slice(0, 6).join('\n      ')}`);
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

/**
 * The course's rule for a live number, written again here (independent of
 * web/demo/course-examples.js's copy): "NaN", ">x", ">=x", "<x", "<=x", "=x",
 * or equal at `digits` places.
 */
export function matches(value, expected, digits) {
  if (expected === 'NaN') return Number.isNaN(value);
  const m = /^(>=|<=|>|<|=)\s*(.+)$/.exec(expected);
  if (m) {
    const x = Number(m[2]);
    return { '>=': value >= x, '<=': value <= x, '>': value > x, '<': value < x, '=': value === x }[m[1]];
  }
  return Number.isFinite(value) && value.toFixed(digits) === Number(expected).toFixed(digits);
}

/** Runs the suite's main(), a throw in it counting as a failed setup; prints the summary and exits. */
export async function runSuite(main) {
  try {
    await main();
  } catch (err) {
    results.failed++;
    console.log(`  ✗ setup: ${err.stack || err}`);
  }
  if (results.failures.length) console.log(`failed: ${results.failures.join(' | ')}`);
  console.log(`${results.passed} passed, ${results.failed} failed`);
  process.exit(results.failed ? 1 : 0);
}
