// Wrong uses of softmax-wasm: each line below must be a type error. tsc fails
// (an unused '@ts-expect-error' directive) if one of them stops being an error.
import { load } from '../../../web/src/index.js';

export async function misuse(): Promise<void> {
  const sm = await load();

  // @ts-expect-error scores: a string is not an array of numbers
  sm.softmax('abc');
  // @ts-expect-error scores: Int32Array is not accepted
  sm.softmax(new Int32Array(3));
  // @ts-expect-error scores: an array with a string in it
  sm.softmax([1, '2']);
  // @ts-expect-error scores are required
  sm.softmax();
  // @ts-expect-error an unknown option name
  sm.softmax([1], { temprature: 1 });
  // @ts-expect-error temperature is a number
  sm.softmax([1], { temperature: '1' });
  // @ts-expect-error masked is one of 'nan' | 'zeros' | 'uniform' | 'throw'
  sm.softmax([1], { masked: 'none' });
  // @ts-expect-error out is a Float32Array
  sm.softmax([1], { out: new Float64Array(1) });
  // @ts-expect-error shape is an array of numbers
  sm.logSoftmax([1], { shape: '1' });
  // @ts-expect-error axis is a number
  sm.softmaxNaive([1], { axis: '0' });
  // @ts-expect-error logSumExp of 1-D scores returns a number: no out
  sm.logSumExp([1, 2], { out: new Float32Array(1) });
  // @ts-expect-error logSumExp with a shape may return a Float32Array
  const n: number = sm.logSumExp([1, 2], { shape: [2] });
  // @ts-expect-error logSumExp has no masked option
  sm.logSumExp([1, 2], { masked: 'zeros' });
  // @ts-expect-error softmaxSteps has no shape option
  sm.softmaxSteps([1], { shape: [1] });
  // @ts-expect-error softmaxSteps returns an object, not an array
  const steps: Float32Array = sm.softmaxSteps([1]);
  // @ts-expect-error max is a number
  const max: string = sm.softmaxSteps([1]).max;
  // @ts-expect-error sigmoid takes a number
  sm.sigmoid('2');
  // @ts-expect-error argmax takes no options
  sm.argmax([1], {});
  // @ts-expect-error buffer takes a length
  sm.buffer('3');
  // @ts-expect-error simd is read-only
  sm.simd = false;
  // @ts-expect-error softmax returns a Float32Array, not number[]
  const arr: number[] = sm.softmax([1]);
  // @ts-expect-error simd is 'auto' | boolean
  await load({ simd: 'yes' });
  // @ts-expect-error an unknown load option
  await load({ bogus: 1 });
  // @ts-expect-error locateFile returns a string or URL
  await load({ locateFile: () => 5 });
  // @ts-expect-error createSampler: an unknown option
  sm.createSampler({ top_k: 40 });
  // @ts-expect-error createSampler: seed is a number or a bigint
  sm.createSampler({ seed: '42' });
  // @ts-expect-error createSampler: order is 'hf', 'llama.cpp' or a list of steps
  sm.createSampler({ order: 'vllm' });
  // @ts-expect-error sampleMany needs n
  sm.createSampler().sampleMany([1, 2]);
  // @ts-expect-error sample returns a number
  const drawn: Int32Array = sm.sample([1, 2]);
  // @ts-expect-error seed is read-only
  sm.createSampler().seed = 1n;
  // @ts-expect-error a token mask is a Uint32Array or an Int32Array
  sm.createSampler().sample([1, 2], { mask: [1] });
  // @ts-expect-error applyTokenBitmask needs a mask
  sm.applyTokenBitmask([1, 2]);
  // @ts-expect-error verifyDraft returns { accepted, tokens }
  const accepted: number = sm.createSampler().verifyDraft([1], [0.5, 0.5], [0, 0, 0, 0]);
  // @ts-expect-error verifyDraft needs the target's logits
  sm.createSampler().verifyDraft([1], [0.5, 0.5]);

  void [n, steps, max, arr, drawn, accepted];
}
