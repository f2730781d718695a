// `mount-sandbox/errors` for resolvers that predate package.json "exports" (TypeScript's node10).
export * from './lib/sandbox-errors.js';
