'use strict';

// What this machine allows sandbox.exec(), as `mount-sandbox doctor` reports it: each layer, what
// it enables, what is lost without it and what turns it on. Nothing here decides on its own: the
// answers come from isSupported() (the launcher under exec's defaults, lib/exec/probe.js) and from
// real sandbox.exec() calls over a temp directory, whose enforcement says what was applied; the
// settings (lib/exec/host-settings.js, lib/exec/apparmor.js) only say why, and what to run.
const { fs, os, path } = require('../common/builtins');
const { namespaceSettings } = require('./host-settings');
const apparmor = require('./apparmor');
const { findLauncher } = require('../common/native');
const { launcherProbe } = require('./probe');
const { refusalReason, DOCTOR } = require('./refusal');

const MIB = 2 ** 20;

// What each check enables and what is lost without it, as docs/exec.md says it.
const CHECKS = {
  'user-namespaces': {
    name: 'unprivileged user namespaces',
    enables: 'the namespace layer: a root built for the command (the sandbox at /workspace, nothing else of the host), ' +
      'its own PID, mount, IPC and network namespaces; copy-on-write runs and the network judge need it',
    without: 'exec refuses by default (namespaces "require"); with namespaces "prefer" (--namespaces prefer) the ' +
      'command sees host paths, read-only files can still be chmod-ed and touched, processes can outlive it, and ' +
      'as root it refuses even then (unless weaker enforcement is allowed: --allow-weaker)',
  },
  apparmor: {
    name: 'AppArmor\'s user namespace restriction',
    enables: 'the exec launcher msb-launch may create user namespaces where the kernel restricts them to programs ' +
      'an AppArmor profile allows (Ubuntu 23.10 and later)',
    without: 'no user namespaces for a user other than root, as above',
  },
  landlock: {
    name: 'Landlock',
    enables: 'confines the command\'s file access to the sandbox\'s paths (required)',
    without: 'exec refuses every command unless weaker enforcement is allowed, and then files are not confined',
  },
  seccomp: {
    name: 'seccomp',
    enables: 'refuses io_uring, the mount API, the keyring calls and set-id bits, and without a network ' +
      'namespace of the command\'s own, sockets (required)',
    without: 'exec refuses every command unless weaker enforcement is allowed',
  },
  'memory-cgroup': {
    name: 'a delegated memory cgroup',
    enables: 'limits.memoryBytes bounds all of the command\'s memory (cgroup v2 memory.max, no swap)',
    without: 'memoryBytes bounds each process\'s private memory only; shared mappings and memfds are unbounded',
  },
  'copy-on-write': {
    name: 'copy-on-write runs',
    enables: 'the command writes to a layer (overlayfs in its user namespace); its changes land after it, ' +
      'each judged by the sandbox\'s rules, or held for review',
    without: 'commands write to the host as they run (changes "direct"): suffix and size policies and ask ' +
      'approvals do not bind them, and changes: "review" is refused',
  },
  'network-judge': {
    name: 'the network judge',
    enables: 'network allowlists by host name (network: { allow }, --allow): the command reaches only the ' +
      'destinations listed, through a judge in its own network namespace',
    without: 'an allowlist is refused (with weaker enforcement the command gets no network at all)',
  },
};

const SYSCTL_PERSIST = 'add the same setting to a file in /etc/sysctl.d/ to keep it after a reboot';

// How user namespaces are turned on here: the settings that keep them off, else the AppArmor
// profile where the restriction applies, else what is left to look at.
function namespacesOn(settings, restricted) {
  const blocking = settings.filter((s) => s.blocks);
  if (blocking.length > 0) return { commands: blocking.map((s) => s.command), note: SYSCTL_PERSIST };
  if (restricted) return { commands: apparmor.LOAD_COMMANDS, note: 'as root' };
  return {
    commands: [],
    note: 'no setting of this kernel keeps them off: a limit of an enclosing user namespace (its ' +
      'user.max_user_namespaces) or a container\'s seccomp profile does; run the container with one that ' +
      'allows unshare(CLONE_NEWUSER), or outside it',
  };
}

