'use strict';

// Ubuntu 23.10 and later let an unprivileged program create a user namespace only when an
// AppArmor profile with the `userns` rule covers it (kernel.apparmor_restrict_unprivileged_userns).
// Here: the profile that covers msb-launch (apparmor/msb-launch, shipped), whether the restriction
// applies to this process, and the sentence that tells a user what to run.
const { fs, os, path } = require('../common/builtins');

const PLACEHOLDER = '@MSB_LAUNCH_PATH@';
const PROFILE_FILE = '/etc/apparmor.d/msb-launch';
const SYSCTL = 'kernel.apparmor_restrict_unprivileged_userns';
const SYSCTL_FILE = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';
const COMMAND = 'npx mount-sandbox apparmor';
const LOAD_COMMANDS = [
  `${COMMAND} | sudo tee ${PROFILE_FILE}`,
  `sudo apparmor_parser -r ${PROFILE_FILE}`,
];

// Tests stand a directory in for / (the sysctl and /etc/apparmor.d), since this machine's kernel
// may have no AppArmor at all.
function hostFile(file) {
  const root = process.env.MOUNT_SANDBOX_TEST_HOST_ROOT;
  return root ? path.join(root, file) : file;
}

function readOrNull(file) {
  try {
    return fs.readFileSync(hostFile(file), 'utf8');
  } catch {
    return null;
  }
}

// true or false as the kernel says; null where it has no such setting (no AppArmor, not Ubuntu's).
function kernelRestrictsUserNamespaces() {
  const value = readOrNull(SYSCTL_FILE);
  return value === null ? null : value.trim() === '1';
}

// Root keeps CAP_SYS_ADMIN, which the restriction exempts.
function restrictsThisProcess() {
  return kernelRestrictsUserNamespaces() === true && process.geteuid?.() !== 0;
}

// An AppArmor path is a pattern: quoting admits spaces, and a backslash makes each pattern
// character (globs, alternations, variables' braces) and the quote itself literal.
function quotePath(file) {
  if (/[\x00-\x1f\x7f]/.test(file)) {
    throw new Error('the launcher path holds a control character, which an AppArmor profile cannot name');
  }
  return `"${file.replace(/[\\"*?[\]{}^,]/g, (c) => `\\${c}`)}"`;
}

// The profile for the launcher at `launcher`, an absolute path with symlinks resolved (AppArmor
// attaches to the file that is executed, by its real path). The template ships beside lib/; a
// bundled copy never gets here (it has no launcher), and may have no __dirname at all.
function profileFor(launcher) {
  const template = fs.readFileSync(path.join(__dirname, '..', '..', 'apparmor', 'msb-launch'), 'utf8');
  return template.split(PLACEHOLDER).join(quotePath(launcher));
}

// isSupported() never throws: a launcher that just vanished is named as it was found.
function realPath(file) {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

// Whether /etc/apparmor.d holds this package's profile for this launcher. Loading it cannot be
// checked without root, but the commands write and load it together, and boot loads the directory.
function profileInstalled(launcher) {
  const text = readOrNull(PROFILE_FILE);
  if (text === null) return false;
  try {
    return text.includes(`profile msb-launch ${quotePath(launcher)} `) && /^\s*userns,/m.test(text);
  } catch {
    return false;
  }
}

const RESTRICTION = `this kernel lets unprivileged programs create user namespaces only under an ` +
  `AppArmor profile that allows it (${SYSCTL} = 1)`;

// Why sandbox.exec() refuses here by default, or null when AppArmor is not in the way.
function execBlockedReason(launcher) {
  if (!restrictsThisProcess()) return null;
  if (launcher !== null && profileInstalled(realPath(launcher))) return null;
  return `${RESTRICTION}, and none allows the exec launcher msb-launch: run \`${COMMAND}\` for that ` +
    'profile and the two commands that load it';
}

const NAMESPACE_STAGES = ['namespaces-unavailable', 'namespaces-required'];

// Whether the launcher was refused its id maps by the restriction: after unshare(), too late for
// that launcher to go on without the namespace layer.
function refusedIdMaps(stage, errno) {
  const refused = errno === os.constants.errno.EPERM || errno === os.constants.errno.EACCES;
  return stage === 'namespaces' && refused && restrictsThisProcess();
}

// A launcher failure as the restriction explains it: { stage, hint }, where hint is the sentence
// to add to the refusal ('' when AppArmor is not why). Under Ubuntu's unprivileged_userns profile
// unshare() succeeds and writing the id maps fails with EPERM, reported as stage "namespaces":
// that is the restriction refusing the layer, so it reads as "namespaces-unavailable".
function appArmorNamespaceFailure(stage, errno) {
  if (refusedIdMaps(stage, errno)) return { stage: 'namespaces-unavailable', hint: hintSentence() };
  if (!NAMESPACE_STAGES.includes(stage) || !restrictsThisProcess()) return { stage, hint: '' };
  return { stage, hint: hintSentence() };
}

function hintSentence() {
  return ` Here ${RESTRICTION}: run \`${COMMAND}\` for a profile that allows the exec launcher ` +
    'msb-launch, and the two commands that load it.';
}

module.exports = {
  LOAD_COMMANDS,
  SYSCTL,
  kernelRestrictsUserNamespaces,
  profileFor,
  execBlockedReason,
  appArmorNamespaceFailure,
  refusedIdMaps,
};
