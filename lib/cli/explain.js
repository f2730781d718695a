'use strict';

// mount-sandbox explain: where a virtual path resolves, which rules apply to it, and whether the
// sandbox allows reading, writing and deleting it, with the message a model would get; asked of
// the sandbox itself, so that the answer is what the sandbox enforces.
const path = require('path');
const ms = require('../index.js');
const { protectionOf, rulesFor } = require('./support.js');
const { UsageError, CONFIG_OPTION, JSON_OPTION } = require('./args.js');
const { shown, describeRules, rulesOf } = require('./output.js');
const { sandboxOf } = require('./load.js');

const synopsis = 'mount-sandbox explain <virtual-path> [--config dir|file] [--worker file] [--json]';
const takes = ['--config', '--worker', '--json'];
const summary = 'Say how a virtual path resolves and which rule allows or refuses each operation.';
const help = `Say where a virtual path such as /src/app.ts resolves on the host, which mount's rules
apply, and for read, write and delete whether the sandbox allows it (with the approval) or
refuses it, with the message a model would get. Paths are as the sandbox sees them: with
--worker, as that worker sees them (a worker restricted to /src sees its files at /). Values
from the config and the filesystem are escaped as check escapes them.

Options:
${CONFIG_OPTION}
  --worker file       answer for the narrower sandbox this .worker file gets from call_worker
${JSON_OPTION}

With --json: {"ok": true, "config", "worker": null | {"name", "file", "sandbox"}, "path",
"fileAccess", "resolvesTo", "resolveError", "rulesFrom", "read", "write", "delete",
"protected"}; each verdict is {"result": "allowed" | "refused" | "not-found", ...}; without file
access, "reason" instead of the answers. An error is {"ok": false, "error": {"code", "message",
...}} with the same exit status (code USAGE for a usage error).

Exit status: 0 explained; 1 invalid config or worker file; 2 usage error.`;

// `extra`: the positional arguments after the command's name.
function checkArgs(extra) {
  if (extra.length === 0) throw new UsageError('explain needs a virtual path, such as /src/app.ts');
  if (extra.length > 1) throw new UsageError(`explain takes one virtual path, got ${extra.length}`);
}

// explain's verdicts: { result: 'allowed' | 'refused' | 'not-found', ... }.
function refused(error) {
  return { result: 'refused', code: error.code, message: error.toLLMMessage ? error.toLLMMessage() : error.message };
}

function verdictText(verdict) {
  if (verdict.result === 'refused') return `refused (${shown(verdict.code)}): ${shown(verdict.message)}`;
  if (verdict.result === 'not-found') return 'nothing there (not found)';
  if (verdict.type === 'file') return `allowed (file, ${verdict.size} bytes)`;
  if (verdict.type === 'directory') return `allowed (directory, ${verdict.entries} entries)`;
  return `allowed, approval: ${shown(verdict.approval)}`;
}

async function readVerdict(sandbox, p) {
  try {
    await sandbox.read(p, { offset: 0, length: 0 }); // every read rule, no data
    const info = await sandbox.stat(p);
    return { result: 'allowed', type: 'file', size: info.size };
  } catch (error) {
    if (!ms.isSandboxError(error)) throw error;
    if (error.code === 'NOT_FOUND') return { result: 'not-found' };
    if (error.code !== 'IS_DIRECTORY') return refused(error);
  }
  try {
    const names = await sandbox.list(p);
    return { result: 'allowed', type: 'directory', entries: names.length };
  } catch (error) {
    if (!ms.isSandboxError(error)) throw error;
    return refused(error);
  }
}

function changeVerdict(sandbox, p, operation) {
  const error = sandbox.checkChange(p, operation);
  if (error) return refused(error);
  return { result: 'allowed', approval: sandbox.approvalFor(p, operation) };
}

