'use strict';

// Where unprivileged user namespaces are restricted (Ubuntu 23.10+: AppArmor's
// kernel.apparmor_restrict_unprivileged_userns): the shipped profile that allows msb-launch,
// checked by a real AppArmor 4 parser; `mount-sandbox apparmor`, which prints it for the launcher
// in use; and the errors and isSupported() that name that command. This kernel may have no
// AppArmor, so the sysctl is read from a stand-in root (MOUNT_SANDBOX_TEST_HOST_ROOT); the
// refused namespaces are real: the launcher runs where the kernel refuses it a user namespace.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { tempDirEach, testNeeding } = require('./helpers');

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'mount-sandbox.js');
const TEMPLATE = path.join(ROOT, 'apparmor', 'msb-launch');
const BUILT_LAUNCHER = path.join(ROOT, 'build', 'Release', 'msb-launch');

jest.setTimeout(60000);

let base;
tempDirEach('msb-apparmor-', (dir) => {
  base = dir;
});

// A directory standing in for / as far as the restriction goes: its sysctl reads `value`.
function hostRoot(value, profile) {
  const root = path.join(base, `host-${value}`);
  fs.mkdirSync(path.join(root, 'proc/sys/kernel'), { recursive: true });
  fs.writeFileSync(path.join(root, 'proc/sys/kernel/apparmor_restrict_unprivileged_userns'), `${value}\n`);
  if (profile !== undefined) {
    fs.mkdirSync(path.join(root, 'etc/apparmor.d'), { recursive: true });
    fs.writeFileSync(path.join(root, 'etc/apparmor.d/msb-launch'), profile);
  }
  return root;
}

function cli(args, env = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: base, encoding: 'utf8', timeout: 20000, env: { ...process.env, ...env },
  });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

// ---- a real AppArmor 4 parser (Debian 12 ships 3.0, which predates the userns rule) ----

function findParser() {
  const candidates = [process.env.MSB_APPARMOR_PARSER, path.join(ROOT, '.cache/apparmor-parser/apparmor_parser'), 'apparmor_parser'];
  for (const parser of candidates.filter(Boolean)) {
    const result = spawnSync(parser, ['--version'], { encoding: 'utf8' });
    const major = /version (\d+)\./.exec(result.stdout || '');
    if (result.status === 0 && major && Number(major[1]) >= 4) return parser;
  }
  return null;
}
const PARSER = findParser();
const withParser = testNeeding(PARSER === null
  ? 'no AppArmor 4 parser: scripts/apparmor-parser.sh unpacks one (or set MSB_APPARMOR_PARSER)'
  : null);
const appArmorParser = () => PARSER;

