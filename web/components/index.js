// All the lesson widgets at once: <softmax-bars>, <softmax-exp>,
// <softmax-overflow>, <softmax-sampler>, <softmax-generate>,
// <softmax-sigmoid>, <softmax-attention>. Each file also works on its own.
// They share one loaded module (runtime.js).
export { configure, softmaxModule } from './runtime.js';
export { SoftmaxBars } from './softmax-bars.js';
export { SoftmaxExp } from './softmax-exp.js';
export { SoftmaxOverflow } from './softmax-overflow.js';
export { SoftmaxSampler } from './softmax-sampler.js';
export { SoftmaxGenerate } from './softmax-generate.js';
export { SoftmaxSigmoid } from './softmax-sigmoid.js';
export { SoftmaxAttention } from './softmax-attention.js';
