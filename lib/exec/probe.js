'use strict';

// Asks msb-launch itself what sandbox.exec() would get here: it runs `true` under the policy
// exec's defaults give (namespaces "require", no network, a private /tmp) and reports the layers
// it applied, or the stage where it refused. isSupported() answers from this, so it says what
// exec would do rather than guessing from settings; `mount-sandbox doctor` reports it too.
const { childProcess: { spawnSync }, fs, os, path } = require('../common/builtins');
const { parseStatus } = require('./status');
const { systemPaths, DEFAULT_PATH } = require('./view');
const { launchError } = require('./refusal');

const PROBE_TIMEOUT_MS = 10_000;

function probePolicy(tmp, namespaces) {
  return {
    argv: ['true'],
    env: [`PATH=${DEFAULT_PATH}`, 'LANG=C.UTF-8'],
    cwd: '/',
    paths: [...systemPaths(false), { path: '/proc', access: 'read' }, { path: tmp, access: 'write', target: '/tmp' }],
    network: false,
    namespaces,
    allowWeaker: false,
    limits: { processes: 512, tmpBytes: 16 * 2 ** 20 },
  };
}

// { ok: { landlockAbi, layers, missing } } or { error: ExecEnforcementError | ExecError } for the
// launcher at `launcher` with `namespaces` ('require' as exec's default).
function probeLauncher(launcher, namespaces = 'require') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mount-sandbox-probe-'));
  try {
    const tmp = path.join(dir, 'tmp');
    fs.mkdirSync(tmp);
    const file = path.join(dir, 'policy.json');
    fs.writeFileSync(file, JSON.stringify(probePolicy(tmp, namespaces)));
    const policyFd = fs.openSync(file, 'r');
    let run;
    try {
      run = spawnSync(launcher, [], {
        argv0: 'msb-launch', stdio: ['ignore', 'ignore', 'ignore', 'pipe', policyFd], env: {}, cwd: '/',
        encoding: 'utf8', timeout: PROBE_TIMEOUT_MS,
      });
    } finally {
      fs.closeSync(policyFd);
    }
    const status = parseStatus((run.output && run.output[3]) || '');
    if (status.error) return { error: launchError(status.error.stage, status.error.errno, '/') };
    if (status.ok) return { ok: status.ok };
    const why = run.error ? ` (${run.error.message})` : '';
    return { error: new Error(`the exec launcher ended without confining its probe${why}`) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Asked once per launcher and process: what the kernel allows does not change under a running
// program often enough to pay a process per call.
const answers = new Map();

// Never throws (isSupported() does not): a temp directory that cannot be made is the answer.
function launcherProbe(launcher) {
  if (!answers.has(launcher)) {
    let answer;
    try {
      answer = probeLauncher(launcher);
    } catch (error) {
      answer = { error: new Error(`the exec launcher could not be asked what this machine allows (${error.code || 'failed'})`) };
    }
    answers.set(launcher, answer);
  }
  return answers.get(launcher);
}

module.exports = { probeLauncher, launcherProbe };
