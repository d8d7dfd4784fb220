// Types of the lesson widgets (custom elements). Each widget module also has a
// .d.ts of its own that re-exports its class from here, and importing any of
// them types document.querySelector('softmax-bars') and friends.
import type { LoadOptions, SamplerOptions, Softmax, SoftmaxSteps } from '../src/index.js';

/** Options passed to load() by every widget of the page. Call before the first widget connects. */
export function configure(opts?: LoadOptions): void;
/** The module every widget of the page shares (one load()). */
export function softmaxModule(): Promise<Softmax>;

/** What every widget has: `ready`, `value`, and an `input` event on every change. */
export declare class SoftmaxWidget extends HTMLElement {
  /** Resolves with the element once the module has loaded and the widget has drawn itself. */
  readonly ready: Promise<this>;
}

/** <softmax-bars scores temperature labels steps>: scores to probability bars. */
export declare class SoftmaxBars extends SoftmaxWidget {
  /** The probabilities shown. */
  get value(): Float32Array;
  get scores(): number[];
  set scores(list: ArrayLike<number>);
  get temperature(): number;
  set temperature(t: number);
  /** The steps of the last computation (sm.softmaxSteps). */
  get steps(): SoftmaxSteps | null;
}

/** <softmax-overflow scores shift>: the textbook formula against the max trick. */
export declare class SoftmaxOverflow extends SoftmaxWidget {
  get value(): { naive: Float32Array; stable: Float32Array };
  get scores(): number[];
  set scores(list: ArrayLike<number>);
  get shift(): number;
  set shift(c: number);
}

/** <softmax-sampler scores temperature seed top-k top-p min-p labels>: seeded draws. */
export declare class SoftmaxSampler extends SoftmaxWidget {
  /** The last drawn index, or null before the first draw. */
  get value(): number | null;
  /** Every index drawn since the last reset. */
  get draws(): Int32Array;
  /** How often each index was drawn. */
  get counts(): number[];
  /** The distribution the sampler draws from. */
  get probs(): Float32Array;
  /** The options handed to sm.createSampler. */
  get samplerOptions(): SamplerOptions;
  get scores(): number[];
  set scores(list: ArrayLike<number>);
  /** Draws n tokens (default 1) as the buttons do; returns the indices. */
  draw(n?: number): number[];
  /** Forgets the draws and starts again from the seed. */
  reset(): void;
}

/** <softmax-sigmoid z>: two options against the S-curve. */
export declare class SoftmaxSigmoid extends SoftmaxWidget {
  /** sigmoid(z) */
  get value(): number;
  get z(): number;
  set z(v: number);
}

/** <softmax-attention tokens scores axis>: softmax along an axis of a score matrix. */
export declare class SoftmaxAttention extends SoftmaxWidget {
  /** The weights, one array per row. */
  get value(): number[][];
  get axis(): 'rows' | 'columns';
  set axis(a: 'rows' | 'columns');
}

declare global {
  interface HTMLElementTagNameMap {
    'softmax-bars': SoftmaxBars;
    'softmax-overflow': SoftmaxOverflow;
    'softmax-sampler': SoftmaxSampler;
    'softmax-sigmoid': SoftmaxSigmoid;
    'softmax-attention': SoftmaxAttention;
  }
}
