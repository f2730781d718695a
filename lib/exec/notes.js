'use strict';

// The notes sandbox.exec() appends to a failed command's stderr, so that a model reading it learns
// why: the network is off, it wrote where the sandbox does not let it (naming the read-only place
// it wrote under, when the error names the path), or it used a file-tool path (/src/app.ts) that
// lies under the workspace inside commands; a file protected by a bind (EBUSY) or a write the
// host's permissions refused, not the sandbox, is said to be so. Notes name paths as the command
// sees them, never host paths.
const { fs, path } = require('../common/builtins');
const { viewPath, SYSTEM_PATHS } = require('./view');
const { virtualPathOf } = require('../next-run/watch');
const { isWithin } = require('../common/paths');

const PERMISSION_PATTERN = /Permission denied|Operation not permitted|Read-only file system|\bE(?:ACCES|PERM|ROFS)\b/;
// Socket calls refused with the network off: "connect EACCES" (Node), "socket: Permission
// denied" (curl, Python), failed name lookups (no UDP for DNS).
const NETWORK_PATTERN =
  /Network is unreachable|\bENETUNREACH\b|\bEAI_AGAIN\b|name resolution|Could not resolve|Name or service not known|getaddrinfo|Couldn't connect to server|\b(?:connect|socket|bind|listen|send|sendto)(?:\(\))?:? (?:Permission denied|EACCES)\b/i;

// Where the command finds a virtual path: in its root (`view`), or on the host where the launcher
// could not build one (namespaces off); with the way there from its working directory.
function shownPath(sandbox, virtual, cwd, view) {
  const shown = view ? viewPath(view.workspace, virtual) : sandbox.resolve(virtual);
  if (typeof shown !== 'string') return virtual;
  const from = view ? view.cwd : cwd.host;
  const rel = path.relative(from, shown) || '.';
  const way = rel.startsWith('..') ? rel : `./${rel}`.replace(/^\.\/\.$/, '.');
  return view ? `${shown} (${way} from the working directory)` : `${virtual} (${way} from the working directory)`;
}

// The read-only mounts inside a writable place: a note that named only the writable place would
// send the command back to write where it was just refused.
function readOnlyInside(sandbox, writable) {
  const closed = (m) => m.readonly || m.approval.write === 'blocked';
  return sandbox.describe().mounts
    .filter((m) => closed(m) && writable.some((p) => p !== m.target && isWithin(m.target, p)))
    .map((m) => m.target)
    .sort();
}

function writableNote(sandbox, cwd, view) {
  const writable = sandbox.writablePaths();
  const places = writable.map((p) => shownPath(sandbox, p, cwd, view));
  const where = view ? `the sandbox is at ${view.workspace}, ` : '';
  const tmp = view ? '/tmp' : 'its temporary directory ($TMPDIR)';
  if (places.length === 0) {
    return `Note: this command runs in a read-only sandbox: ${where}it can read only the sandbox and system directories, and write only to ${tmp}.`;
  }
  const closed = readOnlyInside(sandbox, writable).map((p) => shownPath(sandbox, p, cwd, view));
  const except = closed.length === 0 ? '' : `, but not to ${closed.join(', ')}, which ${closed.length === 1 ? 'is' : 'are'} read-only`;
  return `Note: this command runs in a sandbox: ${where}it can read only the sandbox and system directories, and write only to ${places.join(', ')} and ${tmp}${except}.`;
}

// In its own network namespace the command's 127.0.0.1 is its own: the host's services refuse.
const REFUSED_PATTERN = /\bECONNREFUSED\b|Connection refused/;
// Refusals that name no call, without a network namespace (Landlock, or seccomp refusing
// socket()): wget's "failed: Permission denied." after "Connecting to ...", and Python's
// PermissionError without a file name raised in socket.py (a file error names its file).
const WGET_REFUSED = /^failed: Permission denied\.$/;
const PYTHON_BARE_REFUSAL = /^PermissionError: \[Errno 13\] Permission denied$/;
const PYTHON_SOCKET_FRAME = /File "[^"]*\/socket\.py", line \d+/;
const NETWORK_NOTE = 'Note: Network access is disabled for this worker.';

// With an allowlist and no refusal of the judge's to name (those have their own note), the
// command went where no route leads: an address dialled directly, a port the judge does not serve.
function networkNote(context) {
  if (context.network === 'off') return NETWORK_NOTE;
  if (context.refusals > 0) return null;
  const allowed = context.allowed.length === 0 ? 'no destination' : context.allowed.join(', ');
  return `Note: this command's network reaches only ${allowed}, by name (through HTTP_PROXY, or ports 80 and 443 ` +
    'and the ports the entries name); addresses dialled directly and other destinations are unreachable.';
}
const MAX_PATH_NOTES = 5;

