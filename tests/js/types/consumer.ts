// A TypeScript consumer of softmax-wasm that uses every member of the public
// types correctly: it must type-check under --strict (tests/js/types.test.js).
import { load } from '../../../web/src/index.js';
import type {
  LoadOptions,
  LogSumExpOptions,
  MaskedPolicy,
  Sampler,
  SamplerLogprobs,
  SampleOptions,
  RowsOptions,
  TokenBitmask,
  DraftVerification,
  SamplerOptions,
  SamplerStep,
  Scores,
  Softmax,
  SoftmaxOptions,
  SoftmaxSteps,
  StepsOptions,
  TensorOptions,
} from '../../../web/src/index.js';

export async function main(): Promise<number> {
  const loadOpts: LoadOptions = { simd: 'auto' };
  const sm: Softmax = await load(loadOpts);
  await load();
  await load({ simd: true });
  await load({ simd: false, wasmBinary: new Uint8Array(8) });
  await load({ wasmBinary: new ArrayBuffer(8) });
  await load({ module: new WebAssembly.Module(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])) });
  await load({ locateFile: (name: string) => `/assets/${name}` });
  await load({ locateFile: (name) => new URL(name, 'https://example.com/') });

  const isSimd: boolean = sm.simd;

  const list: Scores = [2, 1, 0];
  const f32: Scores = new Float32Array([2, 1, 0]);
  const f64: Scores = new Float64Array([2, 1, 0]);

  const masked: MaskedPolicy = 'uniform';
  const tensor: TensorOptions = { temperature: 0.5, shape: [2, 3], axis: -1 };
  const opts: SoftmaxOptions = { ...tensor, out: new Float32Array(6), masked };
  const p1: Float32Array = sm.softmax(list);
  const p2: Float32Array = sm.softmax(f32, { temperature: 0 });
  const p3: Float32Array = sm.softmax(f64, { temperature: Infinity, masked: 'zeros' });
  const p4: Float32Array = sm.softmax([1, 2, 3, 4, 5, 6], opts);
  const shape = [2, 3] as const;
  const p5: Float32Array = sm.softmax([1, 2, 3, 4, 5, 6], { shape, axis: 0, masked: 'throw' });

  const l1: Float32Array = sm.logSoftmax(list, { temperature: 2, out: new Float32Array(3) });
  const l2: Float32Array = sm.logSoftmax(f32, { masked: 'nan' });

  const lse1: number = sm.logSumExp(list);
  const lse2: number = sm.logSumExp(f64, { temperature: 0.3, axis: -1 });
  const lseOpts: LogSumExpOptions = { shape: [2, 3], axis: 1, out: new Float32Array(2) };
  const lse3: number | Float32Array = sm.logSumExp([1, 2, 3, 4, 5, 6], { shape: [2, 3] });
  const lse4: number | Float32Array = sm.logSumExp([1, 2, 3, 4, 5, 6], { ...lseOpts, shape: [2, 3] });
  const lse5 = typeof lse3 === 'number' ? lse3 : lse3[0];

  const naive: Float32Array = sm.softmaxNaive([1000, 1001, 1002], { temperature: 1 });

  const stepsOpts: StepsOptions = { temperature: 1, masked: 'zeros' };
  const steps: SoftmaxSteps = sm.softmaxSteps([0.707, 0, 0.707], stepsOpts);
  const stepArrays: Float32Array[] = [steps.scaled, steps.shifted, steps.exps, steps.probs, steps.rawExps];
  const stepNumbers: number[] = [steps.max, steps.sum, steps.rawSum];

  const s: number = sm.sigmoid(2);
  const i: number = sm.argmax(list);
  const buf: Float32Array = sm.buffer(3);
  buf.set([2, 1, 0]);
  const inPlace: Float32Array = sm.softmax(buf, { out: buf });

  // the sampler (tested in tests/js/sampler*.test.js; here only its types)
  const steps2: SamplerStep[] = ['topK', 'temperature'];
  const samplerOpts: SamplerOptions = { seed: 42, temperature: 0.7, topK: 40, topP: 0.9, minP: 0.05, order: 'hf' };
  const sampler: Sampler = sm.createSampler(samplerOpts);
  sm.createSampler({ seed: 2n ** 63n, order: 'llama.cpp', logitBias: { 3: -Infinity }, history: [1, 2] });
  sm.createSampler({ order: steps2, logitBias: new Map([[1, 0.5]]), repetitionPenalty: 1.1, penaltyLastN: -1 });
  sm.createSampler();
  const seed: bigint = sampler.seed;
  const order: readonly SamplerStep[] = sampler.options.order;
  const disposed: boolean = sampler.disposed;
  const idx: number = sampler.sample(list);
  const many: Int32Array = sampler.sampleMany(f32, 10);
  const batch: Int32Array = sampler.sampleBatch([1, 2, 3, 4], [2, 2]);
  const dist: Float32Array = sampler.probs(f64);
  const lp: SamplerLogprobs = sampler.logprobs(list, 2);
  const lpParts: [Int32Array, Float32Array, Float32Array] = [lp.indices, lp.before, lp.after];
  sampler.accept(1);
  sampler.accept([1, 2]);
  sampler.accept(new Int32Array([3]));
  sampler.reset();
  sampler.reset(7);
  sampler.reset(7n);
  sampler.dispose();
  const one: number = sm.sample(list, { seed: 1, temperature: 0 });
  const oneMasked: number = sm.sample(list, { seed: 1, mask: new Uint32Array([1]) });
  // token masks and draft verification
  const mask: TokenBitmask = new Uint32Array(1);
  const maskOpts: SampleOptions = { mask };
  const bitmasked: Float32Array = sm.applyTokenBitmask(f32, mask);
  sm.applyTokenBitmask([1, 2], new Int32Array([1]));
  sampler.sample(list, maskOpts);
  sampler.probs(list, { mask: [mask] });
  sampler.sampleMany(f32, 3, { mask });
  sampler.probs(f32, { mask });
  sampler.logprobs(f32, 2, { mask });
  sampler.sampleBatch([1, 2, 3, 4], [2, 2], { mask: [mask, mask] });
  sampler.sampleBatch({ data: f32, dims: [1, f32.length] }, { mask: new Uint32Array(2) });
  const rowsOpts: RowsOptions = { mask: new Uint32Array(2) };
  const v: DraftVerification = sampler.verifyDraft([1], f32, f64, rowsOpts);
  const vParts: [number, Int32Array] = [v.accepted, sampler.verifyDraft(new Int32Array([0]), [0.5, 0.5], [0, 0, 0, 0]).tokens];
  void [seed, order, disposed, many, batch, dist, lpParts, bitmasked, vParts];

  return [idx, one, isSimd ? 1 : 0, p1[0], p2[0], p3[0], p4[0], p5[0], l1[0], l2[0], lse1, lse2, lse4 instanceof Float32Array ? 1 : 0, lse5, naive[0], stepArrays.length, stepNumbers[0], s, i, inPlace[0]].reduce((a, b) => a + b, 0);
}
