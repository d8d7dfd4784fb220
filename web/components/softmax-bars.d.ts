// Types of <softmax-bars>: see index.d.ts.
export { SoftmaxBars } from './index.js';
