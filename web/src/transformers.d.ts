// Types of softmax-wasm/transformers, the logits processor for transformers.js's generate().
import type { SamplerOptions, Softmax } from './index.js';

/**
 * Logits as transformers.js hands them to a processor: a Tensor of dims
 * [batch, vocab] (or [batch, seq, vocab]). Its data must be a Float32Array or
 * a Float64Array at run time (a TypeError otherwise), and is changed in place.
 */
export interface TensorLike {
  readonly data: unknown;
  readonly dims: readonly number[];
}

/** Token ids so far, one row per batch entry, as generate() holds them. */
export type InputIds = ReadonlyArray<ReadonlyArray<bigint | number>>;

/**
 * A transformers.js logits processor: (input_ids, logits) => logits. It draws
 * one token per batch row with softmax-wasm's sampler and leaves only that
 * token (0, every other entry -Infinity), in place.
 */
export interface SoftmaxLogitsProcessor {
  <T extends TensorLike>(inputIds: InputIds, logits: T): T;
  /** The same function under the name transformers.js's LogitsProcessor type has, so that it type-checks as one. */
  _call<T extends TensorLike>(inputIds: InputIds, logits: T): T;
  /** Frees the samplers' wasm memory; later calls throw. */
  dispose(): void;
  [Symbol.dispose](): void;
}

/**
 * A logits processor for generate(): pass it as
 * `logits_processor: [createLogitsProcessor(sm, { seed: 42, topP: 0.9 })]` with `do_sample: false`.
 * `options` are createSampler()'s except `history`: batch row r gets its own
 * sampler seeded with seed + r, whose history is the row's input_ids (prompt
 * included); a row whose ids do not extend those it saw last starts again
 * from its seed.
 */
export function createLogitsProcessor(sm: Softmax, options?: Omit<SamplerOptions, 'history'>): SoftmaxLogitsProcessor;
