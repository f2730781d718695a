// Types of the ESM errors entry (lib/sandbox-errors.mjs): the CommonJS entry's declarations.
export * from './sandbox-errors.js';
declare const cjs: typeof import('./sandbox-errors.js');
export default cjs;
