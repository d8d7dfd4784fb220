// Public types of softmax-wasm. Hand-written; the README's API table is checked
// against this file by tests/js/docs.test.js.

/**
 * A logits tensor as onnxruntime-web and transformers.js hand it over: data
 * row-major with its dimensions; float16 data as IEEE half bits in a
 * Uint16Array (type 'float16').
 */
export interface LogitsTensor {
  readonly data: Float32Array | Float64Array | Uint16Array;
  readonly dims: readonly number[];
  readonly type?: 'float32' | 'float16' | 'float64' | string;
}

/**
 * Scores (logits): any real numbers, read as float32. -Infinity means masked.
 * A tensor's dims act as `shape`; a sampler reads the last position of a
 * [batch, seq, vocab] tensor.
 */
export type Scores = readonly number[] | Float32Array | Float64Array | LogitsTensor;

/** Token ids as the runtimes hand them over. */
export type TokenIds = readonly (number | bigint)[] | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;

/**
 * The last position of each batch row of a [batch, seq, vocab] logits tensor,
 * as a [batch, vocab] tensor: a view of the tensor's data (no copy) when batch
 * is 1, a copy otherwise.
 */
export function lastPosition(tensor: LogitsTensor): LogitsTensor & { dims: [number, number] };

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

/**
 * The stable softmax of a vector, one step at a time. At T = 0, T = Infinity
 * and with +Infinity scores the steps show the limit that softmax takes
 * there (the top scores, or the +Infinity entries, share the mass), not the
 * literal formula: softmaxSteps([Infinity, 0]) has scaled [0, -Infinity].
 */
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
  /**
   * softmax's own output, exps / sum: under 256 entries exps * float(1 / sum)
   * (within 1 ulp); from 256 entries within 2.5 ulp of exps / sum at T = 1, and
   * within |shifted| * 2^-23 relative plus 3 ulp at T != 1 (softmax's tempered
   * path rounds (x - max) / T its own way)
   */
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

/**
 * The loaded module, as load() resolves it. A class at run time (`sm instanceof
 * Softmax`); only load() makes one.
 */
export declare class Softmax {
  private constructor();
}
export interface Softmax {
  /** true when the SIMD128 build runs. */
  readonly simd: boolean;
  /** Probabilities: exp(x/T - max) / sum along an axis. Each slice sums to 1. */
  softmax(scores: Scores, opts?: SoftmaxOptions): Float32Array;
  /** log(softmax(x)), computed without taking the log of a rounded probability. */
  logSoftmax(scores: Scores, opts?: SoftmaxOptions): Float32Array;
  /** log(sum(exp(x/T))): a number for 1-D scores, one value per slice for N-D. */
  logSumExp(scores: readonly number[] | Float32Array | Float64Array, opts?: Omit<LogSumExpOptions, 'shape' | 'out'>): number;
  /** A tensor with more than one dimension (a [1, vocab] logits tensor too) gives a Float32Array, one value per slice. */
  logSumExp(scores: LogitsTensor, opts?: Omit<LogSumExpOptions, 'shape'>): number | Float32Array;
  logSumExp(scores: Scores, opts: LogSumExpOptions & { shape: readonly number[] }): number | Float32Array;
  /** The textbook formula exp(x)/sum(exp(x)) in float32, no max trick: [1000, 1001, 1002] gives NaN. */
  softmaxNaive(scores: Scores, opts?: Omit<SoftmaxOptions, 'masked'>): Float32Array;
  /** Each step of the stable softmax of a vector, for lessons. */
  softmaxSteps(scores: Scores, opts?: StepsOptions): SoftmaxSteps;
  /** 1 / (1 + e^-z) in float32; equals softmax([z, 0])[0]. */
  sigmoid(z: number): number;
  /** The first index of the maximum. */
  argmax(scores: Scores): number;
  /**
   * In place: each entry the token bitmask forbids becomes -Infinity (bit
   * i & 31 of mask[i >> 5] allows token i; a tensor's rows each get the mask;
   * float16 half bits become 0xFC00). A mask that allows nothing masks every
   * entry. Returns scores.
   */
  applyTokenBitmask<T extends Scores>(scores: T, mask: TokenBitmask | readonly [TokenBitmask]): T;
  /**
   * A Float32Array of n elements in wasm memory. Fill it and pass it as scores
   * (and as `out`) to skip the copies in and out. Valid until the next buffer()
   * call or until wasm memory grows; an invalidated view is rejected.
   */
  buffer(n: number): Float32Array;
  /** A seeded sampler: see SamplerOptions for the filters and their order. */
  createSampler(opts?: SamplerOptions): Sampler;
  /** One index drawn by a throwaway sampler: createSampler(opts).sample(scores, { mask: opts.mask }), then disposed. */
  sample(scores: Scores, opts?: SamplerOptions & SampleOptions): number;
  /** The last position of each batch row of a logits tensor (the same as the package's lastPosition export). */
  lastPosition(tensor: LogitsTensor): LogitsTensor & { dims: [number, number] };
  /** How many samplers of this module are alive (not yet disposed or collected). */
  readonly liveSamplers: number;
}