// Which rules apply: { kind: 'mount' | 'root', target, readonly, approval, policy } or { kind: 'none' }.
function rulesFrom(sandbox, p) {
  const table = sandbox.describe();
  const rules = rulesFor(table, p);
  if (rules !== table) return { kind: 'mount', target: rules.target, ...rulesOf(rules) };
  if (table.root !== null) return { kind: 'root', target: '/', ...rulesOf(table) };
  return { kind: 'none' };
}

function rulesFromText(rules) {
  if (rules.kind === 'mount') return `mount ${shown(rules.target)} [${describeRules(rules)}]`;
  if (rules.kind === 'root') return `root / [${describeRules(rules)}]`;
  return 'no mount (outside the sandbox, or a directory that only holds mounts)';
}

// What exec does to a protected file, which explain's file verdicts (the file API's) do not say:
// { trusted, holder }, why the host trusts it (the core's refusal of a change) and the protected
// host path that holds it where it is one of the sandbox's own files; null when neither.
function protection(sandbox, p, host) {
  const refusal = sandbox.isValidPath(p) ? sandbox.checkChange(p, 'write') : null;
  const trusted = refusal !== null && refusal.code === 'HOST_TRUSTED' ? refusal.trusted : null;
  const holder = host === null ? null : protectionOf(sandbox, host);
  return trusted === null && holder === null ? null : { trusted: trusted ?? 'sandbox', holder };
}

function protectionText({ trusted, holder }, host) {
  const what = holder === null || holder === host ? 'this file' : shown(path.basename(holder));
  return `protected: the host trusts it (${trusted}): the file tools refuse every change, and it is read-only ` +
    `to commands run by exec (${what}: the next run trusts it)`;
}

// The host path `p` resolves to, or null with the refusal that says why not.
function resolved(sandbox, p) {
  try {
    return { host: sandbox.resolve(p), resolveError: null };
  } catch (error) {
    if (!ms.isSandboxError(error)) throw error;
    return { host: null, resolveError: refused(error) };
  }
}

// The answers for a sandbox there is: the report's fields after config, worker and path.
async function answersFor(sandbox, p) {
  const { host, resolveError } = resolved(sandbox, p);
  const answers = {
    fileAccess: true,
    resolvesTo: host,
    resolveError: resolveError && { code: resolveError.code, message: resolveError.message },
    rulesFrom: rulesFrom(sandbox, p),
    read: await readVerdict(sandbox, p),
    write: changeVerdict(sandbox, p, 'write'),
    delete: changeVerdict(sandbox, p, 'delete'),
    protected: protection(sandbox, p, host),
  };
  const lines = [
    `path: ${shown(p)}`,
    `resolves to: ${host === null ? verdictText(resolveError) : shown(host)}`,
    `rules from: ${rulesFromText(answers.rulesFrom)}`,
    `read:   ${verdictText(answers.read)}`,
    `write:  ${verdictText(answers.write)}`,
    `delete: ${verdictText(answers.delete)}`,
  ];
  if (answers.protected !== null) lines.push(protectionText(answers.protected, host));
  return { answers, lines };
}

async function run(args) {
  const p = args.positional[1];
  const { config, sandbox, worker } = await sandboxOf(args);
  const report = {
    ok: true,
    config: config.file,
    worker: worker ? { name: worker.name ?? null, file: worker.file, sandbox: worker.sandbox.kind } : null,
    path: p,
  };
  const lines = [`config: ${shown(config.file)}`];
  if (worker) lines.push(`worker: ${shown(worker.name ?? path.basename(worker.file))} (sandbox: ${shown(worker.sandbox.kind)})`);
  if (sandbox === null) {
    const reason = worker ? 'the worker is a pure function' : 'the config has no sandbox section';
    lines.push(`${shown(p)}: no sandbox, so no file access (${reason})`);
    return { code: 0, report: { ...report, fileAccess: false, reason }, lines };
  }
  const answered = await answersFor(sandbox, p);
  return { code: 0, report: { ...report, ...answered.answers }, lines: [...lines, ...answered.lines] };
}

module.exports = { synopsis, takes, summary, help, checkArgs, run };
