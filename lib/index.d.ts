// Public types of mount-sandbox. Names and shapes match golem-forge's sandbox-types.ts so its
// packages can re-export them.
//
// Every object passed in (configs, restrictions, zone requests, policies, options) is read as
// plain data: its own enumerable properties, each read once. Inherited properties are ignored,
// and a getter or setter is refused without being called: SandboxConfigError in a config given to
// createMountSandbox(Async), TypeError (a rejected promise from async methods) elsewhere, naming
// the key.
//
// The declarations are in lib/types/, a file per concern; this entry re-exports them all, with the
// error classes of `mount-sandbox/errors` (lib/sandbox-errors.d.ts).

export * from './sandbox-errors.js';
export * from './types/files.js';
export * from './types/config.js';
export * from './types/sandbox.js';
export * from './types/workers.js';
export * from './types/exec.js';
export * from './types/network.js';
export * from './types/search.js';