const TURN_ON = {
  landlock: {
    commands: [],
    note: 'a kernel 5.13 or later built with CONFIG_SECURITY_LANDLOCK=y and booted with landlock in its ' +
      'lsm= parameter (cat /sys/kernel/security/lsm lists the active modules); a container runtime\'s ' +
      'seccomp profile may also refuse its system calls',
  },
  seccomp: {
    commands: [],
    note: 'a kernel built with CONFIG_SECCOMP_FILTER=y; a container runtime may refuse nested filters',
  },
  'memory-cgroup': {
    commands: ['systemd-run --user --scope node app.js'],
    note: 'run as root, or start Node inside a cgroup v2 subtree delegated to you with the memory controller ' +
      '(systemd delegates one to each user\'s user@.service: the command above starts app.js there)',
  },
  'copy-on-write': {
    commands: [],
    note: 'user namespaces (above) and a kernel whose overlayfs may be mounted in one (5.11 or later)',
  },
  'network-judge': { commands: [], note: 'user namespaces (above)' },
};

// One exec over a temp directory; its enforcement, or the error it was refused with.
async function tryExec(sandbox, options) {
  try {
    const result = await sandbox.exec(['true'], { timeoutMs: 30_000, ...options });
    return { enforcement: result.enforcement };
  } catch (error) {
    return { error };
  }
}

function check(id, available, state, turnOn) {
  return {
    id, name: CHECKS[id].name, available, state, enables: CHECKS[id].enables, without: CHECKS[id].without,
    turnOn: available === false ? turnOn : null,
  };
}

const has = (run, layer) => (run.enforcement ? run.enforcement.layers.includes(layer) : null);

// isSupported().exec, its reason in the door's words where the launcher refused.
function execSupport(support, launcher, door) {
  if (support.exec.supported || launcher === null || apparmor.execBlockedReason(launcher) !== null) return support.exec;
  const { error } = launcherProbe(launcher);
  // Said by doctor itself: not "doctor says ...".
  return error === undefined ? support.exec : { supported: false, reason: refusalReason(error, door).replace(` ${DOCTOR}`, '') };
}

// The report: { supported, reason, exec: isSupported().exec, landlockAbi, checks: [...] }, its
// reasons in the words of `door` ('library', 'cli'). `ms` is the package's entry (lib/index.js),
// passed in: this module is below it.
async function machineReport(ms, door = 'library') {
  const support = ms.isSupported();
  const settings = namespaceSettings();
  const restricted = apparmor.kernelRestrictsUserNamespaces();
  const launcher = findLauncher();
  const appArmorBlocks = support.supported && launcher !== null && apparmor.execBlockedReason(launcher) !== null;
  const base = { supported: support.supported, reason: support.reason ?? null, exec: execSupport(support, launcher, door) };
  if (!support.supported || launcher === null) return { ...base, landlockAbi: null, checks: [] };
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'mount-sandbox-doctor-'));
  try {
    const sandbox = ms.createMountSandbox({ root: dir });
    const weaker = { namespaces: 'prefer', allowWeakerEnforcement: true };
    // Everything it can apply, a memory bound among them; then an allowlist, which needs the judge.
    const plain = await tryExec(sandbox, { ...weaker, limits: { memoryBytes: 256 * MIB } });
    const judged = await tryExec(sandbox, { ...weaker, network: { allow: ['localhost:1'] } });
    const missing = plain.enforcement ? plain.enforcement.missing : [];
    const settingsState = settings.filter((s) => s.value !== null).map((s) => `${s.name} = ${s.value}`).join(', ');
    const appArmorState = restricted === null ? `no ${apparmor.SYSCTL}`
      : `${apparmor.SYSCTL} = ${restricted ? 1 : 0}${restricted ? `, the package's profile ${appArmorBlocks ? 'not ' : ''}installed` : ''}`;
    const namespaces = has(plain, 'user-namespace');
    const abi = plain.enforcement ? plain.enforcement.landlockAbi : null;
    const checks = [
      check('user-namespaces', namespaces, settingsState || null, namespacesOn(settings, restricted && appArmorBlocks)),
      check('apparmor', restricted === true ? !appArmorBlocks : null, appArmorState,
        { commands: apparmor.LOAD_COMMANDS, note: 'as root; run them again when the package moves' }),
      check('landlock', has(plain, 'landlock-fs'), abi ? `ABI ${abi}` : null, TURN_ON.landlock),
      check('seccomp', has(plain, 'seccomp'), null, TURN_ON.seccomp),
      check('memory-cgroup', has(plain, 'memory-cgroup'), null, TURN_ON['memory-cgroup']),
      check('copy-on-write', plain.enforcement ? !missing.includes('copy-on-write') : null, null, TURN_ON['copy-on-write']),
      check('network-judge', judged.enforcement ? judged.enforcement.network === 'filtered' : null, null, TURN_ON['network-judge']),
    ];
    const failed = plain.error ? String(plain.error.message) : null;
    return { ...base, landlockAbi: abi, checks, ...(failed === null ? {} : { probeError: failed }) };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

module.exports = { machineReport };
