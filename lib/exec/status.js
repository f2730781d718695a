'use strict';

// What msb-launch reports on its status descriptor (src/launcher/launcher_main.cc), read.
const { os } = require('../common/builtins');

function errnoName(errno) {
  const entry = Object.entries(os.constants.errno).find(([, n]) => n === errno);
  return entry ? entry[0] : `errno ${errno}`;
}

// Reads the launcher's status lines (see src/launcher/launcher_main.cc).
function parseStatus(text) {
  const status = { ok: null, error: null, execErrno: null, waitStatus: null, cgroup: null };
  for (const line of text.split('\n')) {
    const [kind, ...rest] = line.split(' ');
    if (kind === 'ok' && rest.length === 3) {
      const list = (s) => (s === '-' ? [] : s.split(','));
      status.ok = { landlockAbi: Number(rest[0]), layers: list(rest[1]), missing: list(rest[2]) };
    } else if (kind === 'error') {
      // "error <stage> [<syscall>] <errno>": the call's name where one failed.
      status.error = { stage: rest[0], syscall: rest.length > 2 ? rest[1] : undefined, errno: Number(rest[rest.length - 1]) };
    } else if (kind === 'exec') {
      status.execErrno = Number(rest[0]);
    } else if (kind === 'status') {
      status.waitStatus = Number(rest[0]);
    } else if (kind === 'cgroup' && rest.length > 0) {
      status.cgroup = rest.join(' '); // a host path: never shown to the command or the caller
    }
  }
  return status;
}

function signalName(number) {
  const entry = Object.entries(os.constants.signals).find(([, n]) => n === number);
  return entry ? entry[0] : `SIG${number}`;
}

// How the command ended: from the PID namespace's report, else from the launcher itself.
function outcome(status, code, signal) {
  if (status.waitStatus !== null) {
    const term = status.waitStatus & 0x7f;
    if (term === 0) return { exitCode: (status.waitStatus >> 8) & 0xff, signal: null };
    return { exitCode: -1, signal: signalName(term) };
  }
  return signal ? { exitCode: -1, signal } : { exitCode: code ?? -1, signal: null };
}

module.exports = { errnoName, parseStatus, signalName, outcome };
