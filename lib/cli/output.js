'use strict';

// What the CLI prints: a command's answer as text or as the --json document, an error as either,
// and the rules of a mount as check and explain both show them. Everything printed that came from
// outside (a config, a worker file, the command line, the filesystem) is escaped here.
const ms = require('../index.js');
const { UsageError, Refusal } = require('./args.js');
// exec's refusals name the CLI's flags (--allow-weaker), not the library's options.
const { inTermsOf } = require('./support.js');

// Every value printed that came from a config, a worker file, the command line or the filesystem
// goes through shown() (the library's displayText): a mount source with a newline cannot forge a
// row of check's table. The --json document is escaped by jsonText().
const shown = ms.displayText;

function describeRules({ readonly, approval, policy }) {
  const parts = [readonly ? 'ro' : 'rw', `write: ${shown(approval.write)}`, `delete: ${shown(approval.delete)}`];
  const list = (suffixes) => suffixes.map(shown).join(' ');
  if (policy.allowedSuffixes) parts.push(`allowed: ${list(policy.allowedSuffixes) || '(none)'}`);
  if (policy.deniedSuffixes.length) parts.push(`denied: ${list(policy.deniedSuffixes)}`);
  if (policy.maxFileBytes !== null) parts.push(`maxFileBytes: ${shown(policy.maxFileBytes)}`);
  return parts.join(', ');
}

// The rules of the root or of a mount, as describe() gives them.
function rulesOf({ readonly, approval, policy }) {
  return { readonly, approval: { ...approval }, policy: { ...policy } };
}

// The --json document, terminal-safe as well: JSON.stringify leaves DEL, C1 controls, bidi and
// other format characters and U+2028/2029 raw in strings; written as \u escapes they parse back
// the same (they occur only inside strings), and `cat`ting the document shows them as text.
const JSON_UNSAFE = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

function jsonText(doc) {
  const escape = (c) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
  return `${JSON.stringify(doc, null, 2).replace(JSON_UNSAFE, escape)}\n`;
}

// An error as the --json document says it: its code and message, and what the error carries
// (a config error's file, line, column, keyPath and expected; a sandbox error's virtual path).
function errorReport(error) {
  if (error instanceof UsageError) return { code: 'USAGE', message: error.message };
  if (error instanceof Refusal) return { code: error.code, message: error.message };
  if (ms.isSandboxError(error)) {
    const { name, code, ...details } = error;
    return { code, name, message: inTermsOf(error, 'cli'), ...details };
  }
  if (error && typeof error.syscall === 'string') {
    return { code: error.code, message: error.message, syscall: error.syscall, path: error.path };
  }
  return { code: 'INTERNAL', message: String(error?.message ?? error) };
}

// A command's answer as text: `lines` on stdout (on stderr when it failed), or, for exec and
// apparmor, their own `stdout` and `stderr` with `lines` after them on stderr.
function printText({ code, lines, stdout, stderr }) {
  if (stdout !== undefined) {
    // exec and apparmor: the command's own output (the profile), as it produced it.
    process.stdout.write(stdout);
    process.stderr.write(stderr);
    if (lines.length) process.stderr.write(`${lines.join('\n')}\n`);
  } else {
    (code === 0 ? process.stdout : process.stderr).write(`${lines.join('\n')}\n`);
  }
}

// An error as text on stderr; `usage` is what follows a usage error.
function printError(error, usage) {
  if (error instanceof UsageError) {
    process.stderr.write(`mount-sandbox: ${shown(error.message)}\n\n${usage}\n`);
  } else if (error instanceof ms.UnsupportedPlatformError) {
    // Its message starts "mount-sandbox cannot run here": said once, with the ways out.
    const steps = error.solutions.map((step) => `\n- ${shown(step)}`).join('');
    process.stderr.write(`mount-sandbox: cannot run here: ${shown(error.reason)}.${steps ? ` What to do:${steps}` : ''}\n`);
  } else if (error instanceof Refusal || ms.isSandboxError(error)) {
    process.stderr.write(`mount-sandbox: ${shown(inTermsOf(error, 'cli'))}\n`);
  } else if (error && typeof error.syscall === 'string') {
    // An unreadable file or directory: the message names it; a stack trace would not help.
    process.stderr.write(`mount-sandbox: ${shown(error.message)}\n`);
  } else {
    // A bug: one line, unless asked for the stack trace.
    const text = process.env.MOUNT_SANDBOX_DEBUG ? String(error?.stack || error) : shown(error?.message ?? error);
    process.stderr.write(`mount-sandbox: internal error: ${text}${process.env.MOUNT_SANDBOX_DEBUG ? '' : ' (MOUNT_SANDBOX_DEBUG=1 prints its stack trace)'}\n`);
  }
}

// An error as the --json document, with the stack trace of a bug on stderr when asked for.
function printJsonError(error) {
  const report = errorReport(error);
  process.stdout.write(jsonText({ ok: false, error: report }));
  if (report.code === 'INTERNAL' && process.env.MOUNT_SANDBOX_DEBUG) process.stderr.write(`${error?.stack || error}\n`);
}

module.exports = { shown, describeRules, rulesOf, jsonText, printText, printError, printJsonError };
