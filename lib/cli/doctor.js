'use strict';

// mount-sandbox doctor: what this machine allows sandbox.exec() (user namespaces, AppArmor's
// restriction, Landlock, seccomp, a memory cgroup, copy-on-write runs, the network judge), each
// with what it enables, what is lost without it and what turns it on. The answers are the
// library's own (isSupported() and real exec calls, lib/exec/machine.js); this only prints them.
const ms = require('../index.js');
const { machineReport } = require('./support.js');
const { UsageError, JSON_OPTION } = require('./args.js');

const synopsis = 'mount-sandbox doctor [--json]';
const takes = ['--json'];
const summary = 'Say what this machine allows exec, and the command that turns on what it lacks.';
const help = `Say what this machine allows the commands exec runs: unprivileged user namespaces
(kernel.unprivileged_userns_clone, user.max_user_namespaces), AppArmor's restriction of them
(kernel.apparmor_restrict_unprivileged_userns, and this package's profile), Landlock and its ABI,
seccomp, a delegated memory cgroup, copy-on-write runs and the network judge. Each is found by
running a command (true) in a sandbox over a temp directory, as exec would, and is printed with
what it enables, what is lost without it, and the command that turns it on. Nothing is changed.

Options:
${JSON_OPTION}

With --json: {"ok": true, "supported", "reason", "exec": {"supported", "reason"}, "landlockAbi",
"checks": [{"id", "name", "available" (true, false, or null where it does not apply or could not
be found), "state", "enables", "without", "turnOn": null | {"commands", "note"}}]}.

Exit status: 0 exec runs here with its default options; 1 it refuses (the report says why);
2 usage error.`;

function checkArgs(extra) {
  if (extra.length > 0) throw new UsageError('doctor takes no arguments');
}

const MARK = { true: 'yes', false: 'no ', null: ' - ' };

function checkLines(c) {
  const state = c.state === null ? '' : ` (${c.state})`;
  const lines = [`${MARK[String(c.available)]}  ${c.name}${state}`, `     enables: ${c.enables}`];
  if (c.available === false) {
    lines.push(`     without it: ${c.without}`);
    for (const command of c.turnOn.commands) lines.push(`     turn it on: ${command}`);
    if (c.turnOn.note) lines.push(`     ${c.turnOn.commands.length ? 'then' : 'needs'}: ${c.turnOn.note}`);
  }
  return lines;
}

function textLines(report) {
  if (!report.supported) return [`mount-sandbox cannot run here: ${report.reason}`];
  const exec = report.exec.supported
    ? 'exec runs here with its default options.'
    : `exec refuses here with its default options: ${report.exec.reason}`;
  return [exec, '', ...report.checks.flatMap(checkLines)];
}

async function run() {
  const report = await machineReport(ms, 'cli');
  const code = report.supported && report.exec.supported ? 0 : 1;
  // A report, not an error: on stdout whatever the verdict.
  return { code, report: { ok: true, ...report }, lines: [], stdout: `${textLines(report).join('\n')}\n`, stderr: '' };
}

module.exports = { synopsis, takes, summary, help, checkArgs, run };