/** Loads the module (memoised: one compile per page and build). */
export function load(opts?: LoadOptions): Promise<Softmax>;

// ---- Sampler (createSampler) -------------------------------------------------

/** A step of the sampling chain. */
export type SamplerStep =
  | 'temperature'
  | 'topK'
  | 'topP'
  | 'minP'
  | 'typicalP'
  | 'topNSigma'
  | 'xtc'
  | 'mirostat'
  | 'dynatemp'
  | 'epsilonCutoff'
  | 'etaCutoff'
  | 'dry'
  | 'noRepeatNgram';

/**
 * Options of createSampler. Defaults leave every filter off. Per call: scores
 * -> + logitBias -> penalties over the last penaltyLastN tokens of the history
 * -> the steps of `order` -> a draw by inverse CDF. Candidates are ordered by
 * decreasing score, ties by lower index.
 */
export interface SamplerOptions {
  /** The PRNG seed (PCG32): a non-negative safe integer or a BigInt < 2^64. Default: from crypto.getRandomValues. */
  seed?: number | bigint;
  /** Divides the scores. 0 = greedy (the first maximum), Infinity = uniform over the kept entries. Default 1. */
  temperature?: number;
  /** Keep the k most likely (ties by lower index); 0 = off (default). */
  topK?: number;
  /** Keep the smallest set of most likely entries whose mass reaches p, the crossing entry included; in (0, 1], 1 = off (default). */
  topP?: number;
  /** Keep p_i >= minP * p_max; in [0, 1], 0 = off (default). */
  minP?: number;
  /** Typical sampling (HF TypicalLogitsWarper): mass in (0, 1], 1 = off (default). */
  typicalP?: number;
  /** Every filter keeps at least this many entries. Default 1. */
  minKeep?: number;
  /** index -> additive bias; -Infinity bans the entry. Applied first. */
  logitBias?: Record<number, number> | Map<number, number>;
  /** llama.cpp / CTRL: a positive score of a recent token is divided by it, a negative one multiplied. > 0; default 1 (off). */
  repetitionPenalty?: number;
  /** OpenAI: score -= count * frequencyPenalty for recent tokens. Default 0. */
  frequencyPenalty?: number;
  /** OpenAI: score -= presencePenalty for each recent token. Default 0. */
  presencePenalty?: number;
  /** How many of the last tokens the penalties read: -1 = all, 0 = none. Default 64. */
  penaltyLastN?: number;
  /** Initial token history for the penalties, DRY and no-repeat n-gram (accept() appends to it). */
  history?: TokenIds;
  /** llama.cpp top-n-sigma: keep scores >= max - n * std over the candidates (population std). >= 0, finite; 0 = off (default). Step 'topNSigma'. */
  topNSigma?: number;
  /**
   * llama.cpp XTC: with this probability per call (a coin from the sampler's own
   * PCG32 stream 55, seeded with `seed`), drop every entry above the least likely
   * one whose probability reaches xtcThreshold (if two or more reach it and
   * minKeep remain). [0, 1]; 0 = off (default). Step 'xtc'.
   */
  xtcProbability?: number;
  /** XTC's threshold, [0, 1]; above 0.5 XTC removes nothing. Default 0.1 (llama.cpp's). */
  xtcThreshold?: number;
  /**
   * llama.cpp mirostat: 1 (v1, m = 100) or 2 (v2); 0 = off (default). State mu
   * starts at 2 * mirostatTau, moves after every draw by -mirostatEta *
   * (-log2 p(drawn) - mirostatTau); reset() restores it. Step 'mirostat'.
   */
  mirostat?: 0 | 1 | 2;
  /** Mirostat's target surprise tau, >= 0, finite. Default 5. */
  mirostatTau?: number;
  /** Mirostat's learning rate eta, >= 0, finite. Default 0.1. */
  mirostatEta?: number;
  /**
   * llama.cpp dynamic temperature (dynatemp_range): T' = lo + (hi - lo) *
   * (H / log m)^dynatempExponent over the m candidates, lo = max(0, T - range),
   * hi = T + range; T' = 0 is greedy. >= 0, finite; 0 = off (default). Needs a
   * finite temperature; while on, the 'temperature' step does nothing. Step 'dynatemp'.
   */
  dynatempRange?: number;
  /** llama.cpp dynatemp_exponent, >= 0, finite. Default 1. */
  dynatempExponent?: number;
  /** HF EpsilonLogitsWarper: drop p < epsilonCutoff (keeping minKeep). [0, 1); 0 = off (default). Step 'epsilonCutoff'. */
  epsilonCutoff?: number;
  /** HF EtaLogitsWarper: drop p < min(eta, sqrt(eta) * exp(-entropy)) (keeping minKeep). [0, 1); 0 = off (default). Step 'etaCutoff'. */
  etaCutoff?: number;
  /**
   * llama.cpp DRY over the accepted history: a token that would extend a repeat
   * of length L >= dryAllowedLength loses dryMultiplier * dryBase^(L - dryAllowedLength).
   * >= 0, finite in float32; 0 = off (default). Step 'dry'.
   */
  dryMultiplier?: number;
  /** DRY's base, >= 1, finite in float32. Default 1.75. */
  dryBase?: number;
  /** DRY's allowed length, an integer >= 0. Default 2. */
  dryAllowedLength?: number;
  /** How many of the last tokens DRY reads: -1 = all (default), 0 = off. */
  dryPenaltyLastN?: number;
  /** Token ids that end a repeat (llama.cpp's sequence breakers, here as single tokens); never penalised. Default none. */
  drySequenceBreakers?: TokenIds;
  /**
   * HF no_repeat_ngram_size: ban every token that would complete an n-gram
   * already in the history (a hard ban: minKeep does not undo it; all banned
   * throws). An integer >= 0; 0 = off (default). Step 'noRepeatNgram'.
   */
  noRepeatNgramSize?: number;
  /**
   * The order of the steps: 'hf' (default: noRepeatNgram, dry, temperature,
   * dynatemp, topNSigma, topK, topP, minP, typicalP, epsilonCutoff, etaCutoff,
   * xtc, mirostat), 'llama.cpp' (noRepeatNgram, dry, topNSigma, topK, typicalP,
   * topP, minP, epsilonCutoff, etaCutoff, xtc, temperature, dynatemp, mirostat)
   * or a list of steps, each at most once, holding every enabled step.
   */
  order?: 'hf' | 'llama.cpp' | readonly SamplerStep[];
}

