// npm run build: the two wasm modules (SIMD128 and baseline) and their glue into
// web/dist/, plus the copy of wasm-feature-detect that the loader imports.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(root, 'web', 'dist');
// Debian's emscripten runs its JS optimizer with the node on PATH, which must find acorn there.
const env = { ...process.env, NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':') };
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, env, stdio: 'inherit' });

mkdirSync(dist, { recursive: true });
run('emcmake', ['cmake', '-S', '.', '-B', 'build-wasm', '-DCMAKE_BUILD_TYPE=Release']);
run('cmake', ['--build', 'build-wasm', '-j', '2']);
// The glue's local names minified (Debian's emscripten has no closure
// compiler): Embind's runtime is ~30% smaller. Properties are left alone.
const { transformSync } = await import('esbuild');
for (const variant of ['simd', 'base']) {
  const file = join(dist, `softmax-${variant}.js`);
  const { code } = transformSync(readFileSync(file, 'utf8'), { minify: true, format: 'esm', target: 'es2020' });
  writeFileSync(file, code);
}
const require = createRequire(import.meta.url);
const detect = require.resolve('wasm-feature-detect').replace(/cjs[/\\]index\.cjs$/, 'esm/index.js');
copyFileSync(detect, join(dist, 'wasm-feature-detect.js'));
console.log(`built ${dist}`);
