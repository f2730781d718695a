'use strict';

// What a command that execve refused is answered with: 127 and "Command not found" for ENOENT;
// for E2BIG, 126 and the command's size against the kernel's limit it passed, one argument's
// (MAX_ARG_STRLEN: a long `sh -c` script) or all arguments' and the environment's together
// (ARG_MAX); any other errno, 126 and "Permission denied", as a shell says it.
const { fs, os } = require('../common/builtins');
const { excerpt } = require('../common/display');

// The kernel's bound on one argument or variable, its NUL included: 32 pages of 4 KiB.
const MAX_ARG_STRLEN = 131072;

// ARG_MAX as the kernel applies it: a quarter of the stack's soft rlimit, never under
// MAX_ARG_STRLEN (what getconf ARG_MAX reports, read here without running a process). The
// launcher does not change the stack's rlimit, so the command has this one; 0 where the stack is
// unlimited or the limit cannot be read.
function systemArgMax() {
  try {
    const stack = /^Max stack size\s+(\S+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    const bytes = stack === null ? NaN : Number(stack[1]);
    return Number.isSafeInteger(bytes) ? Math.max(Math.floor(bytes / 4), MAX_ARG_STRLEN) : 0;
  } catch {
    return 0;
  }
}

const HOW = 'Write the long part to a file and run that, or pass it on stdin.';

function tooLong(argv, env) {
  const longest = argv.reduce((a, s) => (Buffer.byteLength(s) > Buffer.byteLength(a) ? s : a), '');
  const one = Buffer.byteLength(longest);
  if (one + 1 > MAX_ARG_STRLEN) {
    return `The command is too long (one argument is ${one} bytes; the limit for one argument is ${MAX_ARG_STRLEN} bytes, ` +
      `MAX_ARG_STRLEN). ${HOW}`;
  }
  // The strings with their NULs, and a pointer to each, as execve lays them on the new stack.
  const strings = [...argv, ...env];
  const total = strings.reduce((n, s) => n + Buffer.byteLength(s) + 1 + 8, 0);
  const limit = systemArgMax();
  const against = limit > 0 ? `the limit is ${limit} bytes, ARG_MAX` : 'over the system\'s ARG_MAX';
  return `The command is too long (${total} bytes with its environment; ${against}). ${HOW}`;
}

/**
 * @param {number} errno what execve failed with
 * @param {string[]} argv the command
 * @param {string[]} env its environment, as "NAME=value"
 * @returns {{ exitCode: number, stderr: string }}
 */
function launchFailure(errno, argv, env) {
  const { ENOENT, E2BIG } = os.constants.errno;
  if (errno === ENOENT) return { exitCode: 127, stderr: `Command not found: ${excerpt(argv[0])}` };
  if (errno === E2BIG) return { exitCode: 126, stderr: tooLong(argv, env) };
  return { exitCode: 126, stderr: `Permission denied: ${excerpt(argv[0])}` };
}

module.exports = { launchFailure, MAX_ARG_STRLEN };
