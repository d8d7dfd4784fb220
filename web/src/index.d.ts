// Public types of softmax-wasm. Hand-written; the README's API table is checked
// against this file by tests/js/docs.test.js.

/** Scores (logits): any real numbers. -Infinity means masked. */
export type Scores = ArrayLike<number> & (number[] | Float32Array | Float64Array);

/** What a slice of only -Infinity entries becomes. Default 'nan', as PyTorch. */
export type MaskedPolicy = 'nan' | 'zeros' | 'uniform' | 'throw';

export interface TensorOptions {
  /** Divide every score by T first. 0 is the greedy limit, Infinity uniform. Default 1. */
  temperature?: number;
  /** Dimensions of an N-D tensor stored row-major in scores; their product must equal scores.length. */
  shape?: readonly number[];
  /** The axis to normalise along; negative counts from the end (PyTorch's dim). Default -1. */
  axis?: number;
}

export interface SoftmaxOptions extends TensorOptions {
  /** Write the result here (same length as scores) instead of allocating. */
  out?: Float32Array;
  /** What an all -Infinity slice becomes. Default 'nan'. */
  masked?: MaskedPolicy;
}

export interface LogSumExpOptions extends TensorOptions {
  /** For N-D scores: write one value per slice here. */
  out?: Float32Array;
}

export interface StepsOptions {
  temperature?: number;
  masked?: MaskedPolicy;
}

/** The stable softmax of a vector, one step at a time. */
export interface SoftmaxSteps {
  /** scores / T */
  scaled: Float32Array;
  /** max of scaled */
  max: number;
  /** scaled - max (the max trick): every entry <= 0 */
  shifted: Float32Array;
  /** exp(shifted): every entry in [0, 1] */
  exps: Float32Array;
  /** sum of exps */
  sum: number;
  /** exps / sum */
  probs: Float32Array;
  /** exp(scaled) without the max trick, as the textbook writes it (may overflow to Infinity) */
  rawExps: Float32Array;
  /** sum of rawExps */
  rawSum: number;
}

export interface LoadOptions {
  /** 'auto' (default): SIMD where WebAssembly.validate accepts it; false forces the baseline. */
  simd?: 'auto' | boolean;
  /** The .wasm bytes, for hosts that bundle them. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** An already compiled module (for example sent to a worker). */
  module?: WebAssembly.Module;
  /** Where to fetch a .wasm file from, given its name ('softmax-simd.wasm' or 'softmax-base.wasm'). */
  locateFile?: (name: string) => string | URL;
}

export interface Softmax {
  /** true when the SIMD128 build runs. */
  readonly simd: boolean;
  /** Probabilities: exp(x/T - max) / sum along an axis. Each slice sums to 1. */
  softmax(scores: Scores, opts?: SoftmaxOptions): Float32Array;
  /** log(softmax(x)), computed without taking the log of a rounded probability. */
  logSoftmax(scores: Scores, opts?: SoftmaxOptions): Float32Array;
  /** log(sum(exp(x/T))): a number for 1-D scores, one value per slice for N-D. */
  logSumExp(scores: Scores, opts?: Omit<LogSumExpOptions, 'shape' | 'out'>): number;
  logSumExp(scores: Scores, opts: LogSumExpOptions & { shape: readonly number[] }): number | Float32Array;
  /** The textbook formula exp(x)/sum(exp(x)) in float32, no max trick: [1000, 1001, 1002] gives NaN. */
  softmaxNaive(scores: Scores, opts?: SoftmaxOptions): Float32Array;
  /** Each step of the stable softmax of a vector, for lessons. */
  softmaxSteps(scores: Scores, opts?: StepsOptions): SoftmaxSteps;
  /** 1 / (1 + e^-z) in float32; equals softmax([z, 0])[0]. */
  sigmoid(z: number): number;
  /** The first index of the maximum. */
  argmax(scores: Scores): number;
  /**
   * A Float32Array of n elements in wasm memory. Fill it and pass it as scores
   * (and as `out`) to skip the copies in and out. Valid until the next buffer()
   * call or until wasm memory grows; an invalidated view is rejected.
   */
  buffer(n: number): Float32Array;
}

/** Loads the module (memoised: one compile per page and build). */
export function load(opts?: LoadOptions): Promise<Softmax>;