/**
 * A token bitmask as grammar engines (XGrammar, llguidance) produce it: ceil(vocab / 32)
 * words (more are ignored), token i allowed when bit (i & 31) of word (i >> 5) is set.
 */
export type TokenBitmask = Uint32Array | Int32Array;

/** Options of one sampler call. */
export interface SampleOptions {
  /**
   * Forbidden tokens are removed before logitBias, the penalties and every step; minKeep cannot bring them back.
   * A list holding one mask (the form sampleBatch takes for one row) is accepted too.
   */
  mask?: TokenBitmask | readonly [TokenBitmask];
}

/** Options of sampleBatch and verifyDraft: one mask per row (an array of masks, or one array of rows * ceil(vocab / 32) words). */
export interface RowsOptions {
  mask?: TokenBitmask | readonly TokenBitmask[];
}

/** What verifyDraft emits. */
export interface DraftVerification {
  /** How many draft tokens were accepted (0..k). */
  accepted: number;
  /** accepted + 1 tokens: the accepted draft tokens, then a correction (or, if all k were accepted, a bonus token). */
  tokens: Int32Array;
}

/** Log-probabilities of the k most likely entries (after logitBias and penalties, at T = 1). */
export interface SamplerLogprobs {
  /** The entries, most likely first (ties by lower index). */
  indices: Int32Array;
  /** Their log-probabilities before temperature and the filters. */
  before: Float32Array;
  /** Their log-probabilities in the distribution sample() draws from; -Infinity where a filter removed them. */
  after: Float32Array;
}

