// Types of softmax-wasm/transformers, the logits processor for transformers.js's generate().
import type { SamplerOptions, Softmax } from './index.js';

/** Logits as transformers.js hands them to a processor: a Tensor of dims [batch, vocab] (or [batch, seq, vocab]). */
export interface LogitsLike {
  data: Float32Array | Float64Array;
  dims: number[];
}

/**
 * A transformers.js logits processor: (input_ids, logits) => logits. It draws
 * one token per batch row with softmax-wasm's sampler and leaves only that
 * token (0, every other entry -Infinity), in place.
 */
export interface SoftmaxLogitsProcessor {
  <T extends LogitsLike>(inputIds: ReadonlyArray<ReadonlyArray<bigint | number>>, logits: T): T;
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
