// The peers, set up the way a web page would use them, but loading their .wasm
// files from bench/node_modules (this machine reaches the npm registry only).
//   TF.js: @tensorflow/tfjs-core + @tensorflow/tfjs-backend-wasm, SIMD on, threads off.
//   onnxruntime-web: wasm execution provider, 1 thread, a one-node Softmax model.
//   transformers.js: its softmax() and its own generation sampling step.
import { fileURLToPath } from 'node:url';

import { softmaxModel } from './onnx-model.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** TF.js with the wasm backend; resolves to the tf namespace. */
export async function setupTfjs() {
  const tf = await import('@tensorflow/tfjs-core');
  const { setWasmPaths } = await import('@tensorflow/tfjs-backend-wasm');
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  tf.env().set('WASM_HAS_SIMD_SUPPORT', true);
  // A directory prefix: under Node the backend's glue reads the file from disk.
  setWasmPaths(here('./node_modules/@tensorflow/tfjs-backend-wasm/dist/'));
  if (!(await tf.setBackend('wasm'))) throw new Error('TF.js: the wasm backend did not initialise');
  await tf.ready();
  return tf;
}

/** onnxruntime-web on its wasm EP, 1 thread; resolves to { ort, session }. */
export async function setupOrt() {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmPaths = here('./node_modules/onnxruntime-web/dist/');
  const session = await ort.InferenceSession.create(softmaxModel(), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  return { ort, session };
}

/** transformers.js: its exports and a generation sampling step. */
export async function setupTransformers() {
  const hf = await import('@huggingface/transformers');
  return hf;
}

/**
 * transformers.js 4.x's own sampling step for one sequence, as generate() runs
 * it (models.js / generation/logits_sampler.js):
 *   - _get_logits_processor() pushes TemperatureLogitsWarper (T != 1). 4.x's
 *     TopKLogitsWarper and TopPLogitsWarper have no _call and generate() does
 *     not push them: top-k happens inside the sampler, top-p is not applied.
 *   - MultinomialSampler.sample(): topk(logits, k) through ONNX Runtime's TopK
 *     (k = top_k, or the whole vocabulary when top_k is 0), softmax over the k
 *     values, one weighted draw with transformers.js's own random.
 * MultinomialSampler is not exported, so its sample() body is copied here on top
 * of the exported topk, softmax and random it calls.
 */
export function makeTransformersStep(hf, { temperature, topK }) {
  const processors = new hf.LogitsProcessorList();
  processors.push(new hf.TemperatureLogitsWarper(temperature));
  hf.random.seed(42);
  const weightedIndex = (weights) => {
    // _weightedIndexWith(random.random, weights), verbatim
    let sum = 0;
    for (let i = 0; i < weights.length; ++i) sum += weights[i];
    let x = hf.random.random() * sum;
    for (let i = 0; i < weights.length; ++i) {
      x -= weights[i];
      if (x < 0) return i;
    }
    return weights.length - 1;
  };
  return async function step(scores) {
    // generate(): outputs.logits.slice(null, -1, null).to('float32') is a copy
    const logits = new hf.Tensor('float32', scores.slice(), [1, scores.length]);
    const next = processors([[0n]], logits);
    const logs = next[0];
    // MultinomialSampler.sample(logs)
    let k = logs.dims.at(-1);
    if (topK > 0) k = Math.min(topK, k);
    const [v, i] = await hf.topk(logs, k);
    const probabilities = hf.softmax(v.data);
    const sampledIndex = weightedIndex(probabilities);
    return Number(i.data[sampledIndex]);
  };
}
