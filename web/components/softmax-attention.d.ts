// Types of <softmax-attention>: see index.d.ts.
export { SoftmaxAttention } from './index.js';
