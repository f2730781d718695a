'use strict';

// The program config a command line names, and the sandbox it (or a worker file) gives: what check,
// explain and exec all start from, with the trust checks a file named by hand needs.
const path = require('path');
const fs = require('fs');
const ms = require('../index.js');
const { sandboxFor, loadTrustedProgramConfig } = require('./support.js');
const { UsageError, Refusal } = require('./args.js');

async function loadConfig(where) {
  const target = path.resolve(where || '.');
  const stat = fs.existsSync(target) ? fs.statSync(target) : null;
  if (stat && !stat.isDirectory()) {
    // The file named is used even with other config names beside it, but not from a place a
    // config above lets a sandbox write: a script's "--config golem-forge.config.yaml" run in a
    // directory a command made would otherwise read what that command planted. Anything but a
    // directory is taken as the file meant, and refused if it is not one (a FIFO, a device).
    return loadTrustedProgramConfig(target);
  }
  if (!stat) throw new UsageError(`${target} does not exist`);
  const config = await ms.findProgramConfig(target);
  if (!config) {
    throw new UsageError(`no ${ms.CONFIG_FILE_NAMES.join(' / ')} found in ${target} or above`);
  }
  return config;
}

// The config's sandbox, whose commands cannot change what the next run trusts; with --worker,
// the worker's narrower one, from a worker file no command could have written. explain and exec
// answer for this same sandbox.
async function sandboxOf(args, options) {
  const config = await loadConfig(args.options['--config']);
  const workerFile = args.options['--worker'];
  if (workerFile !== undefined) {
    if (!fs.existsSync(workerFile)) throw new UsageError(`${path.resolve(workerFile)} does not exist`);
    // Reading a FIFO would wait for a writer forever (a directory is refused as the read fails).
    const stat = fs.statSync(workerFile);
    if (!stat.isFile() && !stat.isDirectory()) {
      throw new Refusal('NOT_REGULAR_FILE', `${path.resolve(workerFile)} is not a regular file`);
    }
  }
  return { config, ...(await sandboxFor(config, workerFile, options)) };
}

module.exports = { loadConfig, sandboxOf };
