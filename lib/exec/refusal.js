'use strict';

// Why sandbox.exec() refuses to run with less than it was asked for, said once and worded for the
// door it was asked through: the library names its options (namespaces: "prefer",
// allowWeakerEnforcement), the command line its flags (--namespaces prefer, --allow-weaker). The
// error carries the library's wording; a door asks inTermsOf(error, door), or the error's
// messageIn(door), for its own.
const { ExecEnforcementError, ExecError } = require('../errors/from-codes');
const { namespaceSettingHint } = require('./host-settings');
const { appArmorNamespaceFailure } = require('./apparmor');
const { errnoName } = require('./status');

// What each door calls the ways to run with less.
const DOORS = {
  library: {
    namespaces: (mode) => `namespaces: "${mode}"`,
    weaker: 'Pass { allowWeakerEnforcement: true } to run with what this machine offers.',
    changes: (mode) => `changes: "${mode}"`,
    pass: 'Pass',
  },
  cli: {
    namespaces: (mode) => `--namespaces ${mode}`,
    weaker: 'Give --allow-weaker to run with what this machine offers.',
    changes: (mode) => `--changes ${mode}`,
    pass: 'Give',
  },
  mcp: {
    namespaces: (mode) => `mount-sandbox-mcp's --namespaces ${mode}`,
    weaker: 'Starting mount-sandbox-mcp with --allow-weaker runs commands with what this machine offers.',
    changes: (mode) => `changes: "${mode}"`,
    pass: 'Pass',
  },
};

const DOCTOR = '`npx mount-sandbox doctor` says what this machine allows and how to turn the rest on.';

// [sentence, missing layers] for each launcher stage that is a missing layer, in a door's words.
const STAGES = {
  'landlock-unavailable': () => [
    'Landlock is not available on this kernel, so the command cannot be confined', ['landlock-fs'],
  ],
  'namespaces-unavailable': (d) => [
    'unprivileged user namespaces are not available here. Without them read-only files can still ' +
      'be chmod-ed and touched, and processes can outlive the command (' +
      `${d.namespaces('prefer')} runs without them where the rest suffices)`,
    ['namespaces'],
  ],
  'private-proc-unavailable': () => [
    'a private /proc cannot be mounted here (the host /proc has masked paths, as in containers), ' +
      'and the host\'s would show every host process and its command line',
    ['private-proc'],
  ],
  'namespaces-required': (d) => [
    'the namespace layer is indispensable here (the command runs as root, or a read-only or ' +
      'delete-blocked mount lies inside a writable one), and it is unavailable on this kernel or ' +
      `${d.namespaces('off')} was given`,
    ['namespaces'],
  ],
  'network-filter-unavailable': (d) => [
    'a network allowlist needs a network namespace of the command\'s own, and it is unavailable ' +
      `on this kernel or ${d.namespaces('off')} was given (with weaker enforcement the command runs with ` +
      'no network at all)',
    ['network-namespace'],
  ],
};

const NAMESPACE_STAGES = new Set(['namespaces-unavailable', 'namespaces-required', 'network-filter-unavailable']);

// The error carries the library's message, and messageIn(door) for the others (not enumerable:
// no JSON of the error shows it). The MCP server, which sees only the package's entry, asks it.
function refusal(say, missing) {
  const error = new ExecEnforcementError(say(DOORS.library), missing);
  const messageIn = (door) => (Object.hasOwn(DOORS, door) ? say(DOORS[door]) : error.message);
  Object.defineProperty(error, 'messageIn', { value: messageIn, enumerable: false, writable: true, configurable: true });
  return error;
}

// The refusal for a launcher stage that is a missing layer; `hint` is the AppArmor sentence
// (lib/exec/apparmor.js) or ''. Where a sysctl keeps user namespaces off, the message names it.
function stageRefusal(stage, hint) {
  const setting = NAMESPACE_STAGES.has(stage) && hint === '' ? namespaceSettingHint() : '';
  const doctor = NAMESPACE_STAGES.has(stage) || stage === 'landlock-unavailable' ? ` ${DOCTOR}` : '';
  const missing = STAGES[stage](DOORS.library)[1];
  return refusal((d) => `Refusing to run: ${STAGES[stage](d)[0]}.${hint}${setting} ${d.weaker}${doctor}`, missing);
}

// The error for the launcher's "error <stage> <errno>" line: a missing layer (ExecEnforcementError,
// in every door's words) or another failure (ExecError).
function launchError(reportedStage, errno, cwd) {
  // Where AppArmor keeps the launcher from its namespaces (Ubuntu), the message says what to run.
  const { stage, hint } = appArmorNamespaceFailure(reportedStage, errno);
  if (Object.hasOwn(STAGES, stage)) return stageRefusal(stage, hint);
  const reason = errno ? ` (${errnoName(errno)})` : '';
  if (stage === 'cwd') return new ExecError(`cannot enter the working directory ${cwd}${reason}`, cwd, stage);
  if (stage === 'cwd-changed') {
    return new ExecError(`the working directory ${cwd} was replaced while the command was starting; refusing to run`, cwd, stage);
  }
  if (stage === 'root') {
    return new ExecError(`cannot build the command's root${reason}: a mount's target could not be made or a source changed; refusing to run`, undefined, stage);
  }
  if (stage === 'path-changed') {
    return new ExecError('a mount source of this sandbox was replaced on disk since the sandbox was made; refusing to run', undefined, stage);
  }
  if (stage === 'path') {
    return new ExecError(`a mount source of this sandbox cannot be opened${reason}: it was moved or removed since the sandbox was made; refusing to run`, undefined, stage);
  }
  return new ExecError(`the exec launcher failed at "${stage}"${reason}`, undefined, stage);
}

// A copy-on-write layer asked for by name that cannot be made here.
function layerRefusal(reason, mode) {
  return refusal((d) => `Refusing to run: ${d.changes(mode)} needs a copy-on-write layer, and ${reason}. ` +
    `${d.pass} ${d.changes('direct')} to let the command write to the host as it runs.`, ['copy-on-write']);
}

// Why exec refuses, as isSupported() and doctor say it: the refusal without "Refusing to run".
function refusalReason(error, door) {
  return inTermsOf(error, door).replace(/^Refusing to run: /, '');
}

// The error's message in a door's words ('library', 'cli', 'mcp'); its own message otherwise.
function inTermsOf(error, door) {
  const own = error !== null && typeof error === 'object' && Object.getOwnPropertyDescriptor(error, 'messageIn');
  return own && typeof own.value === 'function' ? own.value(door) : String(error?.message ?? error);
}

module.exports = { launchError, layerRefusal, inTermsOf, refusalReason, DOCTOR };
