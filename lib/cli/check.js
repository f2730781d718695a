'use strict';

// mount-sandbox check: validate a program config and print its mount table, so that a config,
// one's own or one not trusted, can be reviewed before a worker runs under it.
const fs = require('fs');
const ms = require('../index.js');
const { UsageError, CONFIG_OPTION, JSON_OPTION } = require('./args.js');
const { shown, describeRules, rulesOf } = require('./output.js');
const { loadConfig } = require('./load.js');

const synopsis = 'mount-sandbox check [dir | --config dir|file] [--json]';
const takes = ['--config', '--json'];
const summary = 'Validate the program config and print its mount table.';
const help = `Validate the program config --config names (a dir argument, kept for older scripts, is
the same as --config dir: give one or the other) and print the effective mount table: each
mount's virtual target, host source, ro/rw, approvals and policies, marking sources that do not
exist yet. Says so when the config has no sandbox section (no file access). Values from the
config and the filesystem are printed with control and bidi characters escaped (\\n, \\x1b,
\\u202e) and a backslash doubled, so that a config you do not trust can be reviewed with it.

Options:
${CONFIG_OPTION}
${JSON_OPTION}

With --json: {"ok": true, "config", "delegation": {"maxDepth"}, "sandbox": null | {"layout",
"mounts": [{"target", "source", "readonly", "approval", "policy", "missing"}]}}, "/" first when
there is a root. An error is {"ok": false, "error": {"code", "message", ...}} with the same exit
status (code USAGE for a usage error); an invalid config's has file, line, column, keyPath and
expected.

Exit status: 0 valid; 1 invalid (file:line:column: keyPath: expected ...); 2 usage error.`;

// `extra`: the positional arguments after the command's name.
function checkArgs(extra, args) {
  if (extra.length > 1) throw new UsageError(`check takes at most one directory, got ${extra.length}`);
  if (extra.length === 1 && args.options['--config'] !== undefined) {
    throw new UsageError('check takes the config as a directory argument or as --config, not both');
  }
}

// check's table: the root (when there is one) and each mount, marking sources not there yet.
function mountRows(table) {
  const rows = [];
  if (table.root !== null) rows.push({ target: '/', source: table.root, ...rulesOf(table) });
  for (const m of table.mounts) rows.push({ target: m.target, source: m.source, ...rulesOf(m) });
  return rows.map((row) => ({ ...row, missing: !fs.existsSync(row.source) }));
}

function tableLines(rows) {
  const width = Math.max(...rows.map((r) => shown(r.target).length));
  return rows.map((r) => {
    const missing = r.missing ? '  (missing: created on first use)' : '';
    return `  ${shown(r.target).padEnd(width)}  ${shown(r.source)}  [${describeRules(r)}]${missing}`;
  });
}

// The names no change through the sandbox may touch (the core's set), by why the host trusts them.
function trustedLines(names, released, hookDirs) {
  const kinds = [...new Set(names.map((n) => n.kind))];
  const lines = ['trusted names (never changed by the file tools; read-only to commands; also the config and worker files):'];
  for (const kind of kinds) lines.push(`trusted (${kind}): ${names.filter((n) => n.kind === kind).map((n) => shown(n.name)).join(' ')}`);
  if (hookDirs.length > 0) lines.push(`trusted (git, core.hooksPath): ${hookDirs.map(shown).join(' ')}`);
  lines.push('trusted (git, by layout): any directory with HEAD, objects and refs: its config and hooks; no change may make or void one');
  if (released.length > 0) lines.push(`released: ${released.map(shown).join(' ')}`);
  return lines;
}

const LAYOUTS = { mounts: 'mounts', sandboxed: 'zones, sandboxed mode', direct: 'zones, direct mode' };

// check's answer: `report` the --json document, `lines` the text, each value in it through shown().
async function run(args) {
  const config = await loadConfig(args.positional[1] ?? args.options['--config']);
  const report = { ok: true, config: config.file, delegation: { maxDepth: config.delegation.maxDepth }, sandbox: null };
  const lines = [`config: ${shown(config.file)}`, `delegation: maxDepth ${shown(config.delegation.maxDepth)}`];
  if (config.sandbox === null) {
    lines.push('sandbox: none (no sandbox section: workers get no file access)');
    return { code: 0, report, lines };
  }
  // Built through the addon, so what is printed is what a sandbox would enforce.
  const sandbox = ms.createMountSandbox(ms.sandboxConfigFrom(config));
  const mounts = mountRows(sandbox.describe());
  const { names, released, hookDirs } = sandbox.describe().trustedNames;
  report.sandbox = { layout: config.sandbox.layout, mounts, trustedNames: { names, released, hookDirs } };
  const zonesOnly = config.sandbox.root === null ? ' ("/" lists the zones only)' : '';
  lines.push(`sandbox: ${LAYOUTS[config.sandbox.layout]}${zonesOnly}`, ...tableLines(mounts),
    ...trustedLines(names, released, hookDirs), 'ok');
  return { code: 0, report, lines };
}

module.exports = { synopsis, takes, summary, help, checkArgs, run };
