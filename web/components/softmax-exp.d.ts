// Types of <softmax-exp>: see index.d.ts.
export { SoftmaxExp } from './index.js';