/** A class at run time (`s instanceof Sampler`); only createSampler() makes one. */
export declare class Sampler {
  private constructor();
}
/** A seeded sampler that owns its PCG32 stream. Same seed, same scores: same indices on every platform and build. */
export interface Sampler {
  /** The seed in use (the one given, or the random one drawn). */
  readonly seed: bigint;
  /** The options in use, defaults filled in. */
  readonly options: Readonly<
    Omit<SamplerOptions, 'seed' | 'logitBias' | 'history' | 'order' | 'drySequenceBreakers'> & {
      order: readonly SamplerStep[];
      drySequenceBreakers: readonly number[];
    }
  >;
  /** Mirostat's state mu: 2 * mirostatTau after creation and reset(), updated after every draw. */
  readonly mirostatMu: number;
  /** true after dispose(). */
  readonly disposed: boolean;
  /** One index drawn from probs(scores). */
  sample(scores: Scores, opts?: SampleOptions): number;
  /** n independent draws from the same distribution (computed once). */
  sampleMany(scores: Scores, n: number, opts?: SampleOptions): Int32Array;
  /**
   * One index per row, rows in order: scores holds [rows, vocab] row-major
   * (give shape), or is a [batch, vocab] or [batch, seq, vocab] tensor (each
   * row's last position; no shape).
   */
  sampleBatch(scores: Scores, shape?: readonly [number, number], opts?: RowsOptions): Int32Array;
  sampleBatch(scores: LogitsTensor, opts?: RowsOptions): Int32Array;
  /** The distribution sample() draws from, after every filter; 0 for removed entries. */
  probs(scores: Scores, opts?: SampleOptions): Float32Array;
  /** The min(k, n) most likely entries with their log-probabilities before and after the filters. */
  logprobs(scores: Scores, k: number, opts?: SampleOptions): SamplerLogprobs;
  /**
   * Speculative sampling (Leviathan et al. 2023, Chen et al. 2023): draftTokens
   * (k) drawn from draftProbs (k x vocab), checked against targetLogits
   * ((k + 1) x vocab, or a [1, seq, vocab] tensor: its last k + 1 positions)
   * through this sampler's chain, with this sampler's stream. The emitted tokens
   * follow the target's distribution exactly. The history is not touched: call
   * accept(tokens) to record them.
   */
  verifyDraft(draftTokens: TokenIds, draftProbs: Scores, targetLogits: Scores, opts?: RowsOptions): DraftVerification;
  /** Appends token(s) to the history the penalties read. */
  accept(tokens: number | bigint | TokenIds): void;
  /** Forgets the history (the seed, the streams and mirostat's mu stay). */
  clearHistory(): void;
  /** Restarts the streams from seed (random when omitted), clears the history, restores mirostat's mu. */
  reset(seed?: number | bigint): void;
  /** Frees the wasm side; later calls throw. */
  dispose(): void;
  /** The same as dispose(), for `using s = sm.createSampler(...)` (TypeScript >= 5.2). */
  [Symbol.dispose](): void;
}

declare global {
  interface SymbolConstructor {
    /** Symbol.dispose: in Node >= 18.18 and 20.4, and in TypeScript's lib esnext.disposable. */
    readonly dispose: unique symbol;
  }
}