// Paths an error line names: quoted ones ('x', ‘x’, "x"), the one before ": Permission denied"
// and its like (sh, bash), and unquoted absolute ones.
const QUOTED = /'([^'\n]+)'|‘([^’\n]+)’|"([^"\n]+)"/g;
const BEFORE_REFUSAL = /(?:^|\s)([^\s:'"‘’]+): (?:Permission denied|Operation not permitted|Read-only file system)/g;
const ABSOLUTE = /(?:^|[\s=(\[,:])(\/[^\s'"‘’:,()[\]]+)/g;

function pathsNamed(line) {
  const found = [];
  for (const pattern of [QUOTED, BEFORE_REFUSAL, ABSOLUTE]) {
    for (const match of line.matchAll(pattern)) {
      const text = match.slice(1).find((g) => g !== undefined).replace(/[.;]+$/, '');
      if (text !== '' && !found.includes(text)) found.push(text);
    }
  }
  return found;
}

// The virtual path a path named by the command means, or null: resolved from its working
// directory, in its root (under the workspace) or, without one, on the host.
function virtualOfNamed(named, cwd, view, mounts) {
  if (view) {
    const seen = path.posix.resolve(view.cwd, named);
    if (!isWithin(seen, view.workspace)) return null;
    return seen === view.workspace ? '/' : seen.slice(view.workspace === '/' ? 0 : view.workspace.length);
  }
  return virtualPathOf(path.resolve(cwd.host, named), mounts);
}

// A refused path under a read-only place inside a writable one (a read-only mount, the program
// config, a worker directory, git's control files): the note names that place, since the general
// note would send the command back to write where it was just refused.
function readOnlyNotes(lines, sandbox, cwd, view, context) {
  const writable = sandbox.writablePaths();
  if (writable.length === 0) return []; // a read-only sandbox: the general note says so
  const places = [...readOnlyInside(sandbox, writable), ...context.readOnly];
  const elsewhere = `Write elsewhere: to ${writable.map((p) => shownPath(sandbox, p, cwd, view)).join(', ')} or ${view ? '/tmp' : 'its temporary directory ($TMPDIR)'}.`;
  const notes = [];
  const named = new Set();
  for (const line of lines) {
    for (const text of pathsNamed(line)) {
      const virtual = virtualOfNamed(text, cwd, view, context.mounts);
      if (virtual === null || named.has(virtual) || notes.length >= MAX_PATH_NOTES) continue;
      const place = places.filter((p) => isWithin(virtual, p)).sort((a, b) => b.length - a.length)[0];
      if (place === undefined) continue;
      named.add(virtual);
      const shown = view ? viewPath(view.workspace, virtual) : virtual;
      const why = place === virtual
        ? 'commands cannot change it'
        : `it lies under ${shownPath(sandbox, place, cwd, view)}, which commands cannot change`;
      notes.push(`Note: ${shown} is read-only in this sandbox: ${why}. ${elsewhere}`);
    }
  }
  return notes;
}

// Replacing a file bound read-only in place (rename over it, as git config and sed -i do) fails
// with EBUSY rather than EROFS: the note says the file is protected, and why.
const BUSY_PATTERN = /Device or resource busy|\bEBUSY\b/;
const IN_GIT = /(?:^|\/)\.git(?:\/|$)/;
// git's "could not write config file .git/config: Device or resource busy" names it unquoted.
const BEFORE_BUSY = /(?:^|\s)([^\s:'"‘’]+): (?:Device or resource busy)/g;
const busyPathsNamed = (line) => [...new Set([...pathsNamed(line), ...[...line.matchAll(BEFORE_BUSY)].map((m) => m[1])])];

function busyNotes(lines, sandbox, cwd, view, context) {
  const notes = [];
  for (const line of lines.filter((l) => BUSY_PATTERN.test(l))) {
    for (const text of busyPathsNamed(line)) {
      const virtual = virtualOfNamed(text, cwd, view, context.mounts);
      if (virtual === null || notes.length >= MAX_PATH_NOTES || !context.readOnly.some((p) => isWithin(virtual, p))) continue;
      const shown = view ? viewPath(view.workspace, virtual) : virtual;
      if (notes.some((n) => n.startsWith(`Note: ${shown} `))) continue;
      const why = IN_GIT.test(virtual)
        ? 'The host\'s git reads it when the user next runs git there, and what a command wrote in it could make git run a program'
        : 'The host or the next run trusts it (the sandbox\'s config or workers, or a file a tool runs)';
      notes.push(`Note: ${shown} is protected in this sandbox: it is bound read-only in place, so replacing it ` +
        `(a new file renamed over it, as git config and sed -i do) fails with "Device or resource busy". ${why}, so ` +
        'no command may change it; leave it as it is.');
    }
  }
  return notes;
}

// The nearest host path at or above `host` that exists (what a create is checked against).
function nearestExisting(host, source) {
  for (let at = host; isWithin(at, source); at = path.dirname(at)) {
    if (fs.existsSync(at)) return at;
    if (at === source) break;
  }
  return null;
}

function writableByUs(file) {
  try {
    fs.accessSync(file, fs.constants.W_OK);
    return true;
  } catch (error) {
    return error.code !== 'EACCES';
  }
}

// A refused write where the sandbox allows writing: the host's permissions refused it (files of
// another owner, or a mode without write), which the general note would misreport as the sandbox.
function ownerNotes(lines, sandbox, cwd, view, context) {
  const writable = sandbox.writablePaths();
  const closed = [...readOnlyInside(sandbox, writable), ...context.readOnly];
  const notes = [];
  const named = new Set();
  for (const text of lines.flatMap(pathsNamed)) {
    const virtual = virtualOfNamed(text, cwd, view, context.mounts);
    if (virtual === null || named.has(virtual) || notes.length >= MAX_PATH_NOTES) continue;
    const place = writable.filter((p) => isWithin(virtual, p)).sort((a, b) => b.length - a.length)[0];
    if (place === undefined || closed.some((p) => isWithin(virtual, p))) continue;
    let existing;
    try {
      existing = nearestExisting(sandbox.resolve(virtual), sandbox.resolve(place));
    } catch {
      continue; // not a path the sandbox resolves
    }
    if (existing === null || writableByUs(existing)) continue;
    named.add(virtual);
    const { uid, mode } = fs.statSync(existing);
    const refusing = virtualPathOf(existing, context.mounts) ?? place;
    const at = (p) => (view ? viewPath(view.workspace, p) : p);
    notes.push(`Note: ${at(virtual)} lies in a writable place of this sandbox, but the host's file permissions refused ` +
      `the write, not the sandbox: ${at(refusing)} is owned by uid ${uid} with mode ${(mode & 0o7777).toString(8)}, and ` +
      `this command runs as uid ${process.getuid?.()}. The user can change its owner or mode on the host; meanwhile ` +
      `write to ${view ? '/tmp' : 'its temporary directory ($TMPDIR)'}.`);
  }
  return notes;
}

// The top-level names of the command's root besides the workspace: a path under one of them is
// the system's, not a file-tool path.
function rootNames(view, hostReadPaths) {
  const places = [...SYSTEM_PATHS, '/etc', '/dev', '/proc', '/tmp', view.workspace, ...hostReadPaths];
  return new Set(places.map((p) => p.split('/')[1]));
}

// Whether the sandbox's file operations find `virtual` (any refusal counts as not).
async function existsIn(sandbox, virtual) {
  try {
    await sandbox.stat(virtual);
    return true;
  } catch {
    return false;
  }
}

// Absolute paths the command named that are not in its root but are virtual paths of the sandbox
// (what the file tools call /src/app.ts): the note says where they are inside commands.
async function fileToolNote(lines, sandbox, cwd, view, context) {
  if (!view) return null; // without a root of its own the command sees host paths
  const system = rootNames(view, context.hostReadPaths);
  const found = [];
  for (const text of lines.flatMap(pathsNamed)) {
    if (found.length >= MAX_PATH_NOTES) break;
    // Not relative, not "/" itself nor a URL's "//host", not under the root's own places.
    const top = text.split('/')[1];
    if (!text.startsWith('/') || top === '' || system.has(top)) continue;
    const virtual = path.posix.resolve(text);
    if (found.includes(virtual) || !(await existsIn(sandbox, virtual))) continue;
    found.push(virtual);
  }
  if (found.length === 0) return null;
  const where = found.map((p) => `${p} is ${shownPath(sandbox, p, cwd, view)}`);
  return `Note: file-tool paths are under ${view.workspace} in commands: ${where.join(', ')}.`;
}

const NO_SPACE = /No space left on device|ENOSPC/;

// A write that ran out of space, where /tmp is a tmpfs of its own: most likely /tmp filled up
// (HOME is there too, with npm's and pip's caches), or, where the command's copy-on-write layers
// share it ('copy-on-write-limit'), what it wrote anywhere. Said with the size and how to change it.
function tmpFullNote(lines, tmpBytes, shared) {
  if (tmpBytes === null || !lines.some((line) => NO_SPACE.test(line))) return null;
  const mib = Math.round(tmpBytes / 2 ** 20);
  const size = `Note: a write ran out of space. This command's /tmp (its HOME too) holds at most ${mib} MiB (limits.tmpBytes, or tmpBytes in the config)`;
  if (shared) {
    return `${size}; /tmp and the command's pending changes (what it wrote outside /tmp, not yet landed) share that size. ` +
      'If that is what filled up, clean up /tmp, write less in one run (what lands afterwards frees its space), or ask the user for a larger limits.tmpBytes.';
  }
  return `${size}; if that is what filled up, write large files elsewhere in the sandbox, clean up /tmp, or ask the user for a larger limits.tmpBytes.`;
}

/**
 * The failed command's stderr with the notes that explain it appended.
 * @param {object} result
 * @param {object} sandbox
 * @param {{ host: string, view: string }} cwd
 * @param {{ workspace: string, cwd: string } | null} view
 * @param {{ network: 'off' | 'host' | 'filtered', allowed?: string[], refusals?: number, readOnly: string[], mounts: object[], hostReadPaths: string[] }} context
 *   allowed, refusals: with an allowlist, its entries and how many destinations the judge refused
 *   readOnly: virtual paths bound read-only besides the read-only mounts; mounts: execPaths()
 */
async function guidingNotes(result, sandbox, cwd, view, context) {
  if (result.exitCode === 0) return result.stderr;
  const notes = [];
  const ownNetwork = result.enforcement.layers.includes('network-namespace');
  const inSocketPy = PYTHON_SOCKET_FRAME.test(result.stderr);
  const aboutNetwork = (line) => NETWORK_PATTERN.test(line) || (ownNetwork && REFUSED_PATTERN.test(line)) ||
    WGET_REFUSED.test(line) || (inSocketPy && PYTHON_BARE_REFUSAL.test(line));
  const lines = result.stderr.split('\n');
  // With an allowlist, the note on what the judge refused is exec's (lib/exec/network.js).
  const network = context.network !== 'host' && lines.some(aboutNetwork) ? networkNote(context) : null;
  if (network !== null) notes.push(network);
  // A refused connect says "Permission denied" too: that line is the network note's.
  const otherLines = lines.filter((line) => context.network === 'host' || !aboutNetwork(line));
  const refused = otherLines.filter((line) => PERMISSION_PATTERN.test(line));
  if (refused.length > 0) {
    const named = [...readOnlyNotes(refused, sandbox, cwd, view, context), ...ownerNotes(refused, sandbox, cwd, view, context)];
    notes.push(...(named.length > 0 ? named : [writableNote(sandbox, cwd, view)]));
  }
  notes.push(...busyNotes(otherLines, sandbox, cwd, view, context));
  const fileTool = await fileToolNote(otherLines, sandbox, cwd, view, context);
  if (fileTool !== null) notes.push(fileTool);
  const full = tmpFullNote(lines, result.enforcement.limits.tmpBytes, result.enforcement.layers.includes('copy-on-write-limit'));
  if (full !== null) notes.push(full);
  return notes.length === 0 ? result.stderr : `${result.stderr.replace(/\n$/, '')}\n\n${notes.join('\n')}\n`;
}

// What the checks after the run could not read or remove (the private /tmp aside, which no later
// run reads): the model, and through it the user, should know the next run may trust it.
function uncheckedNote(failed, view) {
  const names = failed.filter((p) => p !== '/tmp').map((p) => (view ? viewPath(view.workspace, p) : p));
  if (names.length === 0) return null;
  return `Note: after the command ended, ${names.join(', ')} could not be checked or removed; the host's git ` +
    'or the next run may trust what the command left there.';
}

// Why a `.git` file or link the command made at the top of a writable mount went: it would point
// the host's git in the project at a git directory anywhere.
function newRepositoryNote(repositories) {
  if (repositories.length === 0) return null;
  return 'Note: a .git file or link made where there was no repository was removed (it could point the host\'s git ' +
    'at a git directory anywhere); make the repository with git init instead.';
}

// What was taken out of the repositories the command made, and the HEADs put back (virtual
// paths, "<path>: <key>" for a config entry), so that the model knows its setting did not stay.
function takenOutNote(takenOut, restored, view) {
  const shown = (p) => (view ? viewPath(view.workspace, p) : p);
  const notes = [];
  if (takenOut.length > 0) {
    notes.push(`Note: the command made a git repository; what could make git run a program when the user next runs ` +
      `git there was taken out of it (the repository stays): ${takenOut.map(shown).join(', ')}.`);
  }
  if (restored.length > 0) {
    notes.push(`Note: the command removed or voided a repository's HEAD; it was put back: ${restored.map(shown).join(', ')}.`);
  }
  return notes.length === 0 ? null : notes.join('\n');
}

module.exports = { guidingNotes, uncheckedNote, newRepositoryNote, takenOutNote };
