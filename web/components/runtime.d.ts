// Types of the shared module loader: see index.d.ts.
export { configure, softmaxModule } from './index.js';
