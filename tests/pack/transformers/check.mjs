// check(name, fn) for the scripts of this folder: prints 'ok <name>' or 'FAIL <name>'
// with the error; done() exits non-zero if any check failed.
let failed = false;

export async function check(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (e) {
    failed = true;
    console.log(`FAIL ${name}\n     ${String(e?.stack ?? e).split('\n').slice(0, 8).join('\n     ')}`);
  }
}

export const done = () => process.exit(failed ? 1 : 0);
