// Types of <softmax-overflow>: see index.d.ts.
export { SoftmaxOverflow } from './index.js';