// Parses and compiles the profile, never loading it (-Q) nor touching a cache (-K); with the
// attachment's state machine dumped (on stderr).
function parse(profile) {
  const file = path.join(base, `profile-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(file, profile);
  return spawnSync(appArmorParser(), ['-Q', '-K', '-D', 'dfa-states', file], { encoding: 'utf8' });
}

// The first state machine of a `-D dfa-states` dump: its accepting states (listed under the
// `<==` header) and each printed state's edges, { byte } for one literal byte or { byte: null }
// for a character class. A state without edges is not printed.
function firstDfa(dump) {
  const accepting = new Set();
  const edges = new Map();
  let section = 'start';
  let current = null;
  for (const line of dump.split('\n')) {
    if (/<== /.test(line)) {
      if (section !== 'start') break; // a second machine begins
      section = 'accepting';
      continue;
    }
    const state = /^\{(\d+)\}(?: perms: (.*))?/.exec(line);
    if (section === 'accepting' && state && state[2] === undefined) accepting.add(state[1]);
    if (state && state[2] !== undefined) {
      section = 'states';
      current = [];
      edges.set(state[1], current);
      continue;
    }
    if (section !== 'states' || !/^\s{4}\S/.test(line)) continue;
    // A literal edge ends in its byte's hex (its label may be a raw non-ASCII byte); a class has none.
    const literal = / 0x([0-9a-f]{2}) -> \{(\d+)\}/.exec(line);
    current.push(literal ? { byte: parseInt(literal[1], 16), to: literal[2] } : { byte: null, to: /-> \{(\d+)\}/.exec(line)[1] });
  }
  return { accepting, edges };
}

// Whether the machine matches `file` and nothing else: one literal byte per step, accepting only
// at the end, where nothing follows.
function matchesExactly({ accepting, edges }, file) {
  let state = '1';
  for (const byte of Buffer.from(file)) {
    const out = edges.get(state) || [];
    if (accepting.has(state) || out.length !== 1 || out[0].byte !== byte) return false;
    state = out[0].to;
  }
  return accepting.has(state) && (edges.get(state) || []).length === 0;
}

const attachmentOf = (profile) => /^profile msb-launch (.+) flags=\(unconfined\) \{$/m.exec(profile)[1];

describe('the shipped profile', () => {
  test('is packed with the package', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.files).toContain('apparmor/');
    expect(fs.readFileSync(TEMPLATE, 'utf8')).toContain('@MSB_LAUNCH_PATH@');
  });

  withParser('filled in with the real launcher path, it parses and compiles; a broken one does not', () => {
    const { code, stdout } = cli(['apparmor']);
    expect(code).toBe(0);
    const parsed = parse(stdout);
    expect(parsed.stderr).not.toMatch(/error|warning/i);
    expect(parsed.status).toBe(0);
    // The check can fail: the same text with its closing brace gone, or the placeholder left.
    expect(parse(stdout.replace(/\}\s*$/, '')).status).not.toBe(0);
    expect(parse(fs.readFileSync(TEMPLATE, 'utf8')).status).not.toBe(0);
  });

  withParser('allows user namespaces to the launcher and confines nothing else', () => {
    const { stdout } = cli(['apparmor']);
    expect(stdout).toMatch(/^abi <abi\/4\.0>,$/m);
    expect(stdout).toMatch(/^include <tunables\/global>$/m);
    expect(stdout).toMatch(/^ {2}userns,$/m);
    expect(stdout).toMatch(/^ {2}include if exists <local\/msb-launch>$/m);
    fs.writeFileSync(path.join(base, 'p'), stdout);
    const described = spawnSync(appArmorParser(), ['-Q', '-K', '-d', path.join(base, 'p')], { encoding: 'utf8' });
    expect(described.status).toBe(0);
    const text = described.stdout + described.stderr;
    expect(text).toMatch(/^Name:\s+msb-launch$/m);
    expect(text).toMatch(/^Mode: unconfined$/m);
    expect(text).toMatch(/^userns,$/m);
  });

  withParser('attaches to exactly the launcher the package runs, by its real path', () => {
    const { stdout } = cli(['apparmor']);
    const launcher = fs.realpathSync(BUILT_LAUNCHER);
    expect(attachmentOf(stdout)).toBe(`"${launcher}"`);
    const states = firstDfa(parse(stdout).stderr);
    expect(matchesExactly(states, launcher)).toBe(true);
    // The matcher can say no: a longer path, a shorter one, another file.
    expect(matchesExactly(states, `${launcher}x`)).toBe(false);
    expect(matchesExactly(states, launcher.slice(0, -1))).toBe(false);
    expect(matchesExactly(states, '/usr/bin/true')).toBe(false);
  });

  withParser('a launcher path with spaces, quotes and pattern characters is matched literally, not as a pattern', () => {
    const odd = path.join(base, 'a b "q" \\ * ? [x] {1,2} ^ @{HOME} # $ é');
    fs.mkdirSync(odd);
    fs.copyFileSync(BUILT_LAUNCHER, path.join(odd, 'msb-launch'));
    fs.chmodSync(path.join(odd, 'msb-launch'), 0o755);
    fs.symlinkSync(path.join(odd, 'msb-launch'), path.join(base, 'link'));
    // Through a symlink, as AppArmor sees the executed file by its real path.
    const { code, stdout } = cli(['apparmor'], { MOUNT_SANDBOX_LAUNCHER: path.join(base, 'link') });
    expect(code).toBe(0);
    const parsed = parse(stdout);
    expect(parsed.status).toBe(0);
    const states = firstDfa(parsed.stderr);
    const real = fs.realpathSync(path.join(odd, 'msb-launch'));
    expect(matchesExactly(states, real)).toBe(true);
    // Were `*` or `?` patterns, these would match too.
    expect(matchesExactly(states, real.replace('*', 'anything'))).toBe(false);
    expect(matchesExactly(states, real.replace('?', 'z'))).toBe(false);
  });
});

describe('mount-sandbox apparmor', () => {
  test('prints the profile on stdout and the two commands that load it on stderr, loading nothing', () => {
    const launcher = fs.realpathSync(BUILT_LAUNCHER);
    const { code, stdout, stderr } = cli(['apparmor'], { MOUNT_SANDBOX_TEST_HOST_ROOT: hostRoot(1) });
    expect(code).toBe(0);
    const template = fs.readFileSync(TEMPLATE, 'utf8');
    expect(stdout).toBe(template.replace('@MSB_LAUNCH_PATH@', `"${launcher}"`));
    expect(stderr).toContain('npx mount-sandbox apparmor | sudo tee /etc/apparmor.d/msb-launch\n');
    expect(stderr).toContain('sudo apparmor_parser -r /etc/apparmor.d/msb-launch\n');
    expect(stderr).toContain('kernel.apparmor_restrict_unprivileged_userns = 1');
  });

  test('says when this kernel does not restrict user namespaces, or has no such setting', () => {
    const off = cli(['apparmor'], { MOUNT_SANDBOX_TEST_HOST_ROOT: hostRoot(0) });
    expect(off.code).toBe(0);
    expect(off.stderr).toMatch(/does not restrict/);
    const none = cli(['apparmor'], { MOUNT_SANDBOX_TEST_HOST_ROOT: path.join(base, 'empty') });
    expect(none.code).toBe(0);
    expect(none.stderr).toMatch(/does not restrict user namespaces \(no kernel\.apparmor_restrict_unprivileged_userns\)/);
  });

  test('has help, takes no arguments, and is listed in the usage', () => {
    const help = cli(['apparmor', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: mount-sandbox apparmor$/m);
    expect(cli(['apparmor', 'extra']).code).toBe(2);
    expect(cli(['--help']).stdout).toContain('mount-sandbox apparmor');
  });
});

// ---- a real refusal: the launcher runs where the kernel refuses it a user namespace ----

// The script run as `node -e` by execWhere(): each case's outcome of a sandbox.exec, as JSON.
function execCasesScript(sandboxRoot, cases) {
  return `
    const ms = require(${JSON.stringify(ROOT)});
    (async () => {
      const sandbox = ms.createMountSandbox({ root: ${JSON.stringify(sandboxRoot)} });
      const out = { euid: process.geteuid(), support: ms.isSupported().exec };
      for (const [name, options] of Object.entries(${JSON.stringify(cases)})) {
        try {
          const r = await sandbox.exec(['sh', '-c', 'echo left > "$TMPDIR/file"; echo ran'], options);
          out[name] = { stdout: r.stdout, missing: r.enforcement.missing };
        } catch (e) {
          out[name] = { error: e.constructor.name, code: e.code, stage: e.stage, message: e.message, missing: e.missing };
        }
      }
      console.log(JSON.stringify(out));
    })();`;
}

// Runs the cases as uid 1000 (not root) in a user namespace where the kernel refuses the
// launcher its own namespace, in one of two ways:
// - 'unshare': the namespace limit is used up by the one the cases run in, so the launcher's
//   unshare(CLONE_NEWUSER) fails, as where the restriction denies creation outright;
// - 'id-maps': unshare succeeds and writing the id maps is refused (Landlock: nothing beneath
//   /proc is writable), as Ubuntu 24.04's unprivileged_userns profile refuses them.
function execWhere(refusal, hostRootDir, cases) {
  const sandboxRoot = path.join(base, 'sandbox-root');
  fs.mkdirSync(sandboxRoot, { recursive: true });
  fs.chmodSync(base, 0o755);
  fs.chmodSync(sandboxRoot, 0o777);
  const script = execCasesScript(sandboxRoot, cases);
  const asUser = ['unshare', '--user', '--map-user=1000', '--map-group=1000'];
  const argv = refusal === 'unshare'
    ? ['unshare', '--user', '--map-root-user', 'sh', '-c',
      `echo 1 > /proc/sys/user/max_user_namespaces && exec ${asUser.join(' ')} "$0" -e "$1"`, process.execPath, script]
    : [...asUser, 'python3', path.join(__dirname, 'fixtures', 'no-proc-writes.py'), process.execPath, '-e', script];
  const tmp = path.join(base, 'tmp');
  fs.mkdirSync(tmp, { mode: 0o777 });
  fs.chmodSync(tmp, 0o777);
  const result = spawnSync(argv[0], argv.slice(1), {
    encoding: 'utf8', timeout: 45000, env: { ...process.env, MOUNT_SANDBOX_TEST_HOST_ROOT: hostRootDir, TMPDIR: tmp },
  });
  if (result.status !== 0) throw new Error(`the child failed: ${result.stderr}`);
  return { ...JSON.parse(result.stdout), sandboxRoot, leftInTmp: fs.readdirSync(tmp) };
}

describe('where the kernel refuses the launcher its user namespace', () => {
  test('under AppArmor\'s restriction the refusal names the command that allows msb-launch, and runs nothing weaker', () => {
    const out = execWhere('unshare', hostRoot(1), {
      required: {},
      weaker: { allowWeakerEnforcement: true },
    });
    expect(out.euid).toBe(1000);
    expect(out.required.error).toBe('ExecEnforcementError');
    expect(out.required.code).toBe('ENFORCEMENT_UNAVAILABLE');
    expect(out.required.missing).toEqual(['namespaces']);
    expect(out.required.message).toContain('kernel.apparmor_restrict_unprivileged_userns = 1');
    expect(out.required.message).toContain('`npx mount-sandbox apparmor`');
    expect(out.required.message).not.toContain(out.sandboxRoot);
    expect(out.required.message).not.toContain(ROOT);
    // Only when asked: then it runs, and says what is missing.
    expect(out.weaker.stdout).toBe('ran\n');
    expect(out.weaker.missing).toContain('namespaces');
    // isSupported() says the same before any exec.
    expect(out.support.supported).toBe(false);
    expect(out.support.reason).toContain('`npx mount-sandbox apparmor`');
    expect(out.support.reason).not.toContain(ROOT);
  });

  test('without the restriction the refusal does not blame AppArmor', () => {
    const out = execWhere('unshare', hostRoot(0), { required: {} });
    expect(out.required.error).toBe('ExecEnforcementError');
    expect(out.required.message).not.toContain('AppArmor');
    // isSupported() asks the launcher, and says what exec says, without blaming AppArmor either.
    expect(out.support.supported).toBe(false);
    expect(out.support.reason).toContain('unprivileged user namespaces are not available here');
    expect(out.support.reason).not.toContain('AppArmor');
  });
});

// The refusal is reproduced by a Python fixture (Landlock from ctypes); the README's set-up does
// not install Python.
const withPython = testNeeding(spawnSync('python3', ['--version']).status === 0 ? null : 'python3 is not installed');

describe('where the restriction refuses the id maps after unshare (Ubuntu 24.04)', () => {
  withPython('"prefer" and allowWeakerEnforcement run without the layer, saying so; "require" names the command', () => {
    const out = execWhere('id-maps', hostRoot(1), {
      required: {},
      prefer: { namespaces: 'prefer' },
      weaker: { allowWeakerEnforcement: true },
    });
    expect(out.euid).toBe(1000);
    expect(out.required.error).toBe('ExecEnforcementError');
    expect(out.required.missing).toEqual(['namespaces']);
    expect(out.required.message).toContain('`npx mount-sandbox apparmor`');
    expect(out.prefer).toEqual({ stdout: 'ran\n', missing: expect.arrayContaining(['namespaces']) });
    expect(out.weaker).toEqual({ stdout: 'ran\n', missing: expect.arrayContaining(['namespaces']) });
    // Each command's temp directory is removed (without namespaces, by a confined rm, which the
    // restriction refuses its id maps too).
    expect(out.leftInTmp).toEqual([]);
  });

  withPython('where the sysctl is off, the same refusal stays a launcher failure: nothing runs', () => {
    const out = execWhere('id-maps', hostRoot(0), { prefer: { namespaces: 'prefer' } });
    expect(out.prefer.error).toBe('ExecError');
    expect(out.prefer.stage).toBe('namespaces');
  });
});

describe('isSupported().exec', () => {
  // As a non-root user (uid 1000 in a user namespace), whom the restriction concerns.
  function support(hostRootDir) {
    const result = spawnSync('unshare', ['--user', '--map-user=1000', '--map-group=1000', process.execPath, '-p',
      `JSON.stringify(require(${JSON.stringify(ROOT)}).isSupported().exec)`], {
      encoding: 'utf8', env: { ...process.env, MOUNT_SANDBOX_TEST_HOST_ROOT: hostRootDir },
    });
    if (result.status !== 0) throw new Error(result.stderr);
    return JSON.parse(result.stdout);
  }

  test('is false under the restriction until the profile for this launcher is in /etc/apparmor.d', () => {
    const profile = cli(['apparmor']).stdout;
    expect(support(hostRoot(1)).supported).toBe(false);
    expect(support(hostRoot(1, profile.replace(/msb-launch"/, 'other"'))).supported).toBe(false);
    expect(support(hostRoot(1, profile))).toEqual({ supported: true });
    expect(support(hostRoot(0))).toEqual({ supported: true });
  });

  test('root is not restricted', () => {
    const result = spawnSync('unshare', ['--user', '--map-root-user', process.execPath, '-p',
      `JSON.stringify(require(${JSON.stringify(ROOT)}).isSupported().exec)`], {
      encoding: 'utf8', env: { ...process.env, MOUNT_SANDBOX_TEST_HOST_ROOT: hostRoot(1) },
    });
    expect(JSON.parse(result.stdout)).toEqual({ supported: true });
  });
});

describe('the launcher\'s namespace failures', () => {
  const { appArmorNamespaceFailure } = require('../lib/exec/apparmor');
  const withHostRoot = (root, fn) => {
    const saved = process.env.MOUNT_SANDBOX_TEST_HOST_ROOT;
    process.env.MOUNT_SANDBOX_TEST_HOST_ROOT = root;
    try {
      return fn();
    } finally {
      if (saved === undefined) delete process.env.MOUNT_SANDBOX_TEST_HOST_ROOT;
      else process.env.MOUNT_SANDBOX_TEST_HOST_ROOT = saved;
    }
  };
  const asUser = (fn) => {
    const spy = jest.spyOn(process, 'geteuid').mockReturnValue(1000);
    try {
      return fn();
    } finally {
      spy.mockRestore();
    }
  };

  // Ubuntu 24.04 lets unshare() succeed under its unprivileged_userns profile, which then denies
  // the capability to write the id maps: the launcher reports stage "namespaces", EPERM.
  test('EPERM entering them under the restriction is the restriction, not a launcher fault', () => {
    const { EPERM, EINVAL } = os.constants.errno;
    asUser(() => withHostRoot(hostRoot(1), () => {
      const refused = appArmorNamespaceFailure('namespaces', EPERM);
      expect(refused.stage).toBe('namespaces-unavailable');
      expect(refused.hint).toContain('`npx mount-sandbox apparmor`');
      expect(appArmorNamespaceFailure('namespaces', EINVAL)).toEqual({ stage: 'namespaces', hint: '' });
      expect(appArmorNamespaceFailure('landlock-unavailable', 0)).toEqual({ stage: 'landlock-unavailable', hint: '' });
    }));
    asUser(() => withHostRoot(hostRoot(0), () => {
      expect(appArmorNamespaceFailure('namespaces', EPERM)).toEqual({ stage: 'namespaces', hint: '' });
    }));
  });
});
