// Types of <softmax-sampler>: see index.d.ts.
export { SoftmaxSampler } from './index.js';
