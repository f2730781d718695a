// Types of the ESM entry (lib/index.mjs): the same declarations as the CommonJS entry's.
export * from './index.js';
declare const cjs: typeof import('./index.js');
export default cjs;
