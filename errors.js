'use strict';

// `mount-sandbox/errors` for resolvers that predate package.json "exports" (TypeScript's node10).
module.exports = require('./lib/sandbox-errors.js');
