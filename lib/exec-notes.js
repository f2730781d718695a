'use strict';

// The notes sandbox.exec() appends to a failed command's stderr, so that a model reading it learns
// why: the network is off, or it wrote where the sandbox does not let it.
const { path } = require('./builtins');
const { viewPath } = require('./exec-view');
const { isWithin } = require('./paths');

const PERMISSION_PATTERN = /Permission denied|Operation not permitted|Read-only file system|\bE(?:ACCES|PERM|ROFS)\b/;
// Socket calls refused with the network off: "connect EACCES" (Node), "socket: Permission
// denied" (curl, Python), failed name lookups (no UDP for DNS).
const NETWORK_PATTERN =
  /Network is unreachable|\bENETUNREACH\b|\bEAI_AGAIN\b|name resolution|Could not resolve|Name or service not known|getaddrinfo|\b(?:connect|socket|bind|listen|send|sendto)(?:\(\))?:? (?:Permission denied|EACCES)\b/i;

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

function guidingNotes(result, sandbox, cwd, view, network) {
  if (result.exitCode === 0) return result.stderr;
  const notes = [];
  const ownNetwork = result.enforcement.layers.includes('network-namespace');
  const aboutNetwork = (text) => NETWORK_PATTERN.test(text) || (ownNetwork && REFUSED_PATTERN.test(text));
  if (!network && aboutNetwork(result.stderr)) notes.push('Note: Network access is disabled for this worker.');
  // A refused connect says "Permission denied" too: that line is the network note's.
  const otherLines = result.stderr.split('\n').filter((line) => network || !aboutNetwork(line));
  if (otherLines.some((line) => PERMISSION_PATTERN.test(line))) notes.push(writableNote(sandbox, cwd, view));
  return notes.length === 0 ? result.stderr : `${result.stderr.replace(/\n$/, '')}\n\n${notes.join('\n')}\n`;
}

module.exports = { guidingNotes };
