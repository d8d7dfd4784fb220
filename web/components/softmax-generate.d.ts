// Types of <softmax-generate>: see index.d.ts.
export { SoftmaxGenerate } from './index.js';
