// One start-up measurement in a fresh process (run by softmax.bench.mjs):
//   node bench/startup.mjs ours-simd|ours-base|tfjs|ort|transformers
// prints JSON { importMs, initMs, totalMs }: the time to import the package,
// then to initialise it (our load(), TF.js setBackend('wasm'), an onnxruntime-web
// session for the Softmax model, transformers.js's first topk which creates its
// ONNX Runtime session), and the sum, from import to ready.
const which = process.argv[2];
const t0 = performance.now();
let t1;

if (which === 'ours-simd' || which === 'ours-base') {
  const { load } = await import('../web/src/node.js');
  t1 = performance.now();
  const sm = await load({ simd: which === 'ours-simd' });
  sm.softmax(new Float32Array([1, 2, 3]));
} else if (which === 'tfjs') {
  const tf = await import('@tensorflow/tfjs-core');
  const { setWasmPaths } = await import('@tensorflow/tfjs-backend-wasm');
  t1 = performance.now();
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  tf.env().set('WASM_HAS_SIMD_SUPPORT', true);
  setWasmPaths(new URL('./node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url).pathname);
  await tf.setBackend('wasm');
  await tf.ready();
  tf.softmax(tf.tensor1d([1, 2, 3])).dataSync();
} else if (which === 'ort') {
  const ort = await import('onnxruntime-web');
  const { softmaxModel } = await import('./onnx-model.mjs');
  t1 = performance.now();
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = new URL('./node_modules/onnxruntime-web/dist/', import.meta.url).pathname;
  const session = await ort.InferenceSession.create(softmaxModel(), { executionProviders: ['wasm'] });
  await session.run({ x: new ort.Tensor('float32', new Float32Array([1, 2, 3]), [1, 3]) });
} else if (which === 'transformers') {
  const hf = await import('@huggingface/transformers');
  t1 = performance.now();
  await hf.topk(new hf.Tensor('float32', new Float32Array([1, 2, 3]), [3]), 2);
} else {
  throw new Error(`startup.mjs: unknown peer ${which}`);
}
const t2 = performance.now();
console.log(JSON.stringify({ importMs: t1 - t0, initMs: t2 - t1, totalMs: t2 - t0 }));
