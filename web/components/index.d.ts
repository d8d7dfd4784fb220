// Types of the lesson widgets (custom elements). Each widget module also has a
// .d.ts of its own that re-exports its class from here, and importing any of
// them types document.querySelector('softmax-bars') and friends.
import type { LoadOptions, SamplerOptions, Softmax, SoftmaxSteps } from '../src/index.js';

/** Options passed to load() by every widget of the page. Call before the first widget connects. */
export function configure(opts?: LoadOptions): void;
/** The module every widget of the page shares (one load()). */
export function softmaxModule(): Promise<Softmax>;

/** What every widget has: `ready`, `value`, `input` and `change` events, attribute errors and replaceable UI strings. */
export declare class SoftmaxWidget extends HTMLElement {
  /** Resolves with the element once the module has loaded and the widget has drawn itself; reading it starts the load. */
  readonly ready: Promise<this>;
  /** The UI strings in use (English defaults, then the `strings` attribute, then this property); set any subset by key. */
  get strings(): Record<string, string>;
  set strings(obj: Record<string, string>);
  /** The attribute error messages on show (each is also fired as an `error` event). */
  readonly errors: string[];
}

/** The detail of the `error` event a widget fires for an attribute it cannot accept. */
export interface SoftmaxWidgetErrorDetail {
  attribute: string;
  value: string | null;
  message: string;
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

/** <softmax-exp scores labels>: the curve e^z, each score a point on it, the heights stacked into one column. */
export declare class SoftmaxExp extends SoftmaxWidget {
  /** The probabilities. */
  get value(): Float32Array;
  /** e^z of each score (float32, before the division). */
  get exps(): Float32Array;
  /** The sum of the e^z. */
  get sum(): number;
  /** 2 to 6 finite scores within ±8. */
  get scores(): number[];
  set scores(list: ArrayLike<number>);
}

/** One written word of <softmax-generate> and the distribution it was drawn from. */
export interface SoftmaxGenerateStep {
  word: string;
  /** How many words of the vocabulary the filters left to draw from. */
  kept: number;
  /** The most likely next words: p as the sampler draws (temperature and filters applied), model at T = 1. */
  probs: { word: string; p: number; model: number }[];
}

/** <softmax-generate prompt tokens seed temperature top-k top-p min-p>: a small language model writes, one sampled word at a time. */
export declare class SoftmaxGenerate extends SoftmaxWidget {
  /** The text: the prompt and the written words. */
  get value(): string;
  /** The written words (without the prompt). */
  get words(): string[];
  /** Per written word, the distribution it was drawn from. */
  get steps(): SoftmaxGenerateStep[];
  /** The words to continue (up to 200 characters). */
  get prompt(): string;
  set prompt(t: string);
}

/** <softmax-overflow scores shift>: the textbook formula against the max trick. */
export declare class SoftmaxOverflow extends SoftmaxWidget {
  get value(): { naive: Float32Array; stable: Float32Array };
  get scores(): number[];
  set scores(list: ArrayLike<number>);
  get shift(): number;
  set shift(c: number);
  /** The shift above which the float32 sum of the e^z overflows, for these scores. */
  readonly breaksAbove: number;
  /** The shift below which the largest e^z is a subnormal float32 (fewer digits), for these scores. */
  readonly losesDigitsBelow: number;
  /** The shift below which every e^z underflows to 0 in float32, for these scores. */
  readonly breaksBelow: number;
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
    'softmax-exp': SoftmaxExp;
    'softmax-generate': SoftmaxGenerate;
    'softmax-overflow': SoftmaxOverflow;
    'softmax-sampler': SoftmaxSampler;
    'softmax-sigmoid': SoftmaxSigmoid;
    'softmax-attention': SoftmaxAttention;
  }
}
