'use strict';

// The CLI's one way into the library beyond its public entry: what the commands in lib/cli/ need
// that is not public API (lexical rule lookup, the trust checks for a config or worker file
// named by hand, the launcher's path, the AppArmor profile, exec's timeout bound, the network
// entries' grammar for --allow/--deny, exec's refusals in the CLI's words, what this machine allows exec). Kept out of
// the public surface because it is shaped by the CLI's output and may change with it; everything
// else the CLI uses goes through lib/index.js like any caller.
const ms = require('../index');
// Not part of the declared surface: lib/index.js defines it for this module only.
/** @typedef {import('../index').MountSandbox} Sandbox */
const internal = /** @type {{
  createWithTrustedFiles: (config: object, hostPaths: string[]) => Sandbox,
  createAsyncWithTrustedFiles: (config: object, hostPaths: string[]) => Promise<Sandbox>,
}} */ (/** @type {unknown} */ (ms));
const { rulesFor } = require('../errors/from-codes');
const { protectedFiles, addProtectedFiles } = require('../next-run/protected');
const {
  checkConfigsAbove, loadTrustedProgramConfig, nextRunFiles, loadTrustedWorkerFile,
} = require('../config/program');
const { launcherPath } = require('../exec/launcher');
const apparmor = require('../exec/apparmor');
const { inTermsOf } = require('../exec/refusal');
const { machineReport } = require('../exec/machine');
const { isWithin } = require('../common/paths');
const { MAX_TIMEOUT_MS } = require('../exec/options');
const { parseNetwork } = require('../network/policy');

// The sandbox a program config gives its commands (null: no file access), unable to change what
// the next run trusts; with a worker file, that worker's narrower view, once the file is shown to
// be one no command could have written. Sources are created only for `createSources` (exec, which
// must run with every mount as createSandboxFromConfig and the MCP server would give it); check and
// explain write nothing.
async function sandboxFor(config, workerFile, { createSources = false } = {}) {
  const programSandbox = ms.sandboxConfigFrom(config);
  const { existing: trusted, absent } = await nextRunFiles(config);
  const hostPaths = [...trusted, ...absent];
  const create = createSources ? internal.createAsyncWithTrustedFiles : internal.createWithTrustedFiles;
  const sandbox = programSandbox === null ? null : addProtectedFiles(await create(programSandbox, hostPaths), trusted, absent);
  if (workerFile === undefined) return { sandbox, worker: null };
  const worker = await loadTrustedWorkerFile(config, workerFile, trusted);
  return { sandbox: ms.sandboxForWorker(sandbox, worker), worker };
}

// The protected host path (a trusted file, or a directory of them) that holds `hostPath`, or
// null: what sandbox.exec() binds read-only for the commands it runs.
function protectionOf(sandbox, hostPath) {
  return protectedFiles(sandbox).find((file) => isWithin(hostPath, file)) ?? null;
}

module.exports = {
  sandboxFor, protectionOf, rulesFor, checkConfigsAbove, loadTrustedProgramConfig, launcherPath, apparmor, MAX_TIMEOUT_MS,
  parseNetwork, inTermsOf, machineReport,
};
