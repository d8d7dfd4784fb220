// npm run build: the two wasm modules (SIMD128 and baseline) and their glue into
// web/dist/, the copy of wasm-feature-detect that the loader imports, then the
// files generated from the ES module sources (esbuild):
//
//   web/dist/softmax-wasm.cjs       CommonJS entry for Node (`require`), from web/src/node.js
//   web/dist/softmax-wasm.js        one-file ES module for browsers and CDNs, from web/src/index.js
//   web/dist/transformers.cjs       CommonJS form of the transformers.js adapter
//   web/dist/*.d.cts                the types, for TypeScript projects that compile to CommonJS
//
// Every generated file sits in web/dist/, beside the .wasm files, so the
// relative URLs of the sources (`new URL('../dist/softmax-simd.wasm', import.meta.url)`)
// resolve to the same files from there.
//
//   node web/tools/build.mjs          everything (needs Emscripten)
//   node web/tools/build.mjs --js     the generated JS and types only (needs web/dist/*.wasm and glue)
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build, transformSync } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const src = join(root, 'web', 'src');
const dist = join(root, 'web', 'dist');
const jsOnly = process.argv.includes('--js');

if (!jsOnly) {
  // Debian's emscripten runs its JS optimizer with the node on PATH, which must find acorn there.
  const env = { ...process.env, NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':') };
  const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, env, stdio: 'inherit' });
  mkdirSync(dist, { recursive: true });
  run('emcmake', ['cmake', '-S', '.', '-B', 'build-wasm', '-DCMAKE_BUILD_TYPE=Release']);
  run('cmake', ['--build', 'build-wasm', '-j', '2']);
  // The glue's local names minified (Debian's emscripten has no closure
  // compiler): Embind's runtime is ~30% smaller. Properties are left alone.
  // Only a glue file that em++ has just written: when nothing was relinked,
  // the file is already minified, and minifying it again renames its locals
  // anew (a different gzip size for the same build).
  for (const variant of ['simd', 'base']) {
    const file = join(dist, `softmax-${variant}.js`);
    const text = readFileSync(file, 'utf8');
    if (!text.trimStart().startsWith('var createSoftmaxModule = ')) continue;
    const { code } = transformSync(text, { minify: true, format: 'esm', target: 'es2020' });
    writeFileSync(file, code);
  }
  const require = createRequire(import.meta.url);
  const detect = require.resolve('wasm-feature-detect').replace(/cjs[/\\]index\.cjs$/, 'esm/index.js');
  copyFileSync(detect, join(dist, 'wasm-feature-detect.js'));
  console.log(`built ${dist}`);
}

const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;

// The two builds' glue files differ only in the .wasm name they would fetch,
// which the loader never lets them use (it hands them a compiled module through
// instantiateWasm). When that holds, a bundle carries one glue for both builds.
const glue = (variant) => readFileSync(join(dist, `softmax-${variant}.js`), 'utf8');
const oneGlue = glue('base').replaceAll('softmax-base.wasm', 'softmax-simd.wasm') === glue('simd');
const shareGlue = {
  name: 'one-glue',
  setup(b) {
    if (!oneGlue) return;
    b.onResolve({ filter: /[/\\]softmax-base\.js$/ }, () => ({ path: join(dist, 'softmax-simd.js') }));
  },
};
const banner = (what) => `// softmax-wasm ${version}: ${what}, generated from web/src by web/tools/build.mjs (MIT License).`;
const common = { bundle: true, logLevel: 'warning', legalComments: 'none', charset: 'utf8', plugins: [shareGlue] };

// CommonJS has no import.meta: the bundle's own file URL stands in for it.
const cjs = {
  ...common,
  format: 'cjs',
  platform: 'node',
  target: 'node18',
  minifyWhitespace: true,
  minifySyntax: true,
  define: { 'import.meta.url': 'importMetaUrl' },
};
await Promise.all([
  build({
    ...cjs,
    entryPoints: [join(src, 'node.js')],
    outfile: join(dist, 'softmax-wasm.cjs'),
    banner: { js: `${banner('CommonJS entry for Node')}\nconst importMetaUrl = require('node:url').pathToFileURL(__filename).href;` },
  }),
  build({
    ...cjs,
    entryPoints: [join(src, 'transformers.js')],
    outfile: join(dist, 'transformers.cjs'),
    banner: { js: banner('the transformers.js adapter as CommonJS') },
  }),
  build({
    ...common,
    entryPoints: [join(src, 'index.js')],
    outfile: join(dist, 'softmax-wasm.js'),
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    banner: { js: banner('one-file ES module for browsers and CDNs; the .wasm files are fetched from beside it') },
  }),
]);

// The types for `require`: the same declarations, which TypeScript reads as a CommonJS module's.
const cts = (text) => text.replaceAll("from './index.js'", "from './softmax-wasm.cjs'");
writeFileSync(join(dist, 'softmax-wasm.d.cts'), cts(readFileSync(join(src, 'index.d.ts'), 'utf8')));
writeFileSync(join(dist, 'transformers.d.cts'), cts(readFileSync(join(src, 'transformers.d.ts'), 'utf8')));
console.log(`${oneGlue ? 'one glue for both builds; ' : ''}generated ${['softmax-wasm.cjs', 'softmax-wasm.js', 'transformers.cjs', 'softmax-wasm.d.cts', 'transformers.d.cts'].map((f) => `web/dist/${f}`).join(', ')}`);
