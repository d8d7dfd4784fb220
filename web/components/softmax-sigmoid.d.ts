// Types of <softmax-sigmoid>: see index.d.ts.
export { SoftmaxSigmoid } from './index.js';
